package domain

import (
	"strings"
	"testing"
)

// TestAttack99_SingleQuotedMemberInJoinedArgv (ninety-ninth review, on
// 9b1b47f, low-medium: a credential recorded and shown; the fix of
// TestAttack96_MemberFormsShown does not hold where it is shown). 9b1b47f
// hides a single-quoted member (Python's {'password': '…'}, YAML's
// password: '…', TOML's token = '…') in a command's TEXT, and its test
// redacts that text. But an exec's command is shown and recorded (its
// summary "Run …", its Command detail, its scope's "command") as its argv
// joined by ShellJoin, which quotes each argument in '…' and writes each
// ' in it as the four bytes quote, backslash, quote, quote. A script passed as `sh -c SCRIPT` or `python3 -c
// SCRIPT` (how Codex's exec_command and any runtime send one) becomes
//
//	python3 -c '… json={'\''username'\'': '\''bot'\'', '\''password'\'': '\''…'\''} …'
//
// where the member patterns find no quote-name-quote-':' (a backslash and
// a quote stand between the name's quote and the ':') and no quoted value
// (memberBare's quoted value takes the lone backslash). The password is
// in clear on the card and in the events (tests/attack99_joinedquote_test.go).
// The same member in double quotes is hidden in the joined form (control).
//
// Root cause: domain/redact.go secretRes member and memberBare (a
// single quote escaped only as \\*' / not at all; ShellJoin's escaped quote is
// neither), with domain/classify.go exec showing ShellJoin(argv).
//
// Fix: take that escaped quote (and "'"'"'…) as a single quote in the member patterns
// (like \\*" for the double quote), or redact each argument of the argv
// (RedactArgv, its -c script as shell text) and join the redacted words
// for the summary and the Command detail.
func TestAttack99_SingleQuotedMemberInJoinedArgv(t *testing.T) {
	shell := textMode{shell: true, keysShown: true}
	const tok = "Zq8xLmN3pQ7rT2vW"
	shown := func(argv ...string) string { return redactText(ShellJoin(argv), shell) }
	// Controls: the scripts as text are hidden (9b1b47f), and a member in
	// double quotes is hidden in the joined form too.
	py := `import requests; r = requests.post('https://api.example/v1/login', json={'username': 'bot', 'password': '` + tok + `'}); print(r.status_code)`
	yml := "cat > config.yaml <<EOF\ndatabase:\n  password: '" + tok + "'\nEOF"
	for _, s := range []string{py, yml, shown("python3", "-c", strings.ReplaceAll(py, "'", `"`))} {
		if got := redactText(s, shell); strings.Contains(got, tok) {
			t.Fatalf("control: %s\nshown as %s", s, got)
		}
	}
	for _, got := range []string{
		shown("python3", "-c", py),
		shown("bash", "-lc", `python3 -c "`+py+`"`),
		shown("sh", "-c", yml),
		shown("bash", "-lc", `printf "[auth]\ntoken = '`+tok+`'\n" > cfg.toml`),
	} {
		if strings.Contains(got, tok) {
			t.Errorf("shown as %s", got)
		}
	}
}

package domain

import (
	"strings"
	"testing"
)

// TestAttack106_InstallThenSecretShown (low, a false show): the README
// says a shell command that computes its program is shown whole, "a
// pipeline into a shell (| sh, bash <<<) holding an expansion or what
// would be hidden", and that "a script a pipeline downloads into a shell
// (curl -fsS URL | sh) is not". pipedScriptHides (domain/redact_whole.go)
// takes the rest of the line after "| sh" as the pipeline's: an
// installer's usual one-liner, which downloads a tool's installer into sh
// and then uses the tool with a credential,
//
//	curl -LsSf https://astral.sh/uv/install.sh | sh && uv publish --token pypi-…
//
// is shown and recorded whole, the PyPI token and a mysql password in
// clear, though the pipeline into sh holds nothing hidden and the token
// is an option of another command; so is the same written on two lines
// (the blank pipeToShell wants after "sh" is the line break, and the line
// taken is the next one). The same written with ';' ("sh;" is no match
// of pipeToShell) keeps them hidden (control), as does the second command
// alone.
func TestAttack106_InstallThenSecretShown(t *testing.T) {
	const pypi = "pypi-AgEIcHlwaS5vcmcCJGZmZmZmZmZmLWZmZmYtZmZmZi1mZmZmLWZmZmZmZmZmZmZmZgACKlszLCJmZmZmIl0AAAYg"
	const pw = "Zq8vLw3nR2tK9pXs"
	const uv = "curl -LsSf https://astral.sh/uv/install.sh | sh"
	const docker = "curl -fsSL https://get.docker.com | sh"
	for _, c := range []struct{ secret, alone, semicolon, lines, and string }{
		{pypi, "uv publish --token " + pypi,
			uv + "; uv publish --token " + pypi,
			uv + "\nuv publish --token " + pypi,
			uv + " && uv publish --token " + pypi},
		{pw, "mysql --password=" + pw + " db",
			docker + "; mysql --password=" + pw + " db",
			docker + "\nmysql --password=" + pw + " db",
			docker + " && mysql --password=" + pw + " db"},
	} {
		for _, cmd := range []string{c.alone, c.semicolon} {
			for _, s := range []string{shownExec(t, map[string]any{"cmd": cmd}), attack42ShownBash(t, cmd)} {
				if strings.Contains(s, c.secret) {
					t.Fatalf("control: %q shows its secret:\n%s", cmd, s)
				}
			}
		}
		for _, cmd := range []string{c.and, c.lines} {
			for _, s := range []string{shownExec(t, map[string]any{"cmd": cmd}), attack42ShownBash(t, cmd)} {
				if strings.Contains(s, c.secret) {
					t.Errorf("%q: a downloaded installer piped into sh, then a command with a credential: the credential is shown and recorded:\n%s", cmd, s)
				}
			}
		}
	}
}

// TestAttack106_CommitMessageShowsToken (low, a false show): codeRunners
// (domain/redact_whole.go) reads "subprocess", "system(", "popen(",
// "exec…(" anywhere in a shell command as a language's call that runs a
// program, and the command is then shown and recorded whole: a commit
// message that names the change ("Replace os.system with
// subprocess.run") shows the GitHub token of the push after it, which the
// same command with another message hides (control).
func TestAttack106_CommitMessageShowsToken(t *testing.T) {
	const tok = "ghp_Zq8vLw3nR2tK9pXsYb7Hf4Jm0aB1cD2eF3gH"
	push := ` && git push https://x-access-token:` + tok + `@github.com/org/repo main`
	control := `git commit -qm "Use a helper for the build"` + push
	for _, s := range []string{shownExec(t, map[string]any{"cmd": control}), attack42ShownBash(t, control)} {
		if strings.Contains(s, tok) {
			t.Fatalf("control: the token is shown:\n%s", s)
		}
	}
	for _, msg := range []string{"Replace os.system with subprocess.run", "Call exec_batch() once"} {
		cmd := `git commit -qm "` + msg + `"` + push
		for _, s := range []string{shownExec(t, map[string]any{"cmd": cmd}), attack42ShownBash(t, cmd)} {
			if strings.Contains(s, tok) {
				t.Errorf("a commit message %q shows the token of the push after it:\n%s", msg, s)
			}
		}
	}
}

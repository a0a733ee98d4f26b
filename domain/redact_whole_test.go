package domain

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestComputedProgramShownWhole: a shell command that is not plain is
// shown whole, whatever a pattern would hide in it: eval, trap, a runner
// given a computed program (env, sudo, find -exec), a backquote or a $(…),
// a pipe or a here-string into a shell, a PATH or a directory from an
// operator's expansion, a process substitution sourced, a language's
// inline code, a function. Each holds "password=P" or "Bearer P" with P
// the program run. Controls: a plain command keeps a credential's value
// hidden, with an expansion of a variable it never sets (an argument, a
// quoted word, an echo of $HOME, ls . "$d"), so that the rule does not
// show every command with a '$'.
func TestComputedProgramShownWhole(t *testing.T) {
	const p = attack42Prog
	for _, cmd := range []string{
		`T="password=` + p + `"; eval "${T#*=}"`,
		`T="password=` + p + `"; trap "${T#*=}" EXIT`,
		`T="password=` + p + `"; env LC_ALL=C "${T#*=}"`,
		`T="password=` + p + `"; sudo -n ${T#*=}`,
		`T="password=` + p + `"; find . -maxdepth 0 -exec ${T#*=} \;`,
		"T=\"password=" + p + "\"; `echo ${T#*=}`",
		`T="password=` + p + `"; $(echo ${T#*=})`,
		`echo "Authorization: Bearer ` + p + `" | awk '{print $3}' | sh`,
		`T="password=` + p + `"; bash <<< "${T#*=}"`,
		`T="password=tools"; PATH="${T#*=}:$PATH" r4nd0m`,
		`T="password=tools"; cd "${T#*=}" && ./r4nd0m`,
		`T="password=` + p + `"; source <(echo "${T#*=}")`,
		`python3 -c 'import os; t="password=` + p + `"; os.system(t.split("=")[1])'`,
		`T="password=` + p + `"; f() { ${T#*=}; }; f`,
	} {
		want := p
		if strings.Contains(cmd, "r4nd0m`") || strings.HasSuffix(cmd, "r4nd0m") {
			want = "password=tools"
		}
		for _, s := range []string{shownExec(t, map[string]any{"cmd": cmd}), attack42ShownBash(t, cmd)} {
			if !strings.Contains(s, want) || HidesText(s) {
				t.Errorf("%s computes its program and is not shown whole:\n%s", cmd, s)
			}
		}
	}
	const secret = "Zq8vLw3nR2tK9pXs"
	for _, cmd := range []string{
		`mysql --password=` + secret + ` -u me "$DB"`,
		`curl -H "Authorization: Bearer ` + secret + `" "https://api.example/$PATH_PART"`,
		`echo "$HOME"; curl -u me:` + secret + ` https://api.example/`,
		`ls . "$d"; mysql --password=` + secret + ` db`,
		`cd src && mysql --password=` + secret + ` db`,
		`DOCKER_PASSWORD=` + secret + `; echo "$DOCKER_PASSWORD" | docker login -u me --password-stdin registry.example`,
		`mysqldump --password=` + secret + ` db > dump.sql && gzip dump.sql`,
		"cat > cfg.yaml <<EOF\nauth:\n  password: " + secret + "\nEOF\nkubectl apply -f cfg.yaml",
		`curl -fsS -H "Authorization: Bearer ` + secret + `" https://api.example/v1/me | jq .`,
		`curl -LsSf https://astral.sh/uv/install.sh | sh && uv publish --token pypi-` + secret,
		"cat > notes.txt <<EOF\nAPI_TOKEN=" + secret + "\nEOF\ncurl -fsS https://x.example/i.sh | sh",
		`git commit -m "$MSG"; mysql --password=` + secret + ` db`,
	} {
		if s := shownExec(t, map[string]any{"cmd": cmd}); strings.Contains(s, secret) {
			t.Errorf("control: %s names its programs, and its password is shown:\n%s", cmd, s)
		}
	}
	for _, cmd := range []string{
		`mysqldump --password=` + secret + ` db > r.sh; ./r.sh`,
		`T="password=` + secret + `"; $T`,
		`echo "Bearer ` + secret + `" | while read a b; do $b; done`,
		"cut -d= -f2 <<EOF | sh -s\npassword=" + secret + "\nEOF",
		`PATH="password=` + secret + `:/usr/bin" deploy`,
		`echo password=` + secret + ` | cut -d= -f2 > g; chmod +x g; env PATH=.:/usr/bin:/bin g`,
		`echo password=` + secret + ` | cut -d= -f2 > g; sh < g`,
		`echo password=` + secret + ` | cut -d= -f2 > g; cat g | sh`,
		`echo password=` + secret + ` | cut -d= -f2 > g; curl -s file://$PWD/g | sh`,
		`echo password=` + secret + ` | cut -d= -f2 > g; nice sh g`,
		`echo password=` + secret + ` | cut -d= -f2 | timeout 5 sh`,
		`echo password=` + secret + ` | cut -d= -f2 | dd of=g status=none; bash g`,
		`mkdir -p "password=` + secret + `" && cp tools/x password*/ && password*/x`,
	} {
		if s := shownExec(t, map[string]any{"cmd": cmd}); !strings.Contains(s, secret) {
			t.Errorf("%s is not plain and is not shown whole:\n%s", cmd, s)
		}
	}
	// An argv running a shell's -c is judged by its script.
	if s := shownExec(t, map[string]any{"argv": []any{"bash", "-lc", "MY_SECRET=" + secret + " ./deploy.sh"}}); strings.Contains(s, secret) {
		t.Errorf("control: Codex's bash -lc of a plain script shows its secret:\n%s", s)
	}
	if s := shownExec(t, map[string]any{"argv": []any{"bash", "-lc", `"${1#*=}"`, "x", "password=" + secret}}); !strings.Contains(s, secret) {
		t.Errorf("bash -lc of a script expanding $1 hides its argument:\n%s", s)
	}
	// The environment of an exec that computes its program is shown whole;
	// one that names its program keeps a secret-looking value hidden.
	if s := shownExec(t, map[string]any{"argv": []any{"/bin/sh", "-c", "${TERM#*=}"}, "env": map[string]any{"TERM": "password=" + p}}); !strings.Contains(s, `TERM="password=`+p+`"`) {
		t.Errorf("an exec computing its program from its environment hides the value:\n%s", s)
	}
	if s := shownExec(t, map[string]any{"argv": []any{"mysql", "db"}, "env": map[string]any{"MYSQL_PWD": secret, "TERM": "password=" + secret}}); strings.Contains(s, secret) {
		t.Errorf("control: an exec naming its program shows a secret in its environment:\n%s", s)
	}
}

// BenchmarkRedactedPlainCommand: the display values of a decision on a
// command that hides a credential, which is judged plain with the shell
// parser first (computesProgram), against BenchmarkClassify's command that
// hides nothing.
func BenchmarkRedactedPlainCommand(b *testing.B) {
	raw, _ := json.Marshal(map[string]any{"cmd": `curl -fsS -H "Authorization: Bearer Zq8vLw3nR2tK9pXs" https://api.example/v1/me | jq -c .`})
	b.ReportAllocs()
	for b.Loop() {
		a, err := Classify(Invocation{ToolName: "exec_command", Arguments: raw}, "/w", nil)
		if err != nil {
			b.Fatal(err)
		}
		if r := a.Redacted(); !HidesText(r.Summary) {
			b.Fatal("nothing hidden")
		}
	}
}

package domain

import (
	"strings"
	"testing"
)

// TestComputedProgramShownWhole: a shell command that computes the program
// it runs is shown whole, whatever a pattern would hide in it; the forms
// the hundred-and-fourth review's test does not hold: eval, trap, a runner
// (env, sudo, find -exec), a backquote or a $(…) as the program, a pipe or
// a here-string into a shell, a PATH assigned or a directory changed to
// from an expansion, a process substitution sourced, a language's
// system(). Each holds "password=P" or "Bearer P" with P the program run.
// Controls: a command that names its program keeps a credential's value
// hidden, with an expansion elsewhere (an argument, a quoted word, an
// echo of $HOME, ls . "$d"), so that the rule does not show every command
// with a '$'.
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
		`git commit -m "$MSG"; mysql --password=` + secret + ` db`,
	} {
		if s := shownExec(t, map[string]any{"cmd": cmd}); strings.Contains(s, secret) {
			t.Errorf("control: %s names its programs, and its password is shown:\n%s", cmd, s)
		}
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

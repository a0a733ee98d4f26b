package domain

import (
	"strings"
	"testing"
)

// TestPlainArgumentsNamingAProgram: a program that runs one of its
// arguments as a program and its code (find's -exec, flock, tar's
// --to-command, a shell named by a computed word) was judged plain, since
// only the first word was read as a program: `find . -exec sh -c 'echo
// password=P | cut -d= -f2 | sh' \;` showed password=[redacted] and ran P,
// by bash and by dash. Each case checks its premise with the real shells
// (attack42CheckKeyCases) and that the card shows the program. Controls:
// an honest command naming its programs keeps its password hidden, also
// with a computed argument ("$DB").
func TestPlainArgumentsNamingAProgram(t *testing.T) {
	pw := "echo password=" + attack42Prog + " | cut -d= -f2 | sh"
	attack42CheckKeyCases(t, []attack42KeyCase{
		{name: "find -exec sh -c", cmd: "find . -maxdepth 0 -exec sh -c '" + pw + "' \\;", runs: []string{"bash", "dash"}},
		{name: "find -exec the program", cmd: "find . -maxdepth 0 -exec password=x/../../" + attack42Prog + " \\;"},
		{name: "find -execdir", cmd: "find . -maxdepth 0 -execdir sh -c '" + pw + "' \\;", runs: []string{"bash", "dash"}},
		{name: "flock sh -c", cmd: "flock lock sh -c '" + pw + "'", runs: []string{"bash", "dash"}},
		{name: "flock $SHELL -c", cmd: "flock lock \"$SHELL\" -c '" + pw + "'"},
		{name: "tar --to-command", cmd: "tar cf - --files-from=/dev/null | tar xf - --to-command='sh -c \"" + pw + "\"'"},
		{name: "Bash: find -exec bash -c", cmd: "find . -maxdepth 0 -exec bash -c '" + pw + "' \\;", runs: []string{"bash"}, bash: true},
	})
	for _, c := range []string{
		`mysql --password=Zq8vLw3nR2tK9pXs -u me "$DB"`,
		`find . -name '*.log' -newer stamp -print | curl -u me:Zq8vLw3nR2tK9pXs -T - https://logs.example/up`,
		`make deploy password=Zq8vLw3nR2tK9pXs`,
	} {
		if s := shownExec(t, map[string]any{"cmd": c}); strings.Contains(s, "Zq8vLw3nR2tK9pXs") {
			t.Errorf("control: an honest command shows its password:\n%s", s)
		}
	}
}

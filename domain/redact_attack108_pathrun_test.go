package domain

import (
	"strings"
	"testing"
)

// TestAttack108_PathRunsWritten: the plain-command rule shows a command
// whole when it writes a file and "runs a file" (runsAFile: a program by
// a path, ./g, or a code reader). A file written and then run by its bare
// name through a PATH the text sets on the command (`PATH=.:/usr/bin:/bin
// g`) is neither: `echo password=tools/x | cut -d= -f2 > g; chmod +x g;
// PATH=.:/usr/bin:/bin g` is called plain, the value cut out of
// "password=" is hidden, and the shell runs g, which runs it (a file of
// no "#!" is run by the shell). The name may be any honest one (git,
// make). Control: the same with "./g" is shown whole; the same file
// written and only chmod-ed (not run) keeps the value hidden.
func TestAttack108_PathRunsWritten(t *testing.T) {
	write := "echo password=" + attack42Prog + " | cut -d= -f2 > g; chmod +x g; "
	if s := shownExec(t, map[string]any{"cmd": write + "./g"}); !strings.Contains(s, attack42Prog) {
		t.Fatalf("control: the file run by its path is not shown whole:\n%s", s)
	}
	if s := shownExec(t, map[string]any{"cmd": attack42Honest(write + "ls -l g")}); strings.Contains(s, attack42Inert) {
		t.Fatalf("control: a file written and not run shows the password:\n%s", s)
	}
	attack42CheckKeyCases(t, []attack42KeyCase{
		{name: "PATH=. g", cmd: write + "PATH=.:/usr/bin:/bin g", runs: []string{"bash", "dash"}},
		{name: "PATH=. g, Claude Code Bash", cmd: write + "PATH=.:/usr/bin:/bin g", runs: []string{"bash"}, bash: true},
	})
}

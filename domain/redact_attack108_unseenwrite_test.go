package domain

import (
	"strings"
	"testing"
)

// TestAttack108_UnseenFileWrite: the plain-command rule asks whether a
// pipeline that hides something writes a file (writesFiles) only by a
// '>' to other than /dev/null or a descriptor, or tee. A pipeline writes
// a file as well through dd of=, cp /dev/stdin, or a descriptor the text
// opened on a file before (`exec 3>g; … >&3`). `echo password=tools/x |
// cut -d= -f2 | dd of=g status=none; sh g` is called plain: the value
// cut out of "password=" is hidden, and sh runs the file holding it.
// Control: the same with "> g" is shown whole; the same pipeline into
// dd of=/dev/null keeps the value hidden.
func TestAttack108_UnseenFileWrite(t *testing.T) {
	cut := "echo password=" + attack42Prog + " | cut -d= -f2 "
	if s := shownExec(t, map[string]any{"cmd": cut + "> g; sh g"}); !strings.Contains(s, attack42Prog) {
		t.Fatalf("control: a file written by '>' and run is not shown whole:\n%s", s)
	}
	if s := shownExec(t, map[string]any{"cmd": attack42Honest(cut + "| dd of=/dev/null status=none")}); strings.Contains(s, attack42Inert) {
		t.Fatalf("control: a pipeline into dd of=/dev/null shows the password:\n%s", s)
	}
	attack42CheckKeyCases(t, []attack42KeyCase{
		{name: "dd of=", cmd: cut + "| dd of=g status=none; sh g", runs: []string{"bash", "dash"}},
		{name: "cp /dev/stdin", cmd: cut + "| cp /dev/stdin g; sh g", runs: []string{"bash", "dash"}},
		{name: "exec 3>g; >&3", cmd: "exec 3>g; " + cut + ">&3; sh g", runs: []string{"bash", "dash"}},
		{name: "dd of=, Claude Code Bash", cmd: cut + "| dd of=g status=none; sh g", runs: []string{"bash"}, bash: true},
	})
}

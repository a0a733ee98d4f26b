package domain

import (
	"strings"
	"testing"
)

// TestAttack109_HashPath: bash's `hash -p FILE NAME` makes NAME run FILE
// (a PATH of one name). The rule sees `hash` (no code taker, no path
// program) and then `ls` (no path): neither runs a file. So a file
// written with what would be hidden, hashed as ls and run as ls, is
// called plain in a Claude Code Bash call (bash): the value is hidden and
// bash runs it. Controls: the same file run as ./g is shown whole; the
// file written and ls run without hash -p keeps the password hidden.
func TestAttack109_HashPath(t *testing.T) {
	w := "echo password=" + attack42Prog + " | cut -d= -f2 > g; chmod +x g; "
	if s := attack42ShownBash(t, w+"./g"); !strings.Contains(s, attack42Prog) {
		t.Fatalf("control: the file run by its path is not shown whole:\n%s", s)
	}
	if s := attack42ShownBash(t, attack42Honest(w+"ls -l g")); strings.Contains(s, attack42Inert) {
		t.Fatalf("control: a file written and listed shows the password:\n%s", s)
	}
	attack42CheckKeyCases(t, []attack42KeyCase{
		{name: "hash -p ./g ls; ls, Claude Code Bash", cmd: w + "hash -p ./g ls; ls", runs: []string{"bash"}, bash: true},
	})
}

package domain

import (
	"strings"
	"testing"
)

// TestAttack110_DownloadLocalFile: a pipe into a shell counts as running a
// file (so a text that also writes one is shown whole) unless its left
// side is a download (curl URL, wget -O- URL: "the server's script, not a
// file the text wrote", the latest fix). A download is told from a local
// file's read only by a word starting with "file:" (or "@", -K,
// --config). curl reads URL schemes in any case (`FILE://`, `File://`)
// and takes a scheme for a URL without one from --proto-default: `curl -s
// FILE:///proc/self/cwd/g | sh` and `curl -s --proto-default file
// /proc/self/cwd/g | sh` print the file the text wrote, g, to the shell.
// With `echo password=tools/x | cut -d= -f2 > g;` before, the command is
// called plain, the password hidden, and the shell runs it.
// Controls: `file:///proc/self/cwd/g` is shown whole; an honest `echo
// password=P > app.env; curl -fsSL https://get.example.com/install.sh |
// sh` keeps P hidden.
func TestAttack110_DownloadLocalFile(t *testing.T) {
	w := "echo password=" + attack42Prog + " | cut -d= -f2 > g; "
	if s := shownExec(t, map[string]any{"cmd": w + "curl -s file:///proc/self/cwd/g | sh"}); !strings.Contains(s, attack42Prog) {
		t.Fatalf("control: curl file:// | sh is not shown whole:\n%s", s)
	}
	if s := shownExec(t, map[string]any{"cmd": attack42Honest("echo password=" + attack42Prog + " > app.env; curl -fsSL https://get.example.com/install.sh | sh")}); strings.Contains(s, attack42Inert) {
		t.Fatalf("control: an honest download into sh shows the password:\n%s", s)
	}
	attack42CheckKeyCases(t, []attack42KeyCase{
		{name: "curl FILE:// | sh", cmd: w + "curl -s FILE:///proc/self/cwd/g | sh", runs: []string{"bash", "dash"}},
		{name: "curl File:// | sh", cmd: w + "curl -s File:///proc/self/cwd/g | sh", runs: []string{"bash", "dash"}},
		{name: "curl --proto-default file | sh", cmd: w + "curl -s --proto-default file /proc/self/cwd/g | sh", runs: []string{"bash", "dash"}},
	})
}

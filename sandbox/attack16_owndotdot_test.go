package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack16OwnConfigPathDotDot (sixteenth attack review, with
// tests.TestAttack16ServerBinaryLinkDotDot): a configuration file the
// server was given as ws/tools/../turnstile.toml was checked as the path
// Abs cleaned, ws/turnstile.toml, which passes no symlink; the next start
// opens it through ws/tools, which a command can replace with a symlink
// whose ".." is a directory of its own. Controls: the same file given by
// its own path, and through a directory outside the writable roots, leave
// commands to run.
func TestAttack16OwnConfigPathDotDot(t *testing.T) {
	ws, outside := tempWorkspace(t), tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"turnstile.toml": "x\n", "tools/README": "x\n"})
	mustDo(t, os.MkdirAll(filepath.Join(outside, "etc"), 0o755))
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
	defer ProtectOwnFiles()
	for _, c := range []struct {
		path    string
		refused bool
	}{
		{ws + "/turnstile.toml", false},
		{outside + "/etc/../../" + filepath.Base(ws) + "/turnstile.toml", false},
		{ws + "/tools/../turnstile.toml", true},
	} {
		ProtectOwnFiles(c.path)
		why := ownFileLinked(s.Sandbox.Filesystem.Entries, helperProg{})
		if got := why != "" && strings.Contains(why, "tools"); got != c.refused {
			t.Errorf("a server given %s: commands refused %v, want %v (%s)", c.path, got, c.refused, why)
		}
	}
}

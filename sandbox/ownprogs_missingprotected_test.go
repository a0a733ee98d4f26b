package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestOwnConfigDotDotPastMissingProtected: a directory that would hold a
// protected path that does not exist (ws/.mvn without .mvn/jvm.config)
// is not pinned by the kernel (a command renames it), so a server
// configuration named through it and ".." is refused as through any other
// writable directory; with the protected file there, the directory is
// pinned (a mount point below it) and the same path is left to run.
func TestOwnConfigDotDotPastMissingProtected(t *testing.T) {
	for _, c := range []struct {
		name    string
		present bool
		refused bool
	}{{"missing", false, true}, {"present (control)", true, false}} {
		t.Run(c.name, func(t *testing.T) {
			ws := tempWorkspace(t)
			files := map[string]string{"turnstile.toml": "x\n", ".mvn/README": "x\n"}
			if c.present {
				files[".mvn/jvm.config"] = "-Xmx1g\n"
			}
			mkfiles(t, ws, files)
			mustDo(t, os.MkdirAll(filepath.Join(ws, ".mvn"), 0o755))
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
			defer ProtectOwnFiles()
			ProtectOwnFiles(ws + "/.mvn/../turnstile.toml")
			why := ownFileLinked(s.Sandbox.Filesystem.Entries, helperProg{})
			if got := why != "" && strings.Contains(why, ".mvn"); got != c.refused {
				t.Errorf("a server given ws/.mvn/../turnstile.toml (.mvn/jvm.config there: %v): commands refused %v, want %v (%s)", c.present, got, c.refused, why)
			}
		})
	}
}

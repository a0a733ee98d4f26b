package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"turnstile/domain"
)

// TestFIFOOnTheWayIsNoQuarantine: a FIFO a command leaves where a
// workspace's own .config was ends the way to every protected item below
// it, as a file does: the result lists nothing set aside (the
// hundred-and-third review saw seventeen items "created" that did not
// exist, each with "not a directory"), and the next command runs (the
// checks open no FIFO: TestAttack103_FIFOWorkspaceFileDirLater). Control:
// a mise config the command puts in a .config directory is set aside.
func TestFIFOOnTheWayIsNoQuarantine(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	if err := os.MkdirAll(filepath.Join(ws, ".config"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r := sh(t, s, `cd `+ws+` && echo '[hooks]' > .config/mise.toml`)
	if r.ExitCode != 0 || len(r.Quarantined) != 1 || r.Quarantined[0].Path != filepath.Join(ws, ".config", "mise.toml") {
		t.Fatalf("control: a mise config made in .config: exit %d, set aside %+v", r.ExitCode, r.Quarantined)
	}
	r = sh(t, s, `cd `+ws+` && rm -rf .config && mkfifo .config && echo made`)
	if r.ExitCode != 0 || string(r.Stdout) != "made\n" {
		t.Fatalf("the command did not run: exit %d %q %q", r.ExitCode, r.Stdout, r.Stderr)
	}
	if len(r.Quarantined) != 0 {
		t.Errorf("a FIFO in place of .config: %d items listed as set aside, the first %+v", len(r.Quarantined), r.Quarantined[0])
	}
	r = sh(t, s, `echo again`)
	if r.ExitCode != 0 || string(r.Stdout) != "again\n" {
		t.Errorf("the next command: exit %d %q %q", r.ExitCode, r.Stdout, r.Stderr)
	}
}

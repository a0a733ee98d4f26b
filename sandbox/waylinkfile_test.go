package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"turnstile/domain"
)

// TestWayLinkToAFileKept: a symlink to a regular file on the way to a
// protected path (a person's .mvn linked to a file, where .mvn/jvm.config
// is protected), there before the command, is not the command's doing:
// the check after a command that changes nothing took the ENOTDIR below
// it for a path made through a symlink it "put on the way" and renamed the
// person's link (found 2026-12-07 in a turn rooted at "/": /proc/mounts,
// a link to self/mounts, reported under /proc/*/environ).
//
// Control: the same link made by the command is set aside, and so is the
// person's link retargeted by the command to a directory of its own that
// holds the protected file.
func TestWayLinkToAFileKept(t *testing.T) {
	f := requireKernel(t, true)
	workspace := func(link bool) string {
		ws := tempWorkspace(t)
		mkfiles(t, ws, map[string]string{"mvnfile": "x\n", "evil/jvm.config": "-javaagent:/tmp/x.jar\n"})
		if link {
			mustDo(t, os.Symlink("mvnfile", filepath.Join(ws, ".mvn")))
		}
		return ws
	}
	isLink := func(p string) bool {
		fi, err := os.Lstat(p)
		return err == nil && fi.Mode()&os.ModeSymlink != 0
	}

	ws := workspace(true)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r := sh(t, s, `cd `+ws+` && echo ran`)
	if r.ExitCode != 0 || string(r.Stdout) != "ran\n" {
		t.Fatalf("premise: the command did not run: exit %d %q %q", r.ExitCode, r.Stdout, r.Stderr)
	}
	if len(r.Quarantined) != 0 || !isLink(filepath.Join(ws, ".mvn")) {
		t.Errorf("a command that changed nothing had the person's .mvn (a link to a file, there before it) set aside: %+v", r.Quarantined)
	}

	// Control: the command makes the link.
	ws = workspace(false)
	s = snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r = sh(t, s, `cd `+ws+` && ln -s mvnfile .mvn && echo made`)
	if string(r.Stdout) != "made\n" || isLink(filepath.Join(ws, ".mvn")) || len(r.Quarantined) == 0 {
		t.Errorf("control: a .mvn link the command made was not set aside: %q %q %+v", r.Stdout, r.Stderr, r.Quarantined)
	}

	// Control: the person's link retargeted to a directory holding the
	// protected file.
	ws = workspace(true)
	s = snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r = sh(t, s, `cd `+ws+` && ln -sfn evil .mvn && cat .mvn/jvm.config >/dev/null && echo moved`)
	if string(r.Stdout) != "moved\n" {
		t.Fatalf("premise: the command did not retarget .mvn: %q %q", r.Stdout, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, ".mvn", "jvm.config")); err == nil || len(r.Quarantined) == 0 {
		t.Errorf("control: .mvn retargeted to a directory holding jvm.config was not set aside: %+v", r.Quarantined)
	}
}

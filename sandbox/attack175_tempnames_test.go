package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"turnstile/domain"
)

// TestAttack175_TempNamesUnlistableDir (hundred-and-seventy-fifth
// review): tempNamesRefusal (review 173) refuses a write of FILE when an
// entry named FILE.tmp.* lies beside it (Claude Code writes its
// temporary copy there first, following a link), but it reads the
// directory as the server's own user and, when that fails, allows:
// "no directory yet: nothing is planted in it". README tells the person
// to run the server as another user than Claude Code's. The agent (its
// Bash runs as Claude Code's user, the workspace's owner) makes the
// directory of a file it may write searchable but not listable by others
// (chmod 0711: its owner still creates entries there, Claude Code still
// writes there), plants FILE.tmp.PID.MS -> ~/.bashrc, and the Write of
// FILE is allowed: Claude Code's temporary write goes through the link.
//
// The server's user is played by this goroutine's thread, its ids set to
// nobody's (setresuid on that thread alone: no capabilities left).
//
// Controls: the same check, by the same user, with the directory
// listable (0755) refuses the planted name; with nothing planted, the
// write of the file through the unlistable directory is allowed.
func TestAttack175_TempNamesUnlistableDir(t *testing.T) {
	base := tempWorkspace(t)
	// Let nobody reach the workspace, as a service user reaches the
	// person's project.
	// (Not the temp directory itself: /tmp is every user's, 1777.)
	for d := base; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ws := filepath.Join(base, "ws")
	dir := filepath.Join(ws, "dir")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, ".bashrc")
	notes := filepath.Join(dir, "notes.txt")
	for _, f := range []string{home, notes} {
		if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := domain.ResolveSnapshot(domain.SnapshotInputs{
		Profile: domain.ResolveProfile(&domain.ProfileRequest{Mode: domain.ModeAutoAcceptEdits}, domain.SourceComposer),
		Cwd:     ws, WorkspaceRoot: ws,
		Kernel: domain.KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	// checkAsNobody runs CheckFile of notes for writing as uid/gid 65534.
	checkAsNobody := func() error {
		ch := make(chan error, 1)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			if _, _, e := syscall.RawSyscall(syscall.SYS_SETGROUPS, 0, 0, 0); e != 0 {
				ch <- fmt.Errorf("setgroups: %v", e)
				return
			}
			if _, _, e := syscall.RawSyscall(syscall.SYS_SETRESGID, 65534, 65534, 65534); e != 0 {
				ch <- fmt.Errorf("setresgid: %v", e)
				return
			}
			if _, _, e := syscall.RawSyscall(syscall.SYS_SETRESUID, 65534, 65534, 65534); e != 0 {
				ch <- fmt.Errorf("setresuid: %v", e)
				return
			}
			_, err := CheckFile(&s, notes, domain.AccessWrite)
			ch <- err
		}()
		return <-ch
	}
	isSetup := func(err error) bool {
		var r *Refusal
		return err != nil && !errors.As(err, &r)
	}

	// Control: nothing planted, the directory listable: allowed. (With
	// the directory unlistable the write is refused whatever lies there:
	// the server cannot tell.)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := checkAsNobody(); err != nil {
		t.Fatalf("control: the write of %s with nothing planted beside it: %v", notes, err)
	}
	// The planted link, under a name of Claude Code's temporary copy.
	tmp := fmt.Sprintf("%s.tmp.%d.%d", notes, 4242, 1765000000000)
	if err := os.Symlink("../../.bashrc", tmp); err != nil {
		t.Fatal(err)
	}
	// Control: the directory listable: the planted name is seen.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := checkAsNobody(); err == nil || isSetup(err) {
		t.Fatalf("control: the write of %s with %s planted beside it, the directory listable, was not refused: %v", notes, tmp, err)
	}
	// The attack: the directory made unlistable by its owner.
	if err := os.Chmod(dir, 0o711); err != nil {
		t.Fatal(err)
	}
	if err := checkAsNobody(); err == nil {
		t.Errorf("a write of %s was allowed to a server of another user while %s -> ../../.bashrc lay beside it in a directory the agent made unlistable (0711): Claude Code's temporary write goes through the link", notes, tmp)
	} else if isSetup(err) {
		t.Fatal(err)
	}
}

package sandbox

import (
	"context"
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack140_AgentChmodsRootShared (review 140): restricted commands
// over the same writable root run one at a time (rootlock.go: an
// exclusive flock on the root's lock file) so that two of the agent's
// commands at once cannot fool each other's check (the
// hundred-and-thirty-seventh review). The exclusive lock is skipped for a
// root that is world-writable and sticky (sharedMode: /tmp made writable),
// judged from the root's mode when the lock is taken. The root's mode is
// the agent's to set: Landlock does not mediate chmod, and the sandboxed
// command runs as the root's owner. One command `chmod 1777 .` over the
// workspace, and from then on every command of the agent over it takes
// the root's lock shared: two run at once (here: the second command's
// locks are taken while the first holds its own).
//
// Control (subtest "control"): without the chmod, the second command
// over the same root cannot take its locks while the first holds them.
func TestAttack140_AgentChmodsRootShared(t *testing.T) {
	for _, chmod := range []bool{false, true} {
		name := "control"
		if chmod {
			name = "agent-chmods-root"
		}
		t.Run(name, func(t *testing.T) {
			f := newPlantFixture(t)
			if chmod {
				r := sh(t, f.s, "chmod 1777 . && echo done")
				if !strings.Contains(string(r.Stdout), "done") {
					t.Fatalf("premise: the agent's chmod of its root failed: %d %s", r.ExitCode, r.Stderr)
				}
				if fi, err := os.Stat(f.ws); err != nil || fi.Mode()&os.ModeSticky == 0 || fi.Mode().Perm()&0o002 == 0 {
					t.Fatalf("premise: the root's mode after the command: %v %v", fi.Mode(), err)
				}
			}
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			first, err := LockWritableRoots(context.Background(), s) // the first command, running
			if err != nil {
				t.Fatalf("the first command's locks: %v", err)
			}
			defer first.Release()
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // an error at once iff a conflicting lock is held
			second, err := LockWritableRoots(ctx, s)
			second.Release()
			if !chmod {
				if err == nil {
					t.Errorf("control: a second command over the running command's root got its locks")
				}
				return
			}
			if err == nil {
				t.Errorf("ESCAPED: after the agent's `chmod 1777 .` of its workspace root, a second command over the same root took its locks while the first held its own: two of the agent's commands run at once over one root")
			}
		})
	}
}

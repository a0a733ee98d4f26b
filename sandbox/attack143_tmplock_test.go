package sandbox

import (
	"context"
	"os"
	"testing"

	"turnstile/domain"
)

// TestAttack143_SlashTmpDropsWorkspaceLock (review 143): restricted
// commands over the same writable root run one at a time (rootlock.go: an
// exclusive flock on each root's lock file), so that two of the agent's
// commands at once cannot fool each other's check (the
// hundred-and-thirty-seventh review). lockTargets keeps only the topmost
// of nested roots ("below a root already held whole"), and a shared
// temporary directory given as a root (/tmp, ":slash_tmp" = "write") is
// taken shared, not exclusive. A workspace in /tmp under a profile that
// makes /tmp writable (the anchors' workspace profile does by default)
// therefore holds no exclusive lock at all: the workspace root is dropped
// as nested in /tmp, and /tmp is shared. Two commands of the agent over
// the same workspace (parallel tool calls) run at once.
//
// Control (subtest "control"): the same workspace under the plain
// workspace profile: the second command cannot take its locks while the
// first holds them.
func TestAttack143_SlashTmpDropsWorkspaceLock(t *testing.T) {
	for _, slashTmp := range []bool{false, true} {
		name := "control"
		if slashTmp {
			name = "slash-tmp-write"
		}
		t.Run(name, func(t *testing.T) {
			requireKernel(t, true)
			ws, err := os.MkdirTemp("/tmp", "attack143-ws-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(ws) })
			fs := map[string]domain.Access{}
			if slashTmp {
				fs[":slash_tmp"] = domain.AccessWrite
			}
			s := profileSnapshot(t, ws, fs)
			t.Logf("lock targets: %+v", lockTargets(writableRoots(s.Sandbox.Filesystem.Entries)))
			first, err := LockWritableRoots(context.Background(), &s) // the first command, running
			if err != nil {
				t.Fatalf("the first command's locks: %v", err)
			}
			defer first.Release()
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // an error at once iff a conflicting lock is held
			second, err := LockWritableRoots(ctx, &s)
			second.Release()
			if !slashTmp {
				if err == nil {
					t.Errorf("control: a second command over the running command's workspace got its locks")
				}
				return
			}
			if err == nil {
				t.Errorf("ESCAPED: with /tmp writable (:slash_tmp), a second command over the same workspace %s took its locks while the first held its own: two of the agent's commands run at once over one workspace", ws)
			}
		})
	}
}

package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"turnstile/domain"
)

// TestCommandsOverOneRootRunInTurn: two restricted commands over the same
// writable root (or one root inside the other's) do not run at once: the
// second waits until the first has ended and its check has run
// (rootlock.go; the hundred-and-thirty-seventh review's concurrent
// plants). A waits up to 3 s on a FIFO for B's word; over one root B
// cannot give it (it has not started), A goes on by itself and B runs
// after. Control: B over another root runs while A waits, and A gets its
// word at once.
func TestCommandsOverOneRootRunInTurn(t *testing.T) {
	f := requireKernel(t, true)
	for _, c := range []struct {
		name    string
		bRoot   string // relative to the test's base: "ws" is A's root
		overlap bool   // B may run while A does
	}{{"same-root", "ws", false}, {"root-inside", "ws/sub", false}, {"control-other-root", "other", true}} {
		t.Run(c.name, func(t *testing.T) {
			base := visibleWorkspace(t) // A reads B's FIFO there
			ws, broot := base+"/ws", filepath.Join(base, c.bRoot)
			mustDo(t, os.MkdirAll(ws, 0o755))
			mustDo(t, os.MkdirAll(broot, 0o755))
			mustDo(t, syscall.Mkfifo(ws+"/ready", 0o666))
			mustDo(t, syscall.Mkfifo(broot+"/word", 0o666))
			sa := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
			sb := snapshotFor(t, domain.ModeAutoAcceptEdits, broot, f.Kernel)
			if c.overlap { // A may read B's root: a read grant, no lock
				sa.Sandbox.Filesystem.Entries = append(sa.Sandbox.Filesystem.Entries, domain.FilesystemEntry{Kind: domain.PathExplicit,
					Path: broot, ResolvedPath: broot, Access: domain.AccessRead, Provenance: domain.ProvenanceRuntime})
			}
			start := func(s *domain.TurnExecutionSecuritySnapshot, script string) chan *Result {
				p, err := PlanSpawn(s, SpawnRequest{Argv: []string{"/bin/sh", "-c", script}}, os.Environ())
				if err != nil {
					t.Fatalf("plan: %v", err)
				}
				ch := make(chan *Result, 1)
				go func() {
					r, err := Run(context.Background(), p)
					if err != nil {
						t.Errorf("run: %v", err)
					}
					ch <- r
				}()
				return ch
			}
			a := start(sa, `echo up > ready; if timeout 3 cat `+broot+`/word >/dev/null; then echo OVERLAP; fi; echo A`)
			got := make(chan struct{})
			go func() { os.ReadFile(ws + "/ready"); close(got) }()
			select {
			case <-got: // A runs
			case r := <-a:
				t.Fatalf("premise: A ended before it was up: %+v", r)
			}
			b := start(sb, `timeout 3 sh -c 'echo b > word'; echo B`)
			ra, rb := <-a, <-b
			WaitCleanup()
			if ra == nil || rb == nil || !strings.Contains(string(ra.Stdout), "A") || !strings.Contains(string(rb.Stdout), "B") {
				t.Fatalf("premise: A %+v, B %+v", ra, rb)
			}
			if overlapped := strings.Contains(string(ra.Stdout), "OVERLAP"); overlapped != c.overlap {
				t.Errorf("B ran while A did: %v, want %v (A: %q %q)", overlapped, c.overlap, ra.Stdout, ra.Stderr)
			}
		})
	}
}

// TestLockTargets: the roots exclusive (the topmost of nested ones, once),
// the directories above them shared, in one order.
func TestLockTargets(t *testing.T) {
	base := t.TempDir()
	base, _ = filepath.EvalSymlinks(base)
	for _, d := range []string{"a/b", "a2", "c"} {
		mustDo(t, os.MkdirAll(filepath.Join(base, d), 0o755))
	}
	got := lockTargets([]string{base + "/a/b", base + "/a", base + "/a2", base + "/a"})
	want := map[string]bool{base + "/a": true, base + "/a2": true, base: false, "/": false}
	for d := filepath.Dir(base); d != "/"; d = filepath.Dir(d) {
		want[d] = false
	}
	if len(got) != len(want) {
		t.Fatalf("targets %+v, want %v", got, want)
	}
	// A world-writable sticky root is shared (an exclusive wait behind
	// every command over a workspace in /tmp would starve).
	if tmp := lockTargets([]string{"/tmp"}); len(tmp) != 2 || tmp[1].path != "/tmp" || tmp[1].exclusive {
		t.Errorf("/tmp: %+v, want / and /tmp shared", tmp)
	}
	for i, g := range got {
		if ex, ok := want[g.path]; !ok || ex != g.exclusive {
			t.Errorf("target %+v, want exclusive=%v (present %v)", g, ex, ok)
		}
		if i > 0 && got[i-1].path >= g.path {
			t.Errorf("targets out of order: %q before %q", got[i-1].path, g.path)
		}
	}
}

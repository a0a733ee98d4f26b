package sandbox

import (
	"os"
	"testing"

	"turnstile/domain"
)

// TestAttack31OverlayParentRenamedWritesTheRealDirectory: a profile's
// "overlay" directory two levels inside the writable workspace (a build
// cache the person's tools trust, ws/build/cache). The overlay mount sits
// on ws/build/cache itself, so that directory cannot be renamed (EBUSY),
// but nothing pins its parent ws/build (mountPlan pins the chain above
// carve-outs and write grants, not above an overlay's read grant): a
// command renames ws/build away (the overlay mount travels with it). The
// next command's plan finds no ws/build/cache (viewRoots skips a missing
// grant), so ws/b2/cache is plain writable workspace: the command writes
// the real cache directory and renames ws/build back. The person's
// directory now holds what the agent wrote, which is exactly what the
// overlay promises never happens ("nothing it writes reaches the
// directory"). Control: the overlay holds when the command writes
// ws/build/cache directly, and the workspace around it is written.
// Severity: medium (an overlay inside a writable root, the README's and
// TestOverlayWritesStayTheCommands' own case; a cache at depth two).
func TestAttack31OverlayParentRenamedWritesTheRealDirectory(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	base := visibleWorkspace(t)
	ws := base + "/ws"
	cache := ws + "/build/cache"
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cache+"/entry", []byte("host\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := execProfileSnapshot(t, ws, map[string]domain.Access{cache: domain.AccessOverlay})
	sh := func(script string) *Result {
		t.Helper()
		r, err := run(t, &s, SpawnRequest{Argv: []string{"/bin/sh", "-c", script}}, nil)
		if err != nil {
			t.Fatalf("%v (%+v)", err, r)
		}
		return r
	}
	// Control: the overlay takes the command's write, the workspace is
	// written for real.
	r := sh(`echo agent > build/cache/entry && echo ws > f && cat build/cache/entry`)
	if got := string(r.Stdout); got != "agent\n" || r.ExitCode != 0 {
		t.Fatalf("control: exit %d, stdout %q, stderr %q", r.ExitCode, got, r.Stderr)
	}
	if b, _ := os.ReadFile(cache + "/entry"); string(b) != "host\n" {
		t.Fatalf("control: the overlay did not hold a direct write: %q", b)
	}
	if b, _ := os.ReadFile(ws + "/f"); string(b) != "ws\n" {
		t.Fatalf("control: the workspace was not written: %q", b)
	}
	// The attack: the overlay's parent renamed away, written by the next
	// command, renamed back.
	r = sh(`mv build b2 && echo moved`)
	t.Logf("rename: exit %d, stdout %q, stderr %q", r.ExitCode, r.Stdout, r.Stderr)
	r = sh(`echo agent > b2/cache/entry && mv b2 build && echo written`)
	t.Logf("write: exit %d, stdout %q, stderr %q", r.ExitCode, r.Stdout, r.Stderr)
	if b, _ := os.ReadFile(cache + "/entry"); string(b) != "host\n" {
		t.Fatalf("the overlay directory %s was written for real (its parent renamed away for one command and back): entry holds %q", cache, b)
	}
}

package sandbox

import (
	"os"
	"testing"

	"turnstile/domain"
)

// TestAttack31OverlayMissingDirectoryIsCreatedForReal: a profile's
// "overlay" directory inside the writable workspace that does not exist yet
// when a command starts (a fresh checkout's build or package cache,
// ws/build/cache, before the person's first build) is neither mounted
// (viewRoots skips a missing grant) nor held the way a missing "read" key
// inside a writable root is: the command creates the directory for real and
// fills it. The person's tools then find the agent's entries in the cache
// they trust, as if the overlay had been a write grant ("nothing it writes
// reaches the directory, the person or another command"). Control: the same
// key as "read" is held, and the command's same script leaves nothing on
// disk; the overlay of an existing directory takes the write.
// Severity: medium (the overlay's one promise broken for a cache inside the
// workspace that the person has not made yet).
func TestAttack31OverlayMissingDirectoryIsCreatedForReal(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	script := "mkdir -p build/cache && echo agent > build/cache/entry; cat build/cache/entry"
	for _, acc := range []domain.Access{domain.AccessRead, domain.AccessOverlay} {
		base := visibleWorkspace(t)
		ws := base + "/ws"
		cache := ws + "/build/cache"
		if err := os.MkdirAll(ws, 0o755); err != nil {
			t.Fatal(err)
		}
		s := execProfileSnapshot(t, ws, map[string]domain.Access{cache: acc})
		r, err := run(t, &s, SpawnRequest{Argv: []string{"/bin/sh", "-c", script}}, nil)
		if err != nil {
			t.Fatalf("%s: %v (%+v)", acc, err, r)
		}
		t.Logf("%s: exit %d, stdout %q, stderr %q", acc, r.ExitCode, r.Stdout, r.Stderr)
		b, err := os.ReadFile(cache + "/entry")
		if acc == domain.AccessRead {
			ents, _ := os.ReadDir(ws + "/build")
			for _, e := range ents {
				t.Logf("read: ws/build holds %s", e.Name())
			}
			if err == nil && len(b) > 0 {
				t.Fatalf("control: the missing read key was written for real (%q): the test is not about the overlay", b)
			}
			continue
		}
		if err == nil {
			t.Fatalf("the missing overlay directory %s was created for real and holds the command's entry %q", cache, b)
		}
	}
	// Control: an existing overlay directory takes the same write as the
	// command's own.
	base := visibleWorkspace(t)
	ws := base + "/ws"
	cache := ws + "/build/cache"
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	s := execProfileSnapshot(t, ws, map[string]domain.Access{cache: domain.AccessOverlay})
	r, err := run(t, &s, SpawnRequest{Argv: []string{"/bin/sh", "-c", script}}, nil)
	if err != nil || string(r.Stdout) != "agent\n" {
		t.Fatalf("control: the overlay of an existing directory: %v %+v", err, r)
	}
	if _, err := os.Lstat(cache + "/entry"); !os.IsNotExist(err) {
		t.Fatalf("control: an existing overlay directory was written: %v", err)
	}
}

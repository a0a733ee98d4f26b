package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack31OverlayKeyLinkedByAnotherTurn: the thirtieth review's overlay
// link, planted from another turn. dropPlantedLinks drops an overlay key
// reached through a link only when the link lies inside a writable grant
// of the same view; a link elsewhere is taken for the person's and
// followed. Turn A's workspace is the directory that holds the profile's
// overlay key (a home's .cache; any directory the agent writes in some
// turn): its command replaces the cache directory with a link to a
// root-owned 0700 directory outside every root. Turn B's profile has that
// cache as "overlay" and does not write there: its helper follows the link,
// mounts the target as the lower layer and idmaps it from its owner (root)
// to the command, which lists and reads root's 0600 file. Control: turn B's
// command is refused the directory by its own path, and turn A's through
// the same link, and with the key as "read" (the link followed, but not
// idmapped). Severity: medium (a read of any directory's content on the
// machine as its owner; needs a second turn with write access where the key
// lies, the class the README names for roots, not for profile keys).
func TestAttack31OverlayKeyLinkedByAnotherTurn(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	base := visibleWorkspace(t)
	cacheHome, proj, outside := base+"/home/.cache", base+"/proj", base+"/outside"
	for _, d := range []string{cacheHome + "/go-build/00", proj, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(outside, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outside+"/key", []byte("TOPSECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	snap := func(ws string, fs map[string]domain.Access) domain.TurnExecutionSecuritySnapshot {
		t.Helper()
		return execProfileSnapshot(t, ws, fs)
	}
	turnA := snap(cacheHome, nil)
	turnB := snap(proj, map[string]domain.Access{cacheHome + "/go-build": domain.AccessOverlay})
	turnBRead := snap(proj, map[string]domain.Access{cacheHome + "/go-build": domain.AccessRead})
	turnBWrite := snap(proj, map[string]domain.Access{cacheHome + "/go-build": domain.AccessWrite})
	sh := func(s *domain.TurnExecutionSecuritySnapshot, script string) *Result {
		t.Helper()
		r, err := run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c", "O=" + outside + "; C=" + cacheHome + "\n" + script}}, nil)
		if err != nil {
			t.Fatalf("%v (%+v)", err, r)
		}
		return r
	}
	// Control: turn B's overlay works and the directory is refused to it.
	r := sh(&turnB, `ls "$C/go-build"; cat "$O/key" 2>/dev/null || echo refused`)
	if got := string(r.Stdout); got != "00\nrefused\n" {
		t.Fatalf("control (turn B): stdout %q, stderr %q", got, r.Stderr)
	}
	// Turn A plants the link, and is itself refused through it.
	// Control: a write key, reached through no link, is written.
	r = sh(&turnBWrite, `echo mine > "$C/go-build/00/w" && echo wrote`)
	if b, err := os.ReadFile(cacheHome + "/go-build/00/w"); string(r.Stdout) != "wrote\n" || err != nil || string(b) != "mine\n" {
		t.Fatalf("control (turn B, write key): stdout %q, stderr %q, file %q %v", r.Stdout, r.Stderr, b, err)
	}
	r = sh(&turnA, `mv go-build old && ln -s "$O" go-build && echo planted; cat go-build/key 2>/dev/null || echo refused`)
	if got := string(r.Stdout); got != "planted\nrefused\n" {
		t.Logf("turn A (holds?): stdout %q, stderr %q", got, r.Stderr)
		return
	}
	// Control: the same key as "read" follows the link too, but the
	// target is not idmapped: root's file stays unreadable.
	r = sh(&turnBRead, `cat "$C/go-build/key" 2>/dev/null || echo refused`)
	if got := string(r.Stdout); got != "refused\n" {
		t.Fatalf("control (turn B, read key): stdout %q, stderr %q", got, r.Stderr)
	}
	r = sh(&turnB, `id -u; ls "$C/go-build" 2>&1; cat "$C/go-build/key" 2>&1`)
	if strings.Contains(string(r.Stdout), "TOPSECRET") {
		t.Fatalf("turn B read root's 0600 file outside every root through its overlay key, linked by turn A: stdout %q", r.Stdout)
	}
	// The same with a write key (idmapped as a writable root is): the
	// command neither reads root's file nor writes beside it.
	r = sh(&turnBWrite, `cat "$C/go-build/key" 2>&1; echo agent > "$C/go-build/new" 2>&1 || echo refused`)
	if _, err := os.Lstat(outside + "/new"); strings.Contains(string(r.Stdout), "TOPSECRET") || err == nil {
		t.Fatalf("turn B's write key, linked by turn A to root's directory: stdout %q (file made there: %v)", r.Stdout, err == nil)
	}
}

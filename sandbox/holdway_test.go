package sandbox

import (
	"os"
	"strings"
	"syscall"
	"testing"

	"turnstile/domain"
)

// TestDenyWayMadeAndRemoved: a deny entry whose directory is missing
// (ws/secret/prod, no ws/secret): the command sees the denied name held
// (it cannot make it, nor move the way to make it anew), while it makes a
// sibling in the way and keeps it; after a command that left the way
// empty, the way is gone again. Control: the deny entry whose directory
// exists is held as before.
func TestDenyWayMadeAndRemoved(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	ws := visibleWorkspace(t) + "/ws"
	if err := os.MkdirAll(ws+"/held", 0o755); err != nil {
		t.Fatal(err)
	}
	s := execProfileSnapshot(t, ws, map[string]domain.Access{
		ws + "/held/prod":   domain.AccessDeny,
		ws + "/secret/prod": domain.AccessDeny,
	})
	r := sh(t, &s, "echo x > secret/prod/key 2>/dev/null && echo DENY-WRITTEN; ls secret/prod >/dev/null 2>&1 && echo DENY-LISTED; "+
		"mv secret secret.moved 2>/dev/null && echo WAY-MOVED; mkdir secret/other && echo o > secret/other/f && echo sibling-made; "+
		"echo y > held/prod/key 2>/dev/null && echo HELD-WRITTEN; echo done")
	out := string(r.Stdout)
	if !strings.Contains(out, "done") || !strings.Contains(out, "sibling-made") {
		t.Fatalf("control: the command did not run, or could not make a sibling in the way: %q %s", out, r.Stderr)
	}
	for _, bad := range []string{"DENY-WRITTEN", "DENY-LISTED", "WAY-MOVED", "HELD-WRITTEN"} {
		if strings.Contains(out, bad) {
			t.Errorf("%s: %q", bad, out)
		}
	}
	if b, err := os.ReadFile(ws + "/secret/other/f"); err != nil || string(b) != "o\n" {
		t.Errorf("the sibling the command made in the way is gone: %q %v", b, err)
	}
	if exists(ws + "/secret/prod") {
		t.Errorf("the held name stayed after the command")
	}
	// A command that leaves the way empty: the way is removed.
	if err := os.RemoveAll(ws + "/secret"); err != nil {
		t.Fatal(err)
	}
	r = sh(t, &s, "test -d secret && echo way-there; echo done")
	if !strings.Contains(string(r.Stdout), "way-there") {
		t.Errorf("control: the way was not made for the command: %q %s", r.Stdout, r.Stderr)
	}
	if exists(ws + "/secret") {
		t.Errorf("the way Run made stayed after a command that left it empty")
	}
}

// TestMakeWayOwner: a way is made with the owner and group of the
// directory it is made in, writable by its owner, never by others.
func TestMakeWayOwner(t *testing.T) {
	requireRoot(t)
	top := t.TempDir()
	if err := os.Chown(top, 12345, 23456); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(top, 0o777); err != nil {
		t.Fatal(err)
	}
	w, made, err := makeWay(hold{path: top + "/a", way: true})
	if err != nil || !made {
		t.Fatalf("makeWay: %v %v", made, err)
	}
	fi, err := os.Stat(top + "/a")
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if st.Uid != 12345 || st.Gid != 23456 || fi.Mode().Perm() != 0o755 {
		t.Errorf("the way: uid %d gid %d mode %o, want 12345 23456 755", st.Uid, st.Gid, fi.Mode().Perm())
	}
	if _, made, err := makeWay(hold{path: top + "/a", way: true}); made || err != nil {
		t.Errorf("an existing way: made %v %v", made, err)
	}
	removeWay(w)
	if exists(top + "/a") {
		t.Error("removeWay left the empty way it made")
	}
}

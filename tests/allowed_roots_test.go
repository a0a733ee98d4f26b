package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAllowedRootsBoundAServedTurn: the ninth attack review's
// reproduction. Under allowed_profiles = [":workspace"] a runtime started an
// auto_accept_edits turn rooted at "/" and its apply_patch of
// /etc/cron.d/pwn was allowed without a question. With allowed_roots, a
// root outside is a 400 naming the field that appends nothing, and so is a
// root inside whose symlink leads out (checked where it leads); the
// control, a turn rooted inside, starts and is confined to it.
func TestAllowedRootsBoundAServedTurn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	allowed := filepath.Join(dir, "allowed")
	proj := filepath.Join(allowed, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/", filepath.Join(allowed, "link")); err != nil {
		t.Fatal(err)
	}
	cons := filepath.Join(dir, "constraints.toml")
	if err := os.WriteFile(cons, []byte("allowed_profiles = [\":workspace\"]\nallowed_roots = [\""+allowed+"\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--constraints", cons)
	aae := map[string]any{"mode": "auto_accept_edits"}
	for _, c := range []struct{ id, root, want string }{
		{"r-slash", "/", "is outside the roots"},
		{"r-link", filepath.Join(allowed, "link"), "resolves to /, outside the roots"},
		{"r-dotdot", allowed + "/../..", "is outside the roots"},
	} {
		status, body := startProfileTurn(s, c.id, c.root, aae)
		e := wantError(t, status, body, http.StatusBadRequest, "invalid_field")
		if !strings.Contains(e.Message, c.want) || !strings.Contains(string(body), "workspace_root") {
			t.Fatalf("%s: %s", c.root, body)
		}
		if st, b := s.Do("GET", "/v1/turns/"+c.id, nil); st != http.StatusNotFound {
			t.Fatalf("%s: the refused turn exists: %d %s", c.id, st, b)
		}
	}
	// Control: rooted inside, the turn starts; a write in it is allowed and
	// one in /etc is not.
	if status, body := startProfileTurn(s, "r-ok", proj, aae); status != http.StatusCreated {
		t.Fatalf("control: %d %s", status, body)
	}
	if d := s.decide("r-ok", "in", "apply_patch", patch(filepath.Join(proj, "a.txt"))); d.Decision != "allow" {
		t.Fatalf("control write in the root: %+v", d)
	}
	if d := s.decide("r-ok", "out", "apply_patch", patch("/etc/cron.d/pwn")); d.Decision == "allow" {
		t.Fatalf("a write in /etc from a turn rooted inside: %+v", d)
	}

	// After the start, a command of another turn whose root holds proj's
	// parent replaces proj with a symlink out of the allowed roots: the
	// root is granted only where it led at the start, so neither a
	// decision nor a command of r-ok writes where the link now leads. The
	// control, a turn rooted at a directory left alone, still writes.
	outside := filepath.Join(dir, "outside")
	other := filepath.Join(allowed, "other")
	for _, d := range []string{outside, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if status, body := startProfileTurn(s, "r-other", other, aae); status != http.StatusCreated {
		t.Fatalf("control start: %d %s", status, body)
	}
	if err := os.Rename(proj, proj+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, proj); err != nil {
		t.Fatal(err)
	}
	if d := s.decide("r-ok", "swapped", "apply_patch", patch(filepath.Join(proj, "b.txt"))); d.Decision == "allow" {
		t.Fatalf("a write through the swapped root: %+v", d)
	}
	run := s.execApproved("r-ok", "swapped-exec", map[string]any{"argv": []string{"/bin/sh", "-c", "echo x > " + filepath.Join(outside, "c.txt")}, "cwd": "/usr", "timeout_ms": 20000})
	if exists(filepath.Join(outside, "c.txt")) {
		t.Fatalf("a command wrote through the swapped root: %+v", run)
	}
	if d := s.decide("r-other", "in", "apply_patch", patch(filepath.Join(other, "a.txt"))); d.Decision != "allow" {
		t.Fatalf("control write in an untouched root: %+v", d)
	}
	run = s.execApproved("r-other", "other-exec", map[string]any{"argv": []string{"/bin/sh", "-c", "echo x > " + filepath.Join(other, "c.txt")}, "timeout_ms": 20000})
	if !exists(filepath.Join(other, "c.txt")) {
		t.Fatalf("control: the command in an untouched root did not write: %+v", run)
	}
}

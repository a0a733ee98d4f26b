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
}

package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// attack11Server starts a server whose constraints allow only dir/allowed
// (mode auto_accept_edits, i.e. :workspace).
func attack11Server(t *testing.T) (s *Server, dir, allowed, proj string) {
	dir = t.TempDir()
	allowed = filepath.Join(dir, "allowed")
	proj = filepath.Join(allowed, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	cons := filepath.Join(dir, "constraints.toml")
	if err := os.WriteFile(cons, []byte("allowed_profiles = [\":workspace\"]\nallowed_roots = [\""+allowed+"\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return StartServer(t, "", "--constraints", cons), dir, allowed, proj
}

func attack11Start(s *Server, id string, body map[string]any) (int, []byte) {
	body["turn_id"], body["workspace_id"], body["thread_id"] = id, "ws", "th-"+id
	body["permission_profile"] = map[string]any{"mode": "auto_accept_edits"}
	return s.Do("POST", "/v1/turns", body)
}

// TestAttack11RelativeRootEscapesAllowedRoots: the lexical check
// (Constraints.CheckRoots) cleans a relative root as if it hung from "/"
// (CleanPath drops the leading ".."), the engine's symlink check skips
// relative roots, but the snapshot resolves them from the cwd. So
// workspace_root (or a project root) "../.."+allowed, with the cwd in
// allowed/proj, is checked as allowed itself and granted as dir+allowed, a
// directory outside the allowed roots; its entry gets no Within (BindRoots
// finds no allowed root for it), so a symlink there is followed anywhere.
// Control: the same roots spelt absolute are refused / the allowed root
// spelt absolute starts.
func TestAttack11RelativeRootEscapesAllowedRoots(t *testing.T) {
	t.Parallel()
	s, dir, allowed, proj := attack11Server(t)
	rel := "../.." + allowed // from proj: dir + allowed
	escaped := filepath.Join(dir, allowed)
	if err := os.MkdirAll(escaped, 0o755); err != nil {
		t.Fatal(err)
	}
	// A second escaped root: a link (pre-existing, outside the allowed
	// roots) to a directory the operator never allowed.
	outside := filepath.Join(dir, "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(escaped, "link")); err != nil {
		t.Fatal(err)
	}

	// Controls: the escaped path spelt absolute is refused; the allowed
	// root spelt absolute starts.
	if st, b := attack11Start(s, "c-abs", map[string]any{"workspace_root": escaped, "cwd": proj}); st != http.StatusBadRequest {
		t.Fatalf("control: absolute escaped root: %d %s", st, b)
	}
	if st, b := attack11Start(s, "c-abs-pr", map[string]any{"workspace_root": proj, "cwd": proj, "project_roots": []string{filepath.Join(escaped, "link")}}); st != http.StatusBadRequest {
		t.Fatalf("control: absolute escaped project root: %d %s", st, b)
	}
	if st, b := attack11Start(s, "c-ok", map[string]any{"workspace_root": allowed, "cwd": proj}); st != http.StatusCreated {
		t.Fatalf("control: allowed root: %d %s", st, b)
	}
	if d := s.decide("c-ok", "c-out", "apply_patch", patch(filepath.Join(escaped, "pwn.txt"))); d.Decision == "allow" {
		t.Fatalf("control: a write outside from a turn rooted inside: %+v", d)
	}

	// Attack 1: relative workspace_root. Refused, naming the field; had it
	// started, its write outside would be checked below.
	st, b := attack11Start(s, "a-ws", map[string]any{"workspace_root": rel, "cwd": proj})
	if st != http.StatusBadRequest || !strings.Contains(string(b), `"field":"workspace_root"`) {
		t.Errorf("relative workspace_root %q (resolves to %s, outside %s): %d %s", rel, escaped, allowed, st, b)
		if d := s.decide("a-ws", "w1", "apply_patch", patch(filepath.Join(escaped, "pwn.txt"))); d.Decision == "allow" {
			t.Errorf("and its write to %s outside the allowed roots is allowed without a question: %+v", escaped, d)
		}
	}

	// Attack 2: relative project root through a link, unbound (no Within).
	st, b = attack11Start(s, "a-pr", map[string]any{"workspace_root": proj, "cwd": proj, "project_roots": []string{rel + "/link"}})
	if st != http.StatusBadRequest || !strings.Contains(string(b), `"field":"project_roots[0]"`) {
		t.Errorf("relative project root %q (resolves to %s -> %s): %d %s", rel+"/link", filepath.Join(escaped, "link"), outside, st, b)
		if d := s.decide("a-pr", "w2", "apply_patch", patch(filepath.Join(outside, "pwn.txt"))); d.Decision == "allow" {
			t.Errorf("and its write to %s (where the link leads) is allowed without a question: %+v", outside, d)
		}
		run := s.execApproved("a-pr", "x2", map[string]any{"argv": []string{"/bin/sh", "-c", "echo x > " + filepath.Join(outside, "c.txt")}, "timeout_ms": 20000})
		if exists(filepath.Join(outside, "c.txt")) {
			t.Errorf("and a command wrote to %s: %+v", outside, run.Decision)
		}
	}
}

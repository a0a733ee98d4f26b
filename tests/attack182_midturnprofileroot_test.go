package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack182MidTurnProfileAddedLinkedRoot: review 182, 8ddc51a6's
// ProfileAddedRoots. The server resolves where the roots a profile adds
// (its workspace_roots table) lead only when the turn starts
// (engine.checkRoots on StartTurn). A turn whose permissions are changed
// mid-turn (POST /v1/turns/{id}/permissions) to such a profile keeps only
// the RootLinks of the snapshot it started with (RootLinksOf): the new
// profile's linked root (~/code -> /data/code) is not in them, and a
// project root the runtime (the agent's credential) named inside the
// profile's "**/secrets" deny escapes it again: review 181's flaw, through
// the permissions change.
//
// Controls: the same profile selected at the start denies the read; the
// same change on a turn without the project root denies it; an ordinary
// file is read.
func TestAttack182MidTurnProfileAddedLinkedRoot(t *testing.T) {
	t.Parallel()
	root := workspace(t)
	link := filepath.Join(t.TempDir(), "codelink")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	profiles := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.plain]
extends = ":workspace"
[permissions.linked]
extends = ":workspace"
[permissions.linked.workspace_roots]
"`+link+`" = true
[permissions.linked.filesystem.":workspace_roots"]
"**/secrets" = "deny"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", profiles)
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	other := workspace(t)
	prod := filepath.Join(root, "app", "secrets", "prod")
	secret := filepath.Join(prod, "db.key")
	makeFiles(t, "s3cret\n", secret)
	start := func(id, profile string, projectRoots ...string) {
		body := map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id,
			"permission_profile": map[string]any{"profile": profile}, "workspace_root": other, "cwd": other}
		if projectRoots != nil {
			body["project_roots"] = projectRoots
		}
		runtime.JSON("POST", "/v1/turns", body, http.StatusCreated, nil)
	}
	change := func(id, profile string) {
		if st, b := s.Request("POST", "/v1/turns/"+id+"/permissions", map[string]any{"permission_profile": map[string]any{"profile": profile}}); st != http.StatusOK {
			t.Fatalf("the person's change of %s to %s: %d %s", id, profile, st, b)
		}
	}
	read := func(turnID, call, p string) decisionAnswer {
		return runtime.decide(turnID, call, "read_file", map[string]any{"path": p})
	}
	start("atstart", "linked", prod)
	start("plainmid", "plain")
	start("mid", "plain", prod)
	change("plainmid", "linked")
	change("mid", "linked")
	if d := read("atstart", "r0", secret); d.Decision != "deny" {
		t.Fatalf("control: the profile selected at the start: %+v", d)
	}
	if d := read("plainmid", "ok", filepath.Join(root, "a.txt")); d.Decision != "allow" {
		t.Fatalf("control: an ordinary file of the profile's root after the change: %+v", d)
	}
	if d := read("plainmid", "r0", secret); d.Decision != "deny" {
		t.Fatalf("control: the change without the project root: %+v", d)
	}
	if d := read("mid", "r0", secret); d.Decision != "deny" {
		t.Errorf("a turn changed mid-turn to the profile adding %s -> %s, whose project_roots name %s, reads %s: %s %s (decided_by %s)",
			link, root, prod, secret, d.Decision, d.Reason, d.DecidedBy)
	}
	// The kernel's sandbox too: an approved "cat" of the secret.
	cat := func(turnID string) (string, string) {
		body := map[string]any{"tool_call_id": "cat", "argv": []string{"cat", secret}, "timeout_ms": 20000}
		_, d := runtime.exec(turnID, "", body)
		if d.Decision == "ask" && d.Request != nil {
			s.respond(d.Request.RequestID, "allow_once")
			_, d = runtime.exec(turnID, "", body)
		}
		if d.Result == nil {
			return d.Decision, ""
		}
		return d.Decision, d.Result.Stdout + d.Result.Stderr
	}
	if dec, out := cat("atstart"); strings.Contains(out, "s3cret") {
		t.Fatalf("control: the sandbox of the turn started with the profile reads the secret: %s %q", dec, out)
	}
	if dec, out := cat("mid"); strings.Contains(out, "s3cret") {
		t.Errorf("the sandbox of the turn changed mid-turn reads the secret: %s %q", dec, out)
	}
}

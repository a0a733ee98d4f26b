package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack181ProfileAddedLinkedRootGlob: review 181, capRoots' linked
// roots (984d42a0). The roots named above a root are looked for where
// each is written and where its link leads, through RootLinks; RootLinks
// holds the roots the turn's starter names (RootsNamed: workspace_root,
// project_roots, app_read_roots, cwd), not those a profile adds (its
// workspace_roots table). A profile that adds the workspace root a person
// opened through a link (~/code -> /data/code) and denies "**/secrets"
// under :workspace_roots loses the deny when the runtime (the agent's
// credential) names a project root inside the denied directory where it
// lies: review 180's flaw, through the profile's own root.
//
// Controls: the same turn without the project root is refused the read;
// the same project root with the profile's root written without a link is
// refused it; an ordinary file is read.
func TestAttack181ProfileAddedLinkedRootGlob(t *testing.T) {
	t.Parallel()
	root := workspace(t)
	link := filepath.Join(t.TempDir(), "codelink")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	profiles := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.linked]
extends = ":workspace"
[permissions.linked.workspace_roots]
"`+link+`" = true
[permissions.linked.filesystem.":workspace_roots"]
"**/secrets" = "deny"
[permissions.real]
extends = ":workspace"
[permissions.real.workspace_roots]
"`+root+`" = true
[permissions.real.filesystem.":workspace_roots"]
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
	read := func(turnID, call, p string) decisionAnswer {
		return runtime.decide(turnID, call, "read_file", map[string]any{"path": p})
	}
	start("plain", "linked")
	start("real", "real", prod)
	start("linked", "linked", prod)
	if d := read("plain", "ok", filepath.Join(root, "a.txt")); d.Decision != "allow" {
		t.Fatalf("control: an ordinary file of the profile's root: %+v", d)
	}
	if d := read("plain", "r0", secret); d.Decision != "deny" {
		t.Fatalf("control: the profile's linked root without the project root reads the secret: %+v", d)
	}
	if d := read("real", "r0", secret); d.Decision != "deny" {
		t.Fatalf("control: the glob holds against the project root under the profile's root written without a link: %+v", d)
	}
	if d := read("linked", "r0", secret); d.Decision != "deny" {
		t.Errorf("a turn whose profile adds the workspace root %s -> %s and whose project_roots name %s reads %s: %s %s (decided_by %s)",
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
	if dec, out := cat("real"); strings.Contains(out, "s3cret") {
		t.Fatalf("control: the sandbox of the turn with the root written without a link reads the secret: %s %q", dec, out)
	}
	if dec, out := cat("linked"); strings.Contains(out, "s3cret") {
		t.Errorf("the sandbox of the linked turn reads the secret: %s %q", dec, out)
	}
}

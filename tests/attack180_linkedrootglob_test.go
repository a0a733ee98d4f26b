package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack180LinkedWorkspaceRootGlob: review 180, capRoots' glob anchors
// (review 179's fix). A root-relative glob deny ("**/secrets") is tried at
// each root named above a project root, by the named root's path as
// written. A workspace root named through a symlink (ws -> real) holds the
// project root only where the link leads: real/app/secrets/prod is not
// textually under ws, so the glob is tried nowhere for it, and the project
// root's write rule outranks the glob's deny again (decisions and the
// kernel's sandbox alike). The runtime that names the workspace root by the
// path the person opened (a link: ~/code -> /data/code) and project roots
// resolved loses the profile's deny there. Under allowed_roots the anchors
// start at the allowed root, and it holds (tried: the link, its parent, the
// real root as the allowed root).
//
// Controls: the same turn without the project root is refused the read;
// the same project root under a workspace root named without a link is
// refused it (by the decision and by the kernel); an ordinary file is
// read. The sandbox of the linked turn lets an approved "cat" read it too.
func TestAttack180LinkedWorkspaceRootGlob(t *testing.T) {
	linkedWorkspaceRootDeny(t, `"**/secrets" = "deny"`)
}

// TestAttack180LinkedWorkspaceRootLiteral: the same with the literal key
// ("app/secrets" = "deny"): the roots named above a root are compared as
// written (anchors, outermost), never where a linked one leads.
func TestAttack180LinkedWorkspaceRootLiteral(t *testing.T) {
	linkedWorkspaceRootDeny(t, `"app/secrets" = "deny"`)
}

func linkedWorkspaceRootDeny(t *testing.T, rule string) {
	t.Parallel()
	profiles := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.glob]
extends = ":workspace"
[permissions.glob.filesystem.":workspace_roots"]
`+rule+`
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", profiles)
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	root := workspace(t)
	link := filepath.Join(t.TempDir(), "wslink")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	prod := filepath.Join(root, "app", "secrets", "prod")
	secret := filepath.Join(prod, "db.key")
	makeFiles(t, "s3cret\n", secret)
	start := func(id, wsRoot string, projectRoots ...string) {
		body := map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id,
			"permission_profile": map[string]any{"profile": "glob"}, "workspace_root": wsRoot, "cwd": wsRoot}
		if projectRoots != nil {
			body["project_roots"] = projectRoots
		}
		runtime.JSON("POST", "/v1/turns", body, http.StatusCreated, nil)
	}
	read := func(turnID, call, p string) decisionAnswer {
		return runtime.decide(turnID, call, "read_file", map[string]any{"path": p})
	}
	start("plainlink", link)
	start("real", root, prod)
	start("linked", link, prod)
	if d := read("plainlink", "ok", filepath.Join(root, "a.txt")); d.Decision != "allow" {
		t.Fatalf("control: an ordinary workspace file: %+v", d)
	}
	if d := read("plainlink", "r0", secret); d.Decision != "deny" {
		t.Fatalf("control: the linked workspace root without the project root reads the secret: %+v", d)
	}
	if d := read("real", "r0", secret); d.Decision != "deny" {
		t.Fatalf("control: the glob holds against the project root under a workspace root named without a link: %+v", d)
	}
	if d := read("linked", "r0", secret); d.Decision != "deny" {
		t.Errorf("a turn whose workspace root is named through a link (%s -> %s) and whose project_roots name %s (inside %s) reads %s: %s %s (decided_by %s)",
			link, root, prod, rule, secret, d.Decision, d.Reason, d.DecidedBy)
	}
	// The kernel's sandbox too: an approved "cat" of the secret is refused
	// by Landlock in the turn named without a link, and reads it in the
	// linked one.
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
		t.Fatalf("control: the sandbox of the turn named without a link reads the secret: %s %q", dec, out)
	}
	if dec, out := cat("linked"); strings.Contains(out, "s3cret") {
		t.Errorf("the sandbox of the linked turn reads the secret: %s %q", dec, out)
	}
	p := map[string]any{"patch": "*** Begin Patch\n*** Update File: " + secret + "\n@@\n-s3cret\n+attacker\n*** End Patch\n"}
	if d := runtime.decide("linked", "w0", "apply_patch", p); d.Decision != "deny" {
		t.Errorf("the same turn may patch %s: %s %s", secret, d.Decision, d.Reason)
	}
}

package tests

import (
	"net/http"
	"path/filepath"
	"testing"
)

// TestAttack49RootReopensAbsoluteReadOnly: README, "Permission profiles"
// (after ee29aea): a rule a root produces "never gives more where it lies
// than the profile's other rules decide there ... inside a read-only
// carve-out of a writable tree (a read rule more specific than a write
// around it) it is read ... A root where no other rule, or only a read
// with no write around it (:minimal, :root), matches keeps what its rules
// give." The exception meant for the system's broad reads also covers a
// profile's explicit read of one repository inside allowed_roots: the
// operator writes the workspace roots and keeps the infrastructure
// repository read-only ("<code>/infra" = "read": its Terraform applies to
// production). Rooted at <code> (as the operator meant) the workspace
// write surrounds it and infra is read. The agent, holding the runtime's
// credential, starts a turn whose workspace_root is <code>/infra itself
// (inside allowed_roots): no write of another root covers it, so
// capRoots leaves ":workspace_roots" = write there, which ties with the
// read and write wins the tie; a patch of infra's Terraform is allowed
// without a question. Same with <code>/app as the workspace and infra as
// a project root.
//
// Controls: the turn rooted at <code> is refused the patch; the turn
// rooted at <code>/app may patch its own files.
func TestAttack49RootReopensAbsoluteReadOnly(t *testing.T) {
	t.Parallel()
	code := workspace(t)
	infra := filepath.Join(code, "infra")
	tf := filepath.Join(infra, "main.tf")
	app := filepath.Join(code, "app", "main.go")
	makeFiles(t, "old\n", tf, app)
	runtime := devProfileRuntime(t, `
[permissions.dev]
extends = ":workspace"
[permissions.dev.filesystem]
"`+infra+`" = "read"
[permissions.dev.filesystem.":workspace_roots"]
"." = "write"
`, code)
	start := func(id, wsRoot string, projectRoots ...string) {
		body := map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id,
			"permission_profile": map[string]any{"profile": "dev"}, "workspace_root": wsRoot, "cwd": wsRoot}
		if projectRoots != nil {
			body["project_roots"] = projectRoots
		}
		if st, raw := runtime.Request("POST", "/v1/turns", body); st != http.StatusCreated {
			t.Fatalf("start %s: %d %s", id, st, raw)
		}
	}
	patch := func(file string) map[string]any {
		return map[string]any{"patch": "*** Begin Patch\n*** Update File: " + file + "\n@@\n-old\n+new\n*** End Patch\n"}
	}

	// Controls.
	start("code", code)
	if d := runtime.decide("code", "c0", "apply_patch", patch(tf)); d.Decision != "deny" {
		t.Fatalf("control: the turn rooted at the code directory patches %s: %+v", tf, d)
	}
	start("app", filepath.Join(code, "app"))
	if d := runtime.decide("app", "c1", "apply_patch", patch(app)); d.Decision != "allow" {
		t.Fatalf("control: the app's turn patches its own file: %+v", d)
	}

	// The attack: the read-only repository named as a root.
	start("infra", infra)
	if d := runtime.decide("infra", "a0", "apply_patch", patch(tf)); d.Decision != "deny" {
		t.Errorf("a turn whose workspace_root is the read-only %s patches %s: %s %s (decided_by %s)", infra, tf, d.Decision, d.Reason, d.DecidedBy)
	}
	start("appinfra", filepath.Join(code, "app"), infra)
	if d := runtime.decide("appinfra", "a1", "apply_patch", patch(tf)); d.Decision != "deny" {
		t.Errorf("a turn whose project_roots name the read-only %s patches %s: %s %s (decided_by %s)", infra, tf, d.Decision, d.Reason, d.DecidedBy)
	}
}

package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack55ProtectedSecondLinkReplaced: a protected project-settings
// directory (.vscode, read-only to every command: a task there with
// "runOn": "folderOpen" runs on the host when the person opens the folder)
// that is a symlink whose target passes a SECOND symlink (ws/.vscode ->
// shared/vscode, ws/shared -> a sibling checkout outside the workspace, a
// monorepo's shared editor settings) is made read-only where it leads when
// the command starts, and only .vscode itself is pinned. ws/shared is an
// ordinary entry of the writable workspace: one command removes it, makes
// its own shared/vscode/tasks.json, and from then on the host's .vscode is
// the agent's, with a task that runs when the person opens the project.
//
// Why: sandbox/rules.go protectedLinks pins, for a PathProtected entry, only
// the entry's own name when it is a symlink (add(c.From)); the links met
// while resolving that link's target text (ws/shared) are not components
// of From and are never pinned, and mountPlan's chain pins only directories
// between a mount (vendor/shared-checkout/vscode) and the writable root. The carve-out is
// canonicalised at spawn (canon.go addRule), so the read-only bind covers
// the old target, and nothing after the command (plant checks) looks at
// where a protected name leads now.
//
// Controls: the command cannot write through .vscode while the link stands
// (the shared settings stay), cannot remove .vscode (pinned), and writes an
// ordinary workspace file.
//
// Severity: high (the agent writes a protected path that runs code on the
// host later).
func TestAttack55ProtectedSecondLinkReplaced(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root for the kernel sandbox")
	}
	root := workspace(t)
	sharedCheckout := filepath.Join(root, "vendor", "shared-checkout")
	makeFiles(t, "{}\n", filepath.Join(sharedCheckout, "vscode", "settings.json"))
	makeFiles(t, "package main\n", filepath.Join(root, "main.go"))
	if err := os.Symlink("vendor/shared-checkout", filepath.Join(root, "shared")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("shared/vscode", filepath.Join(root, ".vscode")); err != nil {
		t.Fatal(err)
	}
	runtime := devProfileRuntime(t, `
[permissions.dev]
extends = ":workspace"
[permissions.dev.filesystem.":workspace_roots"]
"." = "write"
[permissions.dev.approvals]
policy = "full_access"
`, root)
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "t", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]any{"profile": "dev"}, "workspace_root": root, "cwd": root}, 201, nil)
	exec := func(id, script string) string {
		st, raw := runtime.Request("POST", "/v1/turns/t/exec", map[string]any{"tool_call_id": id, "cwd": root, "timeout_ms": 20000,
			"argv": []string{"sh", "-c", script}})
		t.Logf("%s: %d %s", id, st, raw)
		return string(raw)
	}
	tasks := filepath.Join(root, ".vscode", "tasks.json")
	const evil = `{"version":"2.0.0","tasks":[{"label":"x","type":"shell","command":"touch /tmp/pwned","runOptions":{"runOn":"folderOpen"}}]}`

	// Controls.
	if out := exec("c0", "echo '"+evil+"' > .vscode/tasks.json; rm .vscode; echo ok > main.go"); !strings.Contains(out, "Read-only") {
		t.Errorf("control: writing through .vscode is not refused read-only")
	}
	if _, err := os.Stat(tasks); err == nil {
		t.Fatalf("control: a command wrote .vscode/tasks.json through the link")
	}
	if b, _ := os.ReadFile(filepath.Join(root, "main.go")); string(b) != "ok\n" {
		t.Fatalf("control: a command does not write the workspace: %q", b)
	}
	if _, err := os.Lstat(filepath.Join(root, ".vscode")); err != nil {
		t.Fatalf("control: .vscode (pinned) was removed: %v", err)
	}

	// The attack: one command replaces the second link.
	exec("x0", "rm shared && mkdir -p shared/vscode && echo '"+evil+"' > shared/vscode/tasks.json")
	if b, err := os.ReadFile(tasks); err == nil && strings.Contains(string(b), "folderOpen") {
		t.Errorf("the host's protected %s now holds the agent's folderOpen task: %s", tasks, b)
	}
}

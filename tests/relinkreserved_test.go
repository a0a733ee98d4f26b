package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRelinkedRootHoldsInTheKernel: a project root's link re-pointed after
// the start into a directory the profile denies (TestAttack52RelinkIntoAnchorDeny)
// is no root in the server's view (FilesystemEntry.LedTo), and the
// helper's view must drop it too: the helper read the snapshot's entries
// without LedTo and Within, granted the root where its link led, and only
// refused to run because the protected names it had to hold there (.git,
// .agents, .codex, .claude) were missing. Here they exist (the denied
// directory is a repository of its own), and a command read and wrote the
// secret. Control: before the re-point the same command writes the project.
func TestRelinkedRootHoldsInTheKernel(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root for the kernel sandbox")
	}
	root := workspace(t)
	const orig = "s3cret\n"
	prod := filepath.Join(root, "secrets", "prod")
	secret, mine := filepath.Join(prod, "db.key"), filepath.Join(root, "proj", "db.key")
	app := filepath.Join(root, "app")
	makeFiles(t, orig, secret, mine, filepath.Join(app, "main.go"))
	for _, n := range []string{".git", ".agents", ".codex", ".claude"} {
		if err := os.MkdirAll(filepath.Join(prod, n), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	lnk := filepath.Join(root, "lnk")
	if err := os.Symlink("proj", lnk); err != nil {
		t.Fatal(err)
	}
	runtime := devProfileRuntime(t, `
[permissions.dev]
extends = ":workspace"
[permissions.dev.filesystem.":workspace_roots"]
"." = "write"
"secrets" = "deny"
[permissions.dev.approvals]
policy = "full_access"
`, root)
	body := map[string]any{"turn_id": "t", "workspace_id": "ws", "thread_id": "th", "permission_profile": map[string]any{"profile": "dev"},
		"workspace_root": app, "cwd": app, "project_roots": []string{lnk}}
	if st, raw := runtime.Request("POST", "/v1/turns", body); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, raw)
	}
	exec := func(id, file string) string {
		st, raw := runtime.Request("POST", "/v1/turns/t/exec", map[string]any{"tool_call_id": id, "cwd": app, "timeout_ms": 20000,
			"argv": []string{"sh", "-c", "cat " + file + "; echo attacker > " + file}})
		t.Logf("%s: %d %s", id, st, raw)
		return string(raw)
	}
	read := func(f string) string { b, _ := os.ReadFile(f); return string(b) }
	if out := exec("c0", mine); !strings.Contains(out, "s3cret") || read(mine) != "attacker\n" {
		t.Fatalf("control: a command of the turn does not read and write its project root: %q", read(mine))
	}
	if err := os.Remove(lnk); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("secrets/prod", lnk); err != nil {
		t.Fatal(err)
	}
	for i, f := range []string{secret, filepath.Join(lnk, "db.key")} {
		if out := exec("x"+string(rune('0'+i)), f); strings.Contains(out, "s3cret") {
			t.Errorf("after the link moved into the profile's deny, a command reads the secret by %s", f)
		}
	}
	if got := read(secret); got != orig {
		t.Errorf("after the link moved into the profile's deny, a command wrote the secret: %q", got)
	}
}

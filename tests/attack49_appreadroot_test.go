package tests

import (
	"net/http"
	"path/filepath"
	"testing"
)

// TestAttack49AppReadRootReadsRootsDeny: README, "Permission profiles"
// (after ee29aea): "the roots' own subpath keys hold as if expanded at
// every ancestor of a root ... An operator's required deny relative to the
// roots is expanded at those ancestors too." capRoots expands only the
// keys of the root's own token at an app read root's ancestors
// (expandAt), and ancestorDenies expands a ":workspace_roots/..." required
// deny only at the workspace roots' ancestors. The built-in :workspace
// gives ":app_read_roots" = read, and the runtime names app_read_roots
// too. The operator denies every workspace's vault (required_deny =
// [":workspace_roots/vault"]) and the profile its secrets
// (":workspace_roots/secrets" = deny); allowed_roots is the repository.
// The forty-eighth fix denies a turn whose workspace_root is <repo>/vault
// or <repo>/secrets/prod; the agent, holding the runtime's credential,
// instead starts a turn rooted at <repo>/app whose app_read_roots name
// <repo>/vault and <repo>/secrets/prod: nothing caps the app root's read,
// and read_file of the vault's key and the secret is allowed.
//
// Controls: the turn rooted at the repository, and the turn rooted at
// <repo>/vault, are denied the files; the app turn reads its own source.
func TestAttack49AppReadRootReadsRootsDeny(t *testing.T) {
	t.Parallel()
	root := workspace(t)
	vault := filepath.Join(root, "vault", "prod.key")
	secret := filepath.Join(root, "secrets", "prod", "db.key")
	src := filepath.Join(root, "app", "main.go")
	makeFiles(t, "s3cret\n", vault, secret, src)
	runtime := devProfileRuntime(t, `
[permissions.dev]
extends = ":workspace"
[permissions.dev.filesystem.":workspace_roots"]
"." = "write"
"secrets" = "deny"
`, root, `required_deny = [":workspace_roots/vault"]`)
	start := func(id, wsRoot string, appRoots ...string) {
		body := map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id,
			"permission_profile": map[string]any{"profile": "dev"}, "workspace_root": wsRoot, "cwd": wsRoot}
		if appRoots != nil {
			body["app_read_roots"] = appRoots
		}
		if st, raw := runtime.Request("POST", "/v1/turns", body); st != http.StatusCreated {
			t.Fatalf("start %s: %d %s", id, st, raw)
		}
	}
	read := func(turn, call, p string) decisionAnswer {
		return runtime.decide(turn, call, "read_file", map[string]any{"path": p})
	}

	// Controls.
	start("repo", root)
	start("v", filepath.Join(root, "vault"))
	for i, c := range []struct{ turn, file string }{{"repo", vault}, {"repo", secret}, {"v", vault}} {
		if d := read(c.turn, "c"+string(rune('0'+i)), c.file); d.Decision != "deny" {
			t.Fatalf("control: turn %s reads %s: %+v", c.turn, c.file, d)
		}
	}
	start("app", filepath.Join(root, "app"), filepath.Join(root, "vault"), filepath.Join(root, "secrets", "prod"))
	if d := read("app", "own", src); d.Decision != "allow" {
		t.Fatalf("control: the app turn reads its own source: %+v", d)
	}

	// The attack: the denied directories named as app read roots.
	for i, f := range []string{vault, secret} {
		if d := read("app", "a"+string(rune('0'+i)), f); d.Decision != "deny" {
			t.Errorf("a turn whose app_read_roots name its directory reads %s: %s %s (decided_by %s)", f, d.Decision, d.Reason, d.DecidedBy)
		}
	}
}

package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack123_HookLinkedRootNestedWorkspace (hundred-and-twenty-third
// review, medium): the hundred-and-nineteenth review's fix gives a hook's
// turn every project of another workspace nested inside its project as a
// sensitive deny entry (Inputs.ForeignProjects, ClaudeCodeConfig.
// ForeignWithin). ForeignWithin compares the configured roots as written.
// The operator's configuration names app's project through a symlink
// (/home/me/app, a link to /data/app: a home directory's checkout on another
// disk), and billing's project where it really is (/data/app/billing).
// REST resolves the roots (checkProjectRoots: "as written or where their
// symlinks lead") and refuses app a turn rooted at app's link, which holds
// billing's project; the hook's turn, rooted at app's link, gets no deny for
// billing's project, and its snapshot takes the root where the link leads.
//
// The attack: app's runtime credential sends the PreToolUse of a Write of
// billing's src/main.go (through app's link, and by its real path) from a
// session in app: allowed without asking anyone, in app's turn.
//
// Control (TestAttack123_HookLinkedRootNestedWorkspaceControl): the same
// layout with app's root written as its real path: the Write is denied
// (the 119 fix), and app's own file is allowed in the linked layout.
func TestAttack123_HookLinkedRootNestedWorkspace(t *testing.T) {
	t.Parallel()
	s, appLink, realApp, billing := attack123LinkedServer(t, true)
	agent := roAs(s, roCreate(t, s, "a123l-app", "runtime", "app"))

	// REST refuses app's turn over its link: it leads to a root holding
	// billing's project.
	st, raw := agent.Do("POST", "/v1/turns", map[string]any{"turn_id": "a123l-rest", "workspace_id": "app", "workspace_root": appLink,
		"permission_profile": map[string]any{"mode": "auto_accept_edits"}})
	if st != http.StatusBadRequest {
		t.Fatalf("REST turn of app rooted at %s (leads to %s, which holds billing's project): %d %s, want 400", appLink, realApp, st, raw)
	}
	for i, target := range []string{filepath.Join(appLink, "billing", "src", "main.go"), filepath.Join(billing, "src", "main.go")} {
		session := "a123l-session-" + string(rune('a'+i))
		pre := ccEdit(t, ccPayload(t, "pre_write", session, appLink), map[string]any{
			"tool_input": map[string]any{"file_path": target, "content": "package main\n\nfunc main() { exfiltrate() }\n"},
		})
		out := agent.hookHTTP(pre)
		t.Logf("Write of %s from a session in %s: %s", target, appLink, out)
		if strings.Contains(out, `"permissionDecision":"allow"`) {
			t.Errorf("app's runtime credential, from a session in app's project (configured as the link %s), was allowed without asking anyone to write %s, in billing's project %s (workspace billing), under app's label",
				appLink, target, billing)
		}
	}
}

// TestAttack123_HookLinkedRootNestedWorkspaceControl: app's root written
// as its real path: the same Write is denied; in the linked layout app's
// own file is written without a question.
func TestAttack123_HookLinkedRootNestedWorkspaceControl(t *testing.T) {
	t.Parallel()
	s, _, realApp, billing := attack123LinkedServer(t, false)
	agent := roAs(s, roCreate(t, s, "a123c-app", "runtime", "app"))
	target := filepath.Join(billing, "src", "main.go")
	pre := ccEdit(t, ccPayload(t, "pre_write", "a123c-s1", realApp), map[string]any{
		"tool_input": map[string]any{"file_path": target, "content": "x\n"}})
	if out := agent.hookHTTP(pre); !strings.Contains(out, `"permissionDecision":"deny"`) {
		t.Fatalf("Write of billing's %s from app's session (app configured by its real path): %s, want deny", target, out)
	}

	s2, appLink, _, _ := attack123LinkedServer(t, true)
	agent2 := roAs(s2, roCreate(t, s2, "a123c-app2", "runtime", "app"))
	own := ccEdit(t, ccPayload(t, "pre_write", "a123c-s2", appLink), map[string]any{
		"tool_input": map[string]any{"file_path": filepath.Join(appLink, "src", "main.go"), "content": "x\n"}})
	if out := agent2.hookHTTP(own); !strings.Contains(out, `"permissionDecision":"allow"`) {
		t.Fatalf("app's own file from app's session (linked layout): %s, want allow", out)
	}
}

// attack123LinkedServer: /data/app holds billing's project
// (/data/app/billing, workspace billing, supervised); app's project
// (workspace app, auto_accept_edits) is configured as /home/me/app, a
// symlink to /data/app, when linked, else as /data/app.
func attack123LinkedServer(t *testing.T, linked bool) (s *Server, appLink, realApp, billing string) {
	t.Helper()
	base := t.TempDir()
	base, _ = filepath.EvalSymlinks(base)
	realApp = filepath.Join(base, "data", "app")
	billing = filepath.Join(realApp, "billing")
	ccProject(t, realApp)
	ccProject(t, billing)
	appLink = filepath.Join(base, "home", "me", "app")
	if err := os.MkdirAll(filepath.Dir(appLink), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(realApp, appLink); err != nil {
		t.Fatal(err)
	}
	appRoot := realApp
	if linked {
		appRoot = appLink
	}
	cfg, _ := json.Marshal(map[string]any{"projects": []any{
		map[string]any{"root": appRoot, "workspace_id": "app", "mode": "auto_accept_edits"},
		map[string]any{"root": billing, "workspace_id": "billing", "mode": "supervised"},
	}})
	cfgPath := filepath.Join(t.TempDir(), "claude-code.json")
	if err := os.WriteFile(cfgPath, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	return StartServer(t, "", "--claude-code-config", cfgPath), appLink, realApp, billing
}

// TestAttack123_HookLinkedNestedProject (same class, the other side): the
// operator names billing's project through a symlink (/srv/billing, a link
// to /data/app/billing, which lies in app's project /data/app). The
// hook's turn of app gets no deny for it (ForeignWithin compares the
// configured roots as written, and /srv/billing is not inside /data/app),
// so a session in app writes billing's files by their real path, allowed
// without asking anyone, under app's label. A session in billing's project
// (cwd /srv/billing) is billing's, so the same files have two owners.
//
// Control (in the test): the same layout with billing configured by its
// real path denies the Write (the 119 fix).
func TestAttack123_HookLinkedNestedProject(t *testing.T) {
	t.Parallel()
	for _, linked := range []bool{false, true} {
		base := t.TempDir()
		base, _ = filepath.EvalSymlinks(base)
		app := filepath.Join(base, "data", "app")
		billing := filepath.Join(app, "billing")
		ccProject(t, app)
		ccProject(t, billing)
		billingRoot := billing
		if linked {
			billingRoot = filepath.Join(base, "srv", "billing")
			if err := os.MkdirAll(filepath.Dir(billingRoot), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(billing, billingRoot); err != nil {
				t.Fatal(err)
			}
		}
		cfg, _ := json.Marshal(map[string]any{"projects": []any{
			map[string]any{"root": app, "workspace_id": "app", "mode": "auto_accept_edits"},
			map[string]any{"root": billingRoot, "workspace_id": "billing", "mode": "supervised"},
		}})
		cfgPath := filepath.Join(t.TempDir(), "claude-code.json")
		if err := os.WriteFile(cfgPath, cfg, 0o600); err != nil {
			t.Fatal(err)
		}
		s := StartServer(t, "", "--claude-code-config", cfgPath)
		agent := roAs(s, roCreate(t, s, "a123n-app", "runtime", "app"))
		target := filepath.Join(billing, "src", "main.go")
		out := agent.hookHTTP(ccEdit(t, ccPayload(t, "pre_write", "a123n-session", app), map[string]any{
			"tool_input": map[string]any{"file_path": target, "content": "package main\n\nfunc main() { exfiltrate() }\n"}}))
		t.Logf("billing configured as %s: Write of %s from a session in %s: %s", billingRoot, target, app, out)
		if !linked {
			if !strings.Contains(out, `"permissionDecision":"deny"`) {
				t.Fatalf("control: billing configured by its real path: the Write of %s: %s, want deny", target, out)
			}
			continue
		}
		if strings.Contains(out, `"permissionDecision":"allow"`) {
			t.Errorf("billing's project configured as the link %s (leading to %s, inside app's project): app's runtime credential, from a session in app, was allowed without asking anyone to write billing's %s under app's label",
				billingRoot, billing, target)
		}
	}
}

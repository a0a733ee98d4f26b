package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack140_StickyRootBlindsCheckE2E (review 140, end to end): a
// command the server runs for an auto_accept_edits turn makes its own
// workspace root mode 1777 before planting a .claude/settings.json (its
// hooks run on the host when Claude Code works there) and a
// sub/.yarnrc.yml: the check after it takes the root for a shared one
// (/tmp-like) and walks only the top entries the command's uid owns,
// while what the command made is owned by the workspace's owner (the
// idmap): both plants stay. Control (subtest "control"): without the
// chmod, both are set aside.
func TestAttack140_StickyRootBlindsCheckE2E(t *testing.T) {
	t.Parallel()
	plant := "mkdir -p src/.claude sub && echo '{\"hooks\":{}}' > src/.claude/settings.json && echo 'yarnPath: evil.cjs' > sub/.yarnrc.yml && echo planted"
	for i, chmod := range []bool{false, true} {
		name, script := "control", plant
		if chmod {
			name, script = "chmod-root-sticky", "chmod 1777 . && "+plant
		}
		t.Run(name, func(t *testing.T) {
			s := StartServer(t, "")
			root := workspace(t)
			if err := os.MkdirAll(filepath.Join(root, "src"), 0o755); err != nil {
				t.Fatal(err)
			}
			s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "st", "workspace_id": "ws", "thread_id": "th",
				"permission_profile": map[string]any{"mode": "auto_accept_edits"}, "workspace_root": root}, http.StatusCreated, nil)
			body := map[string]any{"tool_call_id": "e" + name, "argv": []string{"sh", "-c", script}, "timeout_ms": 20000}
			status, d := s.exec("st", "", body)
			t.Logf("the command's decision: %d %s/%s", status, d.Decision, d.Reason)
			if status == http.StatusAccepted && d.Decision == "ask" && d.Request != nil {
				s.respond(d.Request.RequestID, "allow_once")
				status, d = s.exec("st", "", body)
			}
			if status != http.StatusOK || !d.Ran || d.Result == nil || !strings.Contains(d.Result.Stdout, "planted") {
				t.Fatalf("premise: the command (%d): %d %+v %+v", i, status, d, d.Result)
			}
			for _, p := range []string{"src/.claude/settings.json", "sub/.yarnrc.yml"} {
				kept := exists(filepath.Join(root, p))
				if !chmod && kept {
					t.Errorf("control: %s the command planted was kept", p)
				}
				if chmod && kept {
					t.Errorf("ESCAPED: %s, planted by a command that first made the workspace root mode 1777, stays where the host's tools read it", p)
				}
			}
		})
	}
}

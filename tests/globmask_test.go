package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServedGlobProfileRunsWithMatchesMasked: a served profile whose only
// kernel gap is a glob deny runs commands (it used to be refused); the
// existing web/.env is unreadable to the command while a sibling file is
// readable (the control), and the turn's snapshot still names files
// created after the spawn as a degradation.
func TestServedGlobProfileRunsWithMatchesMasked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "profiles.toml")
	os.WriteFile(file, []byte("[permissions.globonly]\nextends = \":workspace\"\n[permissions.globonly.filesystem]\n\"**/*.env\" = \"deny\"\n"), 0o644)
	s := StartServer(t, "", "--profiles", file)
	root := profileWorkspace(t)
	os.WriteFile(filepath.Join(root, "web", "app.py"), []byte("print(1)\n"), 0o644)
	if status, body := startProfileTurn(s, "gm", root, map[string]any{"profile": "globonly"}); status != http.StatusCreated {
		t.Fatalf("start: %d %s", status, body)
	}
	var g struct {
		SecuritySnapshot struct {
			Enforcement struct {
				Status       string
				Degradations []struct {
					Reason   string
					Residual bool
				}
			}
		} `json:"security_snapshot"`
	}
	s.JSON("GET", "/v1/turns/gm", nil, http.StatusOK, &g)
	e := g.SecuritySnapshot.Enforcement
	if e.Status != "partially_active" || len(e.Degradations) != 1 || !e.Degradations[0].Residual || !strings.Contains(e.Degradations[0].Reason, "after the spawn") {
		t.Fatalf("enforcement: %+v", e)
	}
	d := s.execApproved("gm", "env", map[string]any{"tool_call_id": "env", "argv": []string{"cat", "web/.env"}})
	if !d.Ran || d.Result == nil || d.Result.ExitCode == 0 {
		t.Fatalf("cat web/.env: %+v %+v", d, d.Result)
	}
	d = s.execApproved("gm", "app", map[string]any{"tool_call_id": "app", "argv": []string{"cat", "web/app.py"}})
	if !d.Ran || d.Result == nil || d.Result.ExitCode != 0 {
		t.Fatalf("control cat web/app.py: %+v %+v", d, d.Result)
	}
}

package tests

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestAttack25PromptSecretsShownInClear: a turn's prompt (turn/start's
// input, a Claude Code UserPromptSubmit, a Task's prompt) and what else the
// client sent (turn/start's cli_runtime_options, model settings…) are
// recorded and shown as sent, never redacted, while the same token in a
// command is. A person who pastes a GitHub token or a database password in
// a prompt has it shown in clear to every runtime credential of the
// workspace (the agents of other sessions: GET /v1/turns/{id}/timeline,
// JSON-RPC turn/items), to its approvers (the console's timeline, the
// turn/started notification's input on GET /v1/events), and kept in the
// event log (GET /v1/turns/{id}/events, every export).
//
// Control: the same secrets in a command of the turn are redacted in its
// timeline row; the prompt row itself stays (with the secrets hidden).
func TestAttack25PromptSecretsShownInClear(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	owner := roAs(s, roCreate(t, s, "a25p-owner", "runtime", "ws1"))
	agent := roAs(s, roCreate(t, s, "a25p-agent", "runtime", "ws1"))
	approver := roAs(s, roCreate(t, s, "a25p-approver", "approver", "ws1"))
	root := workspace(t)
	const token, password, apiKey = "ghp_Zq8Lk2Wm4Rt6Yp1Xn3Vb5Jc7Hd9Gf0Ks2Aa7", "summer2024", "sk-proj-Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8L9z0"
	secrets := []string{token, password, apiKey}

	stream := approver.subscribe("", "")
	if _, rpcErr := roRPC(t, owner, "turn/start", map[string]any{
		"turn_id": "a25-p", "workspace_id": "ws1", "thread_id": "th", "workspace_root": root,
		"permission_profile":  map[string]any{"mode": "supervised"},
		"input":               []map[string]any{{"type": "text", "text": "deploy with GITHUB_TOKEN=" + token + " and PGPASSWORD=" + password, "textElements": []any{}}},
		"cli_runtime_options": map[string]any{"env": map[string]string{"OPENAI_API_KEY": apiKey}},
	}); rpcErr != nil {
		t.Fatalf("turn/start: %v", rpcErr)
	}
	d := owner.decide("a25-p", "c1", "exec_command", map[string]any{"cmd": "GITHUB_TOKEN=" + token + " PGPASSWORD=" + password + " ./deploy.sh"})
	if d.Request == nil {
		t.Fatalf("decision %+v, want a request", d)
	}

	var leaks []string
	check := func(where string, b []byte) {
		for _, sec := range secrets {
			if strings.Contains(string(b), sec) {
				leaks = append(leaks, where+" shows "+sec[:6]+"… in clear")
			}
		}
	}
	// The agent of another session of the workspace.
	status, tl := agent.Request("GET", "/v1/turns/a25-p/timeline", nil)
	if status != http.StatusOK {
		t.Fatalf("timeline: %d %s", status, tl)
	}
	check("GET /v1/turns/a25-p/timeline (another runtime credential)", tl)
	items, rpcErr := roRPC(t, agent, "turn/items", map[string]any{"turn_id": "a25-p"})
	if rpcErr != nil {
		t.Fatalf("turn/items: %v", rpcErr)
	}
	check("JSON-RPC turn/items (another runtime credential)", items)
	// The approver's event stream.
	ev := stream.NextOf("turn/started")
	raw, _ := json.Marshal(ev.Params)
	check("the turn/started notification on GET /v1/events (approver)", raw)
	// The event log.
	_, evs := s.events("a25-p")
	check("GET /v1/turns/a25-p/events (the stored events)", evs)

	// Control: the command's secrets are redacted in its timeline row, and
	// the prompt row is there.
	var rows struct {
		Rows []struct {
			Kind  string `json:"kind"`
			Title string `json:"title"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(tl, &rows); err != nil {
		t.Fatal(err)
	}
	var prompt, asked bool
	for _, r := range rows.Rows {
		switch r.Kind {
		case "prompt":
			prompt = true
		case "approval_requested":
			asked = true
			if strings.Contains(r.Title, token) || strings.Contains(r.Title, password) || !strings.Contains(r.Title, "[redacted]") {
				t.Fatalf("the command's row is not redacted: %q", r.Title)
			}
		}
	}
	if !prompt || !asked {
		t.Fatalf("timeline rows %+v, want the prompt and the approval request", rows.Rows)
	}
	for _, l := range leaks {
		t.Errorf("a secret the turn's prompt or client settings carried is not redacted: %s", l)
	}
}

package engine_test

import (
	"encoding/json"
	"strings"
	"testing"

	"turnstile/domain"
	"turnstile/domain/turn"
)

// TestAuditRowsNeverHoldSecrets: paths under ~/.ssh, URL userinfo and
// query values, and environment values never appear in clear in audit rows,
// timeline rows or the stored events. A query's parameter names are shown
// (a fetch's URL detail, as a command's URL: the ninety-first review), their
// values' tokens hidden.
func TestAuditRowsNeverHoldSecrets(t *testing.T) {
	f := newFixture(t)
	start(t, f.eng, "t1", domain.ModeSupervised)
	calls := []domain.Invocation{
		{ToolName: "read_file", Arguments: json.RawMessage(`{"path":"/root/.ssh/id_ed25519"}`)},
		{ToolName: "web_fetch", Arguments: json.RawMessage(`{"url":"https://bob:hunter2@api.example.com/v1/items?api_key=sk-live-123#frag"}`)},
		{ToolName: "exec_command", Arguments: json.RawMessage(`{"cmd":"cat /home/bob/.aws/credentials","env":{"GITHUB_TOKEN":"ghp_supersecret"}}`)},
		{ToolName: "apply_patch", Arguments: json.RawMessage(`{"patch":"*** Update File: /w/.env\n+DB_PASSWORD=swordfish\n"}`)},
	}
	var last turn.Event
	for i, inv := range calls {
		res, err := f.eng.Execute(ctx, "t1", &turn.EvaluateTool{ToolCallID: string(rune('a' + i)), Invocation: inv})
		if err != nil {
			t.Fatal(err)
		}
		last = res.Events[len(res.Events)-1]
	}
	f.sync(last.Position)
	rows, _ := json.Marshal(f.proj.Audit("t1", 0, 0))
	tl, _ := json.Marshal(f.proj.Timeline("t1"))
	recs, err := f.store.ReadStream(ctx, turn.StreamName("t1"), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var stored strings.Builder
	for _, r := range recs {
		stored.Write(r.Data)
	}
	approvals, _ := json.Marshal(f.proj.Approvals(projectionsAll()))
	for name, text := range map[string]string{"audit": string(rows), "timeline": string(tl), "events": stored.String(), "approvals": string(approvals)} {
		for _, secret := range []string{"id_ed25519", "hunter2", "bob:", "sk-live-123", "api_key=sk", "frag", ".aws/credentials", "ghp_supersecret", "swordfish"} {
			if strings.Contains(text, secret) {
				t.Errorf("%s holds %q in clear", name, secret)
			}
		}
	}
	if !strings.Contains(string(rows), `"request_key":{"action_kind":"network"`) {
		t.Errorf("audit rows lack the request key: %s", rows)
	}
}

package api_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"turnstile/adapters/boltstore"
	"turnstile/api"
	"turnstile/domain/engine"
	"turnstile/projections"
)

// TestCommandsDoNotReadTheReadModel: with read models that never catch up
// (a projector that follows nothing), commands still find what they need
// through the engine: a child's profile change loads its parent, and a
// response without turn_id finds its request's turn. Control: the same
// server answers reads from the read model, which knows nothing (404).
func TestCommandsDoNotReadTheReadModel(t *testing.T) {
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "events.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	eng := engine.New(st, engine.Config{})
	srv := api.New(api.Config{Engine: eng, Projector: projections.New(), Store: st, Token: "lagging-read-model-token-0123456",
		ProjectionWait: time.Millisecond})
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	s := &inProcess{t: t, url: hs.URL, token: "lagging-read-model-token-0123456"}

	root := t.TempDir()
	for _, b := range []map[string]any{
		{"turn_id": "par", "workspace_id": "w", "thread_id": "t", "workspace_root": root},
		{"turn_id": "kid", "workspace_id": "w", "thread_id": "t", "workspace_root": root, "parent_turn_id": "par",
			"permission_profile": map[string]any{"mode": "supervised"}},
	} {
		if st, body := s.do("POST", "/v1/turns", b); st != http.StatusCreated {
			t.Fatalf("start: %d %s", st, body)
		}
	}
	if st, body := s.do("GET", "/v1/turns/kid", nil); st != http.StatusNotFound {
		t.Fatalf("control: the read model knows the child: %d %s", st, body)
	}
	st2, body := s.do("POST", "/v1/turns/kid/permissions", map[string]any{"permission_profile": map[string]any{"mode": "supervised", "denied_tools": []string{"web_fetch"}}})
	if st2 != http.StatusOK {
		t.Fatalf("a child's profile change with a lagging read model: %d %s", st2, body)
	}
	st2, body = s.do("POST", "/v1/turns/kid/decisions", map[string]any{"tool_call_id": "c", "tool_name": "exec_command", "arguments": map[string]any{"cmd": "make"}})
	var d struct {
		Request struct {
			RequestID string `json:"request_id"`
		} `json:"request"`
	}
	if err := json.Unmarshal(body, &d); err != nil || st2 != http.StatusOK || d.Request.RequestID == "" {
		t.Fatalf("decision: %d %s", st2, body)
	}
	if st2, body = s.do("POST", "/v1/approvals/"+d.Request.RequestID+"/respond", map[string]any{"resolution": "allow_once"}); st2 != http.StatusOK {
		t.Fatalf("a response without turn_id with a lagging read model: %d %s", st2, body)
	}
	if st2, body = s.do("POST", "/v1/approvals/00000000-0000-5000-8000-000000000000/respond", map[string]any{"resolution": "deny"}); st2 != http.StatusNotFound {
		t.Fatalf("an unknown request: %d %s", st2, body)
	}
}

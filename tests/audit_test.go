package tests

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestAuditRowsTimelineAndChain checks the audit rows and timeline of a
// turn, and recomputes its hash chain from GET /v1/turns/{id}/events.
func TestAuditRowsTimelineAndChain(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("au", "ws", "auto_accept_edits", root)
	ask := s.decide("au", "c1", "exec_command", map[string]any{"cmd": "ls"})
	s.respond(ask.Request.RequestID, "allow_for_turn")
	s.decide("au", "c2", "exec_command", map[string]any{"cmd": "ls"})
	s.decide("au", "c3", "read_file", map[string]any{"path": "/nonexistent-root/missing.txt"})
	s.JSON("POST", "/v1/turns/au/complete", nil, http.StatusOK, nil)

	var audit struct {
		Rows []struct {
			Version       int64  `json:"version"`
			Kind          string `json:"kind"`
			ProfileMode   string `json:"profile_mode"`
			ProfileSource string `json:"profile_source"`
			ToolCallID    string `json:"tool_call_id"`
			ToolName      string `json:"tool_name"`
			RequestKey    *struct {
				ActionKind string `json:"action_kind"`
				ScopeHash  string `json:"scope_hash"`
			} `json:"request_key"`
			Decision string `json:"decision"`
			Reason   string `json:"reason"`
			Cached   bool   `json:"cached"`
		} `json:"rows"`
	}
	s.JSON("GET", "/v1/turns/au/audit", nil, http.StatusOK, &audit)
	want := []struct{ kind, decision, reason string }{
		{"profile_selected", "", ""},
		{"security_snapshot_resolved", "", ""},
		{"approval_requested", "ask", "policy_requires_approval"},
		{"approval_resolved", "allow_for_turn", "user_approved"},
		{"decision_allowed", "allow", "cached_approval"},
		{"decision_denied", "deny", "sandbox_denied"},
	}
	if len(audit.Rows) < len(want) {
		t.Fatalf("audit rows %+v", audit.Rows)
	}
	for i, w := range want {
		r := audit.Rows[i]
		if r.Kind != w.kind || r.Decision != w.decision || r.Reason != w.reason || r.ProfileMode != "auto_accept_edits" || r.ProfileSource != "composer" {
			t.Errorf("audit row %d: %+v, want %s %s %s", i, r, w.kind, w.decision, w.reason)
		}
	}
	if r := audit.Rows[4]; !r.Cached || r.ToolCallID != "c2" || r.ToolName != "exec_command" || r.RequestKey == nil ||
		r.RequestKey.ActionKind != "shell_command" || r.RequestKey.ScopeHash != ask.ScopeHash {
		t.Errorf("cached decision row %+v", r)
	}

	var tl struct {
		Rows []struct {
			Version   int64  `json:"version"`
			Kind      string `json:"kind"`
			Title     string `json:"title"`
			RequestID string `json:"request_id"`
		} `json:"rows"`
	}
	s.JSON("GET", "/v1/turns/au/timeline", nil, http.StatusOK, &tl)
	var kinds []string
	for i, r := range tl.Rows {
		kinds = append(kinds, r.Kind)
		if i > 0 && r.Version < tl.Rows[i-1].Version {
			t.Errorf("timeline out of turn order: %+v", tl.Rows)
		}
	}
	if got := strings.Join(kinds, ","); got != "header,approval_requested,approval_resolved,sandbox,turn_ended" {
		t.Errorf("timeline kinds %s: %+v", got, tl.Rows)
	}

	// The chain: each hash is SHA-256(metadata "\n" data), each prev_hash
	// the hash before it.
	var page struct {
		Events []struct {
			Version  int64           `json:"version"`
			PrevHash string          `json:"prev_hash"`
			Hash     string          `json:"hash"`
			Metadata json.RawMessage `json:"metadata"`
			Data     json.RawMessage `json:"data"`
		} `json:"events"`
	}
	s.JSON("GET", "/v1/turns/au/events", nil, http.StatusOK, &page)
	prev := ""
	for i, e := range page.Events {
		sum := sha256.Sum256([]byte(string(e.Metadata) + "\n" + string(e.Data)))
		if e.Version != int64(i) || e.PrevHash != prev || e.Hash != hex.EncodeToString(sum[:]) {
			t.Fatalf("event %d: version %d prev %s hash %s (computed %x, want prev %s)", i, e.Version, e.PrevHash, e.Hash, sum, prev)
		}
		prev = e.Hash
	}
	// Paging with from= returns the tail.
	var tail struct {
		From   int `json:"from"`
		Events []struct {
			Version int64 `json:"version"`
		} `json:"events"`
	}
	s.JSON("GET", "/v1/turns/au/events?from=3&limit=2", nil, http.StatusOK, &tail)
	if tail.From != 3 || len(tail.Events) != 2 || tail.Events[0].Version != 3 || tail.Events[1].Version != 4 {
		t.Fatalf("events from 3, limit 2: %+v", tail)
	}
	// A full page names the next one's from; the last names none.
	var next struct {
		Next   *int              `json:"next"`
		Events []json.RawMessage `json:"events"`
	}
	s.JSON("GET", "/v1/turns/au/events?from=3&limit=2", nil, http.StatusOK, &next)
	if next.Next == nil || *next.Next != 5 {
		t.Fatalf("a full page from 3 of 2: next %v, want 5", next.Next)
	}
	next.Next = nil
	s.JSON("GET", fmt.Sprintf("/v1/turns/au/events?from=%d&limit=10000", len(page.Events)-1), nil, http.StatusOK, &next)
	if next.Next != nil || len(next.Events) != 1 {
		t.Fatalf("the last page: next %v, %d events", next.Next, len(next.Events))
	}
	// limit=0 is the store's "no bound": every event (of a small turn).
	next.Events = nil
	s.JSON("GET", "/v1/turns/au/events?limit=0", nil, http.StatusOK, &next)
	if len(next.Events) != len(page.Events) {
		t.Fatalf("limit=0: %d events, want %d", len(next.Events), len(page.Events))
	}
}

// TestSecretsNeverInClear sends secrets in URL queries and userinfo, an
// environment value and a path under ~/.ssh, and checks that none reaches
// an API answer, the event stream, or the store file.
func TestSecretsNeverInClear(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	sse := s.subscribe("turn_id=sec", "")
	s.startTurn("sec", "ws", "auto_accept_edits", root)
	secrets := []string{"QUERYSECRET42", "USERPASS77", "ENVVALUE99", "FRAGMENT55"}
	d := s.decide("sec", "c1", "web_fetch", map[string]any{"url": "https://bob:USERPASS77@example.com/p?api_key=QUERYSECRET42#FRAGMENT55"})
	if d.Decision != "ask" || d.Request == nil || !strings.Contains(d.Request.Summary, "example.com/p") {
		t.Fatalf("web_fetch: %+v", d)
	}
	s.decide("sec", "c2", "exec_command", map[string]any{"cmd": "env", "env": map[string]string{"MY_API_TOKEN": "ENVVALUE99"}})
	s.decide("sec", "c3", "read_file", map[string]any{"path": "/root/.ssh/id_ed25519_e2e"})
	s.respond(d.Request.RequestID, "allow_for_turn")
	// The same URL with another query is the same origin and path but a
	// different full URL: not covered by the grant.
	if other := s.decide("sec", "c4", "web_fetch", map[string]any{"url": "https://example.com/p?api_key=OTHER"}); other.Decision != "ask" {
		t.Fatalf("another query after the grant: %+v", other)
	}
	if same := s.decide("sec", "c5", "web_fetch", map[string]any{"url": "https://bob:USERPASS77@example.com/p?api_key=QUERYSECRET42#FRAGMENT55"}); same.Reason != "cached_approval" {
		t.Fatalf("same URL after the grant: %+v", same)
	}

	var seen strings.Builder
	for range 3 + 6 {
		seen.WriteString(sse.Next().Data)
	}
	for _, p := range []string{"/v1/turns/sec", "/v1/turns/sec/events", "/v1/turns/sec/audit", "/v1/turns/sec/timeline", "/v1/approvals?status=all"} {
		_, body := s.Request("GET", p, nil)
		seen.Write(body)
	}
	out, _, _ := s.CLI("replay", "sec", "--json")
	seen.WriteString(out)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	seen.Write(storeBytes(t, s.Data))
	for _, secret := range append(secrets, "id_ed25519_e2e") {
		if strings.Contains(seen.String(), secret) {
			t.Errorf("%s appears in clear", secret)
		}
	}
}

package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"turnstile/api"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
)

// verifyAllLines reads GET /v1/audit/verify with token.
func (s *gated) verifyAllLines(token string) []api.VerifyLine {
	s.t.Helper()
	req, _ := http.NewRequest("GET", s.url+"/v1/audit/verify", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/x-ndjson" {
		s.t.Fatalf("verify: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var out []api.VerifyLine
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		var l api.VerifyLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			s.t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, l)
	}
	return out
}

// forge appends to turn id's stream an event copied from its last one,
// chained to hash prev: what someone who can write the store would do.
func (s *gated) forge(id string, prev func(last eventstore.RecordedEvent) string) {
	s.t.Helper()
	recs, err := s.store.ReadStream(context.Background(), turn.StreamName(id), 0, 0)
	if err != nil || len(recs) == 0 {
		s.t.Fatalf("read %s: %v", id, err)
	}
	last := recs[len(recs)-1]
	var meta map[string]any
	if err := json.Unmarshal(last.Metadata, &meta); err != nil {
		s.t.Fatal(err)
	}
	meta["prev_hash"] = prev(last)
	mb, _ := json.Marshal(meta)
	if _, err := s.store.Append(context.Background(), last.Stream, eventstore.Exactly(last.Revision),
		[]eventstore.EventData{{ID: uuid.New(), Type: last.Type, Data: last.Data, Metadata: mb}}); err != nil {
		s.t.Fatal(err)
	}
}

// TestVerifyAllWalksTheStore: GET /v1/audit/verify checks every turn's
// chain in one pass and gives the same heads as the per-turn verify; an
// event appended with a wrong prev_hash is named (the event before it, the
// one that no longer hashes to it), while one appended with the right
// prev_hash passes (the control); a workspace-scoped auditor gets only its
// workspaces' turns.
func TestVerifyAllWalksTheStore(t *testing.T) {
	s := startGated(t)
	for _, id := range []string{"a", "b", "c"} {
		if st, b := s.do("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws-" + id, "workspace_root": s.root}); st != http.StatusCreated {
			t.Fatalf("start %s: %d %s", id, st, b)
		}
		for _, call := range []string{"c1", "c2"} {
			if st, b := s.do("POST", "/v1/turns/"+id+"/decisions", map[string]any{"tool_call_id": call, "tool_name": "exec_command", "arguments": map[string]any{"cmd": "make"}}); st != http.StatusOK {
				t.Fatalf("decide: %d %s", st, b)
			}
		}
	}
	lines := s.verifyAllLines(s.token)
	done := lines[len(lines)-1].Done
	if done == nil || done.Turns != 3 || done.Events != 15 {
		t.Fatalf("verify a clean store: %+v", lines[len(lines)-1])
	}
	heads := map[string]api.VerifyHead{}
	for _, l := range lines {
		if l.Head != nil {
			heads[l.Head.TurnID] = *l.Head
		}
	}
	for _, id := range []string{"a", "b", "c"} {
		var one api.VerifyResponse
		st, b := s.do("GET", "/v1/turns/"+id+"/verify", nil)
		if st != http.StatusOK || json.Unmarshal(b, &one) != nil || !one.Valid {
			t.Fatalf("verify %s: %d %s", id, st, b)
		}
		if h := heads[id]; h.Hash != one.LastHash || h.Version != int64(one.Events-1) {
			t.Fatalf("turn %s: the walk's head %+v, the per-turn verify's %+v", id, h, one)
		}
	}

	// A scoped auditor: only ws-b.
	scoped := s.verifyAllLines(s.credential("aud-b", "auditor", "ws-b"))
	for _, l := range scoped {
		if l.Head != nil && l.Head.TurnID != "b" {
			t.Fatalf("a scoped auditor got the head of turn %s", l.Head.TurnID)
		}
	}
	if d := scoped[len(scoped)-1].Done; d == nil || d.Turns != 1 || d.Events != 5 {
		t.Fatalf("scoped verify: %+v", scoped[len(scoped)-1])
	}

	// The control: an event chained correctly passes.
	s.forge("b", func(last eventstore.RecordedEvent) string { return turn.HashOf(last.Metadata, last.Data) })
	if d := s.verifyAllLines(s.token); d[len(d)-1].Done == nil || d[len(d)-1].Done.Events != 16 {
		t.Fatalf("a well-chained event breaks the verify: %+v", d[len(d)-1])
	}
	// A wrong prev_hash is tampering, named at the event before it.
	s.forge("b", func(eventstore.RecordedEvent) string { return strings.Repeat("0", 64) })
	lines = s.verifyAllLines(s.token)
	tm := lines[len(lines)-1].Tampered
	if tm == nil || tm.TurnID != "b" || tm.Version != 5 || !strings.Contains(tm.Message, "first bad event at version 5") {
		t.Fatalf("verify a tampered store: %+v", lines[len(lines)-1])
	}
	// An auditor scoped to ws-a checks turn a only: intact.
	if l := s.verifyAllLines(s.credential("aud-a", "auditor", "ws-a")); l[len(l)-1].Done == nil || l[len(l)-1].Done.Turns != 1 {
		t.Fatalf("an auditor of ws-a: %+v", l[len(l)-1])
	}
}

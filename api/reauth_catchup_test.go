package api_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"turnstile/api"
	"turnstile/domain/eventstore"
)

// TestRevokedCredentialCatchUpEnds: a stream resuming from the start of a
// long log, read slowly, stays in its catch-up, which reads up to the end
// of the log page by page. An approver revoked meanwhile must not be sent
// the events appended after its revocation: its stream ends with
// credential_revoked. A kept approver's stream, read the same way, carries
// them (the control).
func TestRevokedCredentialCatchUpEnds(t *testing.T) {
	s := startSSE(t, api.Config{}, 4096)
	s.decisions("t", 0, 1600) // a little over three catch-up pages
	token := func(name string) string { return s.credential(name, "approver") }
	before := map[string]bool{}
	for _, p := range s.turnPositions(eventstore.Start) {
		before[p] = true
	}
	alice := s.as(token("alice")).openSSE("from=start", "", 4096)
	bob := s.as(token("bob")).openSSE("from=start", "", 4096)
	deadline := time.AfterFunc(time.Minute, func() { alice.resp.Body.Close(); bob.resp.Body.Close() })
	defer deadline.Stop()
	// Each has its first frame: its catch-up is writing the first page
	// into buffers far smaller than a page, and waits for the reader.
	for _, c := range []*sseClient{alice, bob} {
		if f, err := c.next(); err != nil || f.id == "" {
			t.Fatalf("the first frame: %+v %v", f, err)
		}
	}
	if st, b := s.do("POST", "/v1/credentials/alice/revoke", nil); st != http.StatusOK {
		t.Fatalf("revoke: %d %s", st, b)
	}
	s.decisions("t", 1600, 3)
	var after []string
	for _, p := range s.turnPositions(eventstore.Start) {
		if !before[p] {
			after = append(after, p)
		}
	}
	if len(after) != 3 {
		t.Fatalf("%d events after the revocation, want 3", len(after))
	}
	var leaked []string
	var reason string
	for {
		f, err := alice.next()
		if err != nil {
			break
		}
		if f.id == "" {
			reason = f.data
			break
		}
		if !before[f.id] {
			leaked = append(leaked, f.id)
		}
	}
	if len(leaked) > 0 {
		t.Errorf("the revoked approver's catch-up sent %d events appended after its revocation: %v", len(leaked), leaked)
	}
	if !strings.Contains(reason, "credential_revoked") {
		t.Errorf("the revoked approver's stream ended with %q, want credential_revoked", reason)
	}
	ids, _ := bob.until(t, after[len(after)-1])
	if len(ids) < 1600 {
		t.Errorf("the kept approver's stream carried %d events, want every one (control)", len(ids))
	}
}

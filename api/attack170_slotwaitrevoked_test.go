package api_test

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"turnstile/adapters/boltstore"
	"turnstile/api"
	"turnstile/domain/turn"
)

// TestAttack170_SlotWaitOutlivesRevocation (a guess of the hundred-and-
// seventieth review, tested): a read that waits for a slot (its
// principal's pending-approvals list, or a fold of an old turn) waits as
// long as its request lasts, and was served once the slot came free even
// when its credential had been revoked meanwhile. A request that waited
// is now authenticated again once it has its slots, and a revoked one is
// refused (401 credential_revoked).
//
// Controls: the agent's read that held the slots when the credential was
// revoked finishes (it was served before the revocation: as a command
// that already ran), and another principal's read that waited just as
// long is answered 200.
func TestAttack170_SlotWaitOutlivesRevocation(t *testing.T) {
	bolt, err := boltstore.Open(filepath.Join(t.TempDir(), "events.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	big := turn.StreamName("big")
	st := &gatedStore{Store: bolt, gate: make(chan struct{}), inFlight: map[string]*atomic.Int64{big: new(atomic.Int64)}}
	eng, proj, srv, admin := serveStoreInProcess(t, st, bolt)
	agent := &inProcess{t: t, url: admin.url, token: admin.credential("agent", "runtime", "ws")}
	keeper := &inProcess{t: t, url: admin.url, token: admin.credential("keeper", "runtime", "ws")}
	endedTurns(t, eng, proj, t.TempDir(), 0, "big", "other", "later")

	st.on.Store(true)
	var wg sync.WaitGroup
	type answer struct {
		code int
		body string
	}
	answers := map[string]*answer{}
	read := func(name string, c *inProcess, path string) {
		a := &answer{}
		answers[name] = a
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, b := c.do("GET", path, nil)
			a.code, a.body = code, string(b)
		}()
	}
	wait := func(what string, ok func() bool) {
		deadline := time.Now().Add(30 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not reached (folding %d, folds waiting %d, lists waiting %d)", what, st.inFlight[big].Load(), api.FoldsWaiting(srv), api.ListsWaiting(srv))
			}
			time.Sleep(time.Millisecond) // polled: the arrivals have no event to wait on
		}
	}
	// The agent's and the keeper's first reads hold their list slots,
	// their fold slots and both of all the fold slots, at the gate.
	read("agent holds", agent, "/v1/approvals?turn_id=big")
	wait("the agent's first read folds", func() bool { return st.inFlight[big].Load() == 1 })
	read("keeper holds", keeper, "/v1/approvals?turn_id=big")
	wait("the keeper's first read folds", func() bool { return st.inFlight[big].Load() == 2 })
	// Then each waits: the agent for its list slot and its fold slot,
	// the keeper for its fold slot.
	read("agent waits for a list", agent, "/v1/approvals?turn_id=big")
	wait("the agent's list waits", func() bool { return api.ListsWaiting(srv) == 1 })
	read("agent waits for a fold", agent, "/v1/turns/other")
	read("keeper waits for a fold", keeper, "/v1/turns/other")
	wait("the folds wait", func() bool { return api.FoldsWaiting(srv) == 2 })

	if code, b := admin.do("POST", "/v1/credentials/agent/revoke", nil); code != http.StatusOK {
		t.Fatalf("revoke: %d %s", code, b)
	}
	close(st.gate)
	wg.Wait()

	for _, name := range []string{"agent waits for a list", "agent waits for a fold"} {
		if a := answers[name]; a.code != http.StatusUnauthorized || !strings.Contains(a.body, "credential_revoked") {
			t.Errorf("%s: answered %d %.200s after its credential was revoked while it waited, want 401 credential_revoked", name, a.code, a.body)
		}
	}
	for _, name := range []string{"agent holds", "keeper holds", "keeper waits for a fold"} {
		if a := answers[name]; a.code != http.StatusOK {
			t.Errorf("control: %s answered %d %.200s", name, a.code, a.body)
		}
	}
	if n := fmt.Sprint(api.FoldsWaiting(srv), api.ListsWaiting(srv)); n != "0 0" {
		t.Errorf("still waiting (folds, lists): %s", n)
	}
}

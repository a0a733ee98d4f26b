package api_test

import (
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"turnstile/adapters/boltstore"
	"turnstile/domain/turn"
)

// TestAttack177_StartWaitOutlivesRevocation: the hundred-and-seventy-
// seventh review, against review 170's fix (a read that waited for a slot
// is authenticated again once it has it). A principal's turn starts are
// run one at a time (startWithinQuota's lock, so that its open-turn quota
// counts each): a start waits for the lock as long as the command bound
// allows, and once it has it, it is run, with nothing authenticating its
// credential again (its body was read, and rechecked, before it waited).
// So a start of the agent's that waited behind its own slow start is
// served (201, a turn started as the revoked principal) after its
// credential was revoked meanwhile.
//
// Controls: the start that held the lock when the credential was revoked
// completes (it was under way before the revocation), and another
// principal's start that waited just as long behind its own is answered
// 201.
func TestAttack177_StartWaitOutlivesRevocation(t *testing.T) {
	bolt, err := boltstore.Open(filepath.Join(t.TempDir(), "events.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	first := map[string]*atomic.Int64{turn.StreamName("a1"): new(atomic.Int64), turn.StreamName("k1"): new(atomic.Int64)}
	st := &gatedStore{Store: bolt, gate: make(chan struct{}), inFlight: first}
	_, _, _, admin := serveStoreInProcess(t, st, bolt)
	agent := &inProcess{t: t, url: admin.url, token: admin.credential("agent", "runtime", "ws")}
	keeper := &inProcess{t: t, url: admin.url, token: admin.credential("keeper", "runtime", "ws")}
	root := t.TempDir()
	st.on.Store(true)

	var wg sync.WaitGroup
	type answer struct {
		code int
		body string
	}
	answers := map[string]*answer{}
	start := func(c *inProcess, id string) {
		a := &answer{}
		answers[id] = a
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, b := c.do("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id,
				"permission_profile": map[string]any{"mode": "full_access"}, "workspace_root": root})
			a.code, a.body = code, string(b)
		}()
	}
	wait := func(what string, ok func() bool) {
		deadline := time.Now().Add(5 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not reached", what)
			}
			time.Sleep(time.Millisecond) // polled: the arrivals have no event to wait on
		}
	}
	// The goroutines blocked in startWithinQuota's wait for the lock.
	waiting := func() int {
		buf := make([]byte, 1<<22)
		n := runtime.Stack(buf, true)
		c := 0
		for _, g := range strings.Split(string(buf[:n]), "\n\n") {
			if strings.Contains(g, "[select") && strings.Contains(g, "api.(*Server).startWithinQuota(") &&
				!strings.Contains(g, "gatedStore") {
				c++
			}
		}
		return c
	}
	start(agent, "a1")
	wait("the agent's first start reads its stream", func() bool { return first[turn.StreamName("a1")].Load() == 1 })
	start(keeper, "k1")
	wait("the keeper's first start reads its stream", func() bool { return first[turn.StreamName("k1")].Load() == 1 })
	start(agent, "a2")
	start(keeper, "k2")
	wait("the second starts wait for their principals' locks", func() bool { return waiting() == 2 })

	if code, b := admin.do("POST", "/v1/credentials/agent/revoke", nil); code != http.StatusOK {
		t.Fatalf("revoke: %d %s", code, b)
	}
	close(st.gate)
	wg.Wait()

	for _, id := range []string{"a1", "k1", "k2"} {
		if a := answers[id]; a.code != http.StatusCreated {
			t.Errorf("control: start %s answered %d %.200s", id, a.code, a.body)
		}
	}
	if a := answers["a2"]; a.code != http.StatusUnauthorized {
		t.Errorf("the agent's start that waited for its lock while its credential was revoked: %d %.120s, want 401 credential_revoked", a.code, a.body)
	}
}

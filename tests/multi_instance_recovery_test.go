package tests

// Scale-out, end to end (continued from multi_instance_test.go): a turn's
// cache made stale by the other instance, notifications across instances,
// and an unavailable store. Same harness: one esdbtest server, two
// `turnstile serve --store esdb://…` processes.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMultiInstanceStaleCacheCatchUp: decisions on one turn alternate between
// the instances, so each append is made on a cached turn the other instance
// has moved on: the append reports it stale, the instance catches up, and
// the versions are consecutive and agreed by both. A tool_call_id retried
// through the other instance answers the stored decision and appends
// nothing.
func TestMultiInstanceStaleCacheCatchUp(t *testing.T) {
	p := miStartPair(t)
	inst := map[string]*Server{"A": p.A, "B": p.B}
	other := map[string]string{"A": "B", "B": "A"}

	t.Run("Alternating", func(t *testing.T) {
		const turnID = "alt-1"
		started := miStartTurn(t, p.A, turnID)
		last := started.Turn.Version
		type decided struct {
			via, callID string
			inv         map[string]any
			d           decisionAnswer
		}
		var log []decided
		for i := range 12 {
			via := "A"
			if i%2 == 1 {
				via = "B"
			}
			inv, want := miReadFile, "allow"
			if i%3 == 2 {
				inv, want = miWebFetch, "deny"
			}
			callID := fmt.Sprintf("call-%02d", i)
			d := miDecide(t, inst[via], turnID, callID, inv)
			if d.Version != last+1 || d.Replayed || d.Decision != want {
				t.Fatalf("decision %d via %s: %+v, want %s at v%d", i, via, d, want, last+1)
			}
			last = d.Version
			log = append(log, decided{via, callID, inv, d})
		}
		before := miEvents(t, p.A, turnID)
		sameHistory(t, before, miEvents(t, p.B, turnID))
		checkChain(t, "alternating", before)
		if int64(len(before)) != last+1 {
			t.Fatalf("%d events, last version %d", len(before), last)
		}
		for _, s := range []*Server{p.A, p.B} {
			miWaitTurnVersion(t, s, turnID, last)
		}

		// A retry through the other instance of a call that instance has
		// caught up with (its own append of a later call was stale) is
		// answered from its cache.
		first := log[0]
		d := miDecide(t, inst[other[first.via]], turnID, first.callID, first.inv)
		if !d.Replayed || d.Decision != first.d.Decision || d.Reason != first.d.Reason || d.Version != last {
			t.Errorf("%s (decided via %s at v%d) retried via %s: %+v; want the stored %s %s, replayed, at v%d",
				first.callID, first.via, first.d.Version, other[first.via], d, first.d.Decision, first.d.Reason, last)
		}
		// A different invocation under a decided id is refused.
		var reused errorBody
		miCall(t, p.B, "POST", "/v1/turns/"+turnID+"/decisions", miDecisionBody(first.callID, miExec("x")), http.StatusConflict, &reused)
		if reused.Error.Code != "tool_call_reused" {
			t.Errorf("reused tool_call_id: %+v", reused)
		}

		// A retry of the last call, made through B, through A: A's cached
		// turn is one event behind and has never seen the call.
		lastCall := log[len(log)-1]
		retry := miDecide(t, inst[other[lastCall.via]], turnID, lastCall.callID, lastCall.inv)
		after := miEvents(t, p.B, turnID)
		if len(after) != len(before) {
			t.Fatalf("the retries appended: %d events before, %d after:\n%s", len(before), len(after), miTypes(after))
		}
		if retry.Decision != lastCall.d.Decision || retry.Reason != lastCall.d.Reason || retry.Version != last {
			t.Fatalf("%s retried via %s: %+v; want the stored %s %s at v%d", lastCall.callID, other[lastCall.via], retry, lastCall.d.Decision, lastCall.d.Reason, last)
		}

		// Both instances keep appending to one chained history.
		da := miDecide(t, p.A, turnID, "call-next-a", miReadFile)
		db := miDecide(t, p.B, turnID, "call-next-b", miReadFile)
		if da.Version != last+1 || db.Version != last+2 {
			t.Errorf("next decisions: A v%d, B v%d, want v%d, v%d", da.Version, db.Version, last+1, last+2)
		}
		final := miEvents(t, p.A, turnID)
		sameHistory(t, final, miEvents(t, p.B, turnID))
		chain := miChainBreak(final)
		vout, verr, code := p.A.CLI("audit", "verify", "--quiet", turnID)
		verr = strings.TrimSpace(vout + " " + verr)
		miFailIf(t, !retry.Replayed || chain != "",
			"a tool_call_id retried through an instance whose cached turn is one event behind it answers replayed=%v (want true), "+
				"and that instance's next append breaks the audit chain (%s; `turnstile audit verify %s` exits %d: %s). "+
				"The retry's re-encoded event has the stored event's deterministic id, so the store takes the append at the stale "+
				"expected version as an idempotent replay (KurrentDB CheckCommit: expected n < current, same ids → success, nothing written) "+
				"and the engine folds the instance's own copy (another occurred_at, so another hash) into its cache "+
				"as if it had been written",
			retry.Replayed, chain, turnID, code, verr)
		if !retry.Replayed {
			t.Errorf("retry through the stale instance: replayed=false")
		}
		checkChain(t, "after the retries", final)
		if code != 0 {
			t.Errorf("audit verify: exit %d: %s", code, verr)
		}
	})

	t.Run("Concurrent", func(t *testing.T) {
		// One writer per instance on the same turn at once: every append
		// races the other instance's; each loser catches up and decides
		// again.
		const turnID = "alt-2"
		const perInstance = 15
		miStartTurn(t, p.A, turnID)
		type answer struct {
			callID string
			status int
			body   []byte
			err    error
		}
		answers := map[string][]answer{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		start := make(chan struct{})
		for _, via := range []string{"A", "B"} {
			wg.Go(func() {
				<-start
				for i := range perInstance {
					callID := fmt.Sprintf("call-%s-%02d", via, i)
					status, body, err := miDo(inst[via], "POST", "/v1/turns/"+turnID+"/decisions", miDecisionBody(callID, miReadFile))
					mu.Lock()
					answers[via] = append(answers[via], answer{callID, status, body, err})
					mu.Unlock()
				}
			})
		}
		close(start)
		wg.Wait()
		versions := map[int64]string{}
		for via, list := range answers {
			for _, a := range list {
				var d decisionAnswer
				if a.err != nil || a.status != http.StatusOK || json.Unmarshal(a.body, &d) != nil || d.Decision != "allow" || d.Replayed {
					t.Errorf("%s via %s: %d %s %v", a.callID, via, a.status, a.body, a.err)
					continue
				}
				if prev, dup := versions[d.Version]; dup {
					t.Errorf("%s and %s both answered v%d", prev, a.callID, d.Version)
				}
				versions[d.Version] = a.callID
			}
		}
		evs := miEvents(t, p.A, turnID)
		sameHistory(t, evs, miEvents(t, p.B, turnID))
		checkChain(t, "concurrent", evs)
		if len(evs) != 3+2*perInstance {
			t.Fatalf("%d events, want %d: %s", len(evs), 3+2*perInstance, miTypes(evs))
		}
		for v, callID := range versions {
			var d struct {
				ToolCallID string `json:"tool_call_id"`
			}
			if v < 0 || v >= int64(len(evs)) || json.Unmarshal(evs[v].Data, &d) != nil || d.ToolCallID != callID {
				t.Errorf("v%d was answered to %s but stores %s", v, callID, evs[min(max(v, 0), int64(len(evs)-1))].Data)
			}
		}
	})
}

// TestMultiInstanceNotifications: SSE clients of both instances receive the
// opened and resolved notifications of a request opened through A and
// resolved through B.
func TestMultiInstanceNotifications(t *testing.T) {
	p := miStartPair(t)
	sa := miOpenSSE(t, p.A, "A's /v1/events")
	sb := miOpenSSE(t, p.B, "B's /v1/events")

	const turnID = "sse-1"
	miStartTurn(t, p.A, turnID)
	ask := miDecide(t, p.A, turnID, "call-make", miExec("release"))
	if ask.Decision != "ask" || ask.Request == nil {
		t.Fatalf("exec_command: %+v", ask)
	}
	rid := ask.Request.RequestID
	miWaitPending(t, p.B, turnID, rid)
	miCall(t, p.B, "POST", "/v1/approvals/"+rid+"/respond", map[string]string{"resolution": "allow_once"}, http.StatusOK, nil)

	ids := map[string][]string{}
	for _, s := range []*miSSE{sa, sb} {
		started := s.waitFor(t, "turn/started of "+turnID, func(e sseEvent) bool {
			return e.Event == "turn/started" && e.Params["turn_id"] == turnID
		})
		opened := s.waitFor(t, "turn/permission/request/opened of "+rid, func(e sseEvent) bool {
			req, _ := e.Params["request"].(map[string]any)
			return e.Event == "turn/permission/request/opened" && req != nil && req["request_id"] == rid
		})
		resolved := s.waitFor(t, "turn/permission/request/resolved of "+rid, func(e sseEvent) bool {
			return e.Event == "turn/permission/request/resolved" && e.Params["request_id"] == rid
		})
		if opened.Method != "turn/permission/request/opened" || resolved.Params["resolution"] != "allow_once" ||
			resolved.Params["turn_id"] != turnID {
			t.Errorf("%s: opened %+v, resolved %+v", s.name, opened.Data, resolved.Data)
		}
		// In store order: started, opened, resolved.
		idx := func(e sseEvent) int {
			return slices.IndexFunc(s.seen, func(x sseEvent) bool { return x.ID == e.ID })
		}
		if !(idx(started) < idx(opened) && idx(opened) < idx(resolved)) {
			t.Errorf("%s: out of order: %+v", s.name, s.seen)
		}
		ids[s.name] = []string{started.ID, opened.ID, resolved.ID}
	}
	// The event ids are store positions: the same on both instances.
	if !slices.Equal(ids[sa.name], ids[sb.name]) {
		t.Errorf("the instances number the notifications differently: A %v, B %v", ids[sa.name], ids[sb.name])
	}
}

// TestMultiInstanceStoreUnavailable: with the EventStoreDB server down (and
// then hung), /readyz answers 503 and API calls that need the store answer
// 503 store_unavailable with a clear message — every one within the hang
// guard, never a hang; once the server is back, both instances recover.
func TestMultiInstanceStoreUnavailable(t *testing.T) {
	p := miStartPair(t)
	const turnID = "down-1"
	miStartTurn(t, p.A, turnID)
	miDecide(t, p.A, turnID, "call-warm", miReadFile) // A caches the turn
	ask := miDecide(t, p.A, turnID, "call-ask", miExec("build"))
	if ask.Request == nil {
		t.Fatalf("exec_command: %+v", ask)
	}
	rid := ask.Request.RequestID
	miWaitPending(t, p.B, turnID, rid)

	type call struct {
		name, method, path string
		s                  *Server
		body               any
	}
	phase := 0
	outage := func(t *testing.T, breakStore, restore func()) {
		phase++
		calls := []call{
			{"readyz A", "GET", "/readyz", p.A, nil},
			{"readyz B", "GET", "/readyz", p.B, nil},
			{"decision (A)", "POST", "/v1/turns/" + turnID + "/decisions", p.A, miDecisionBody(fmt.Sprintf("call-out-%d", phase), miReadFile)},
			{"decision (B)", "POST", "/v1/turns/" + turnID + "/decisions", p.B, miDecisionBody(fmt.Sprintf("call-out-b-%d", phase), miReadFile)},
			{"start a turn (A)", "POST", "/v1/turns", p.A, miStartBody(fmt.Sprintf("down-new-%d", phase), workspace(t))},
			{"respond (B)", "POST", "/v1/approvals/" + rid + "/respond", p.B, map[string]string{"resolution": "allow_once"}},
			{"turn history (B)", "GET", "/v1/turns/" + turnID + "/events", p.B, nil},
		}
		breakStore()
		type got struct {
			status int
			body   []byte
			err    error
			took   time.Duration
		}
		results := make([]got, len(calls))
		var wg sync.WaitGroup
		for i, c := range calls {
			wg.Go(func() {
				t0 := time.Now()
				status, body, err := miDo(c.s, c.method, c.path, c.body)
				results[i] = got{status, body, err, time.Since(t0)}
			})
		}
		wg.Wait()
		for i, c := range calls {
			r := results[i]
			if r.err != nil {
				t.Errorf("%s: no answer (hang guard %v): %v", c.name, miHangGuard, r.err)
				continue
			}
			var e errorBody
			_ = json.Unmarshal(r.body, &e)
			if r.status != http.StatusServiceUnavailable || e.Error.Code != "store_unavailable" ||
				!strings.Contains(e.Error.Message, "event store") || !strings.Contains(e.Error.Message, "unavailable") {
				t.Errorf("%s: %d %s, want 503 store_unavailable saying the event store is unavailable", c.name, r.status, r.body)
				continue
			}
			t.Logf("%s: 503 after %v: %s", c.name, r.took.Round(time.Millisecond), e.Error.Message)
		}
		// The read model still answers what it knows.
		miCall(t, p.B, "GET", "/v1/turns/"+turnID, nil, http.StatusOK, nil)

		restore()
		for _, s := range []*Server{p.A, p.B} {
			waitUntil(t, s.URL+" ready again", func() (bool, string) {
				status, body, err := miDo(s, "GET", "/readyz", nil)
				return err == nil && status == http.StatusOK, fmt.Sprintf("%d %s %v", status, body, err)
			})
		}
		// Calls work again, through both, and the projections follow.
		da := miDecide(t, p.A, turnID, fmt.Sprintf("call-back-a-%d", phase), miReadFile)
		db := miDecide(t, p.B, turnID, fmt.Sprintf("call-back-b-%d", phase), miReadFile)
		if da.Decision != "allow" || db.Decision != "allow" || db.Version != da.Version+1 {
			t.Fatalf("after recovery: A %+v, B %+v", da, db)
		}
		for _, s := range []*Server{p.A, p.B} {
			miWaitTurnVersion(t, s, turnID, db.Version)
		}
		miWaitPending(t, p.A, turnID, rid) // still open: no respond got through
		checkChain(t, "after the outage", miEvents(t, p.A, turnID))
	}

	t.Run("Down", func(t *testing.T) {
		outage(t, p.Store.Down, func() {
			if err := p.Store.Up(); err != nil {
				t.Fatalf("the test server did not come back on %s: %v", p.Store.Addr(), err)
			}
		})
	})
	t.Run("Hung", func(t *testing.T) {
		outage(t, p.Store.Hang, p.Store.Unhang)
	})

	t.Run("QueuedOnOneTurn", func(t *testing.T) {
		// Eight concurrent decisions on one turn while the server is down
		// (an agent's parallel tool calls): each must still answer 503
		// within the hang guard.
		const n = 8
		p.Store.Down()
		type got struct {
			status int
			err    error
			took   time.Duration
		}
		results := make([]got, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				t0 := time.Now()
				status, _, err := miDo(p.A, "POST", "/v1/turns/"+turnID+"/decisions", miDecisionBody(fmt.Sprintf("call-queued-%d", i), miReadFile))
				results[i] = got{status, err, time.Since(t0)}
			})
		}
		wg.Wait()
		if err := p.Store.Up(); err != nil {
			t.Fatal(err)
		}
		hung := 0
		var took []string
		for _, r := range results {
			if r.err != nil {
				hung++
			} else if r.status != http.StatusServiceUnavailable {
				t.Errorf("queued decision: %d, want 503", r.status)
			}
			took = append(took, r.took.Round(100*time.Millisecond).String())
		}
		slices.Sort(took)
		miFailIf(t, hung > 0,
			"%d of %d concurrent decisions on one turn got no answer within the %v hang guard while the store was down "+
				"(answers after %v): callers queue on the turn's lock and each spends the full --store-timeout %s inside it, so the k-th caller answers "+
				"after k × the store timeout",
			hung, n, miHangGuard, took, miStoreTimeout)
		waitUntil(t, "A ready again", func() (bool, string) {
			status, body, err := miDo(p.A, "GET", "/readyz", nil)
			return err == nil && status == http.StatusOK, fmt.Sprintf("%d %s %v", status, body, err)
		})
	})
}

package tests

// Scale-out, end to end: the test process hosts one esdbtest EventStoreDB
// server (the real gRPC protocol on loopback TCP) and starts two `turnstile
// serve --store esdb://…` processes on it; the tests drive both over HTTP.
// The real v4 client inside the binary talks to the server: no mocks.
//
// Deadlines in these tests are hang guards (miHangGuard, 15s, against a 2s
// --store-timeout) or bounds on polls of eventually consistent read models
// (miEventually); nothing asserts a duration.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"turnstile/internal/esdbtest"
)

// checkChain checks that evs is a whole turn history: versions 0…n-1 with no
// gap, and every event's prev_hash the previous event's hash.
func checkChain(t *testing.T, who string, evs []miEvent) {
	t.Helper()
	if b := miChainBreak(evs); b != "" {
		t.Errorf("%s: the audit chain is broken: %s", who, b)
	}
}

// sameHistory checks that two instances serve the same stored history.
func sameHistory(t *testing.T, a, b []miEvent) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("A serves %d events, B %d:\nA %s\nB %s", len(a), len(b), miTypes(a), miTypes(b))
	}
	for i := range a {
		if a[i].EventID != b[i].EventID || a[i].Hash != b[i].Hash || a[i].Position != b[i].Position {
			t.Fatalf("event %d differs: A %+v, B %+v", i, a[i], b[i])
		}
	}
}

// miApprovalFlow is scenario 1 on a (the agent's instance) and b (the
// approver's). With a == b it is the same flow on one instance. It returns
// a transcript of the API's answers (statuses, decisions, reasons, versions,
// resolutions, event types), the same for every store.
func miApprovalFlow(t *testing.T, a, b *Server, turnID string) []string {
	t.Helper()
	var tr []string
	log := func(format string, args ...any) { tr = append(tr, fmt.Sprintf(format, args...)) }

	// A turn started through A is visible through B.
	started := miStartTurn(t, a, turnID)
	if started.Turn.Status != "in_progress" || started.Turn.Version != 2 {
		t.Fatalf("started: %+v", started.Turn)
	}
	log("start: %s v%d %s", started.Turn.Status, started.Turn.Version, started.Turn.Profile.Mode)
	seen := miWaitTurnVersion(t, b, turnID, started.Turn.Version)
	if seen.Turn.Status != "in_progress" || seen.Turn.Profile.Mode != "supervised" {
		t.Fatalf("B sees %+v", seen.Turn)
	}

	read := miDecide(t, a, turnID, "call-read", miReadFile)
	if read.Decision != "allow" || read.Version != 3 {
		t.Fatalf("read_file: %+v", read)
	}
	log("read_file: %s %s v%d", read.Decision, read.Reason, read.Version)

	// A request opened through A …
	ask := miDecide(t, a, turnID, "call-make-1", miExec("build"))
	if ask.Decision != "ask" || ask.Request == nil || ask.RequestStatus != "pending" {
		t.Fatalf("exec_command: %+v", ask)
	}
	rid := ask.Request.RequestID
	log("exec_command: %s %s v%d %s", ask.Decision, ask.Reason, ask.Version, ask.RequestStatus)

	// … is listed through B (its projection follows a catch-up
	// subscription, so eventually) and resolvable through B.
	miWaitPending(t, b, turnID, rid)
	var resp miRespond
	miCall(t, b, "POST", "/v1/approvals/"+rid+"/respond", map[string]string{"resolution": "allow_for_turn"}, http.StatusOK, &resp)
	if resp.RequestID != rid || resp.Resolution != "allow_for_turn" || resp.Replayed {
		t.Fatalf("respond through B: %+v", resp)
	}
	log("respond: %s replayed=%v", resp.Resolution, resp.Replayed)
	// The same answer again is a replay; another answer is refused.
	miCall(t, b, "POST", "/v1/approvals/"+rid+"/respond", map[string]string{"resolution": "allow_for_turn"}, http.StatusOK, &resp)
	if !resp.Replayed {
		t.Fatalf("repeated respond: %+v", resp)
	}
	var conflict miAPIError
	miCall(t, b, "POST", "/v1/approvals/"+rid+"/respond", map[string]string{"resolution": "deny"}, http.StatusConflict, &conflict)
	if conflict.Error.Code != "already_resolved" || conflict.Error.Details["resolution"] != "allow_for_turn" {
		t.Fatalf("respond deny after allow_for_turn: %+v", conflict)
	}
	log("respond again: replayed; deny: 409 %s %v", conflict.Error.Code, conflict.Error.Details["resolution"])

	// A sees it resolved (a long poll that returns once A's read model has
	// the resolution), and no longer lists it as pending.
	miWait(t, "A sees "+rid+" resolved", func() (bool, string) {
		status, data, err := miDo(a, "GET", "/v1/approvals/"+rid+"?wait=5s", nil)
		if err != nil || status != http.StatusOK {
			return false, fmt.Sprintf("%d %s %v", status, data, err)
		}
		var v miApproval
		_ = json.Unmarshal(data, &v)
		return v.Status == "resolved" && v.Resolution == "allow_for_turn", string(data)
	})
	if list, err := miPending(a, turnID); err != nil || len(list) != 0 {
		t.Fatalf("A still lists pending approvals: %+v %v", list, err)
	}

	// A later identical call through A is allowed from the grant: A's
	// cached turn did not have the resolution; its append reports it stale
	// and it catches up.
	granted := miDecide(t, a, turnID, "call-make-2", miExec("build"))
	if granted.Decision != "allow" || granted.Reason != "cached_approval" || !granted.Cached || granted.Replayed || granted.Version != 6 {
		t.Fatalf("identical call after allow_for_turn: %+v", granted)
	}
	log("exec_command again: %s %s cached=%v by %s v%d", granted.Decision, granted.Reason, granted.Cached, granted.DecidedBy, granted.Version)
	// The grant is for that scope only.
	other := miDecide(t, a, turnID, "call-make-3", miExec("test"))
	if other.Decision != "ask" || other.Request == nil {
		t.Fatalf("another command: %+v", other)
	}
	log("another exec_command: %s v%d", other.Decision, other.Version)

	// Ending the turn through B cancels the open request; A refuses the next
	// call (access ends with the turn) once its append reports it stale.
	miWaitPending(t, b, turnID, other.Request.RequestID)
	var ended miTurn
	miCall(t, b, "POST", "/v1/turns/"+turnID+"/complete", map[string]string{"reason": "done"}, http.StatusOK, &ended)
	log("complete: %s v%d", ended.Turn.Status, ended.Turn.Version)
	var refused miAPIError
	miCall(t, a, "POST", "/v1/turns/"+turnID+"/decisions", miDecisionBody("call-read-2", miReadFile), http.StatusUnprocessableEntity, &refused)
	if refused.Error.Code != "illegal_transition" {
		t.Fatalf("decision after the turn ended elsewhere: %+v", refused)
	}
	log("decision after completion: 422 %s", refused.Error.Code)

	// One history, the same through both instances, chained.
	evA, evB := miEvents(t, a, turnID), miEvents(t, b, turnID)
	sameHistory(t, evA, evB)
	checkChain(t, "history", evA)
	want := []string{"turn.started", "permission.profile_selected", "permission.security_snapshot_resolved",
		"permission.decision_allowed", "permission.approval_requested", "permission.approval_resolved",
		"permission.decision_allowed", "permission.approval_requested", "permission.approval_resolved", "turn.completed"}
	var got []string
	for _, e := range evA {
		got = append(got, e.Type)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("history %s, want %v", miTypes(evA), want)
	}
	log("history: %s", strings.Join(got, " "))
	final := miWaitTurnVersion(t, a, turnID, int64(len(want)-1))
	if final.Turn.Status != "completed" {
		t.Fatalf("A's read model: %+v", final.Turn)
	}
	return tr
}

// TestMultiInstanceApprovalFlow: a turn started through A is visible through
// B; a request opened through A is listed and resolved through B; A sees the
// resolution, and A's stale cached turn catches up so that the grant
// (allow_for_turn) allows the next identical call.
func TestMultiInstanceApprovalFlow(t *testing.T) {
	p := miStartPair(t)
	miApprovalFlow(t, p.A, p.B, "flow-1")
}

// TestMultiEmbeddedParity runs the same approval flow on one instance with
// the embedded store and on one instance with the EventStoreDB store: the
// API answers the same, step by step.
func TestMultiEmbeddedParity(t *testing.T) {
	token := miToken(t)
	embedded := StartServer(t, miDataDir(t, token))
	onEmbedded := miApprovalFlow(t, embedded, embedded, "parity-1")

	store := esdbtest.Start(t)
	esdb := miStartESDB(t, store, token)
	onESDB := miApprovalFlow(t, esdb, esdb, "parity-1")
	if !slices.Equal(onEmbedded, onESDB) {
		t.Fatalf("the stores answer differently:\nembedded:\n  %s\nEventStoreDB:\n  %s",
			strings.Join(onEmbedded, "\n  "), strings.Join(onESDB, "\n  "))
	}
	t.Logf("both stores:\n  %s", strings.Join(onESDB, "\n  "))
}

// TestMultiInstanceConcurrentResponses: 32 concurrent responses to one
// request, half through each instance, with a mix of resolutions, store
// exactly one permission.approval_resolved; the callers whose resolution
// won get 200, every other gets 409 already_resolved naming the winner.
func TestMultiInstanceConcurrentResponses(t *testing.T) {
	p := miStartPair(t)
	const turnID = "race-1"
	miStartTurn(t, p.A, turnID)
	ask := miDecide(t, p.A, turnID, "call-deploy", miExec("deploy"))
	if ask.Decision != "ask" || ask.Request == nil {
		t.Fatalf("exec_command: %+v", ask)
	}
	rid := ask.Request.RequestID
	miWaitPending(t, p.B, turnID, rid)

	resolutions := []string{"allow_once", "allow_for_turn", "deny"}
	const n = 32
	type result struct {
		via, resolution string
		status          int
		body            []byte
		err             error
	}
	results := make([]result, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		s, via := p.A, "A"
		if i%2 == 1 {
			s, via = p.B, "B"
		}
		res := resolutions[i%len(resolutions)]
		wg.Go(func() {
			<-start
			status, body, err := miDo(s, "POST", "/v1/approvals/"+rid+"/respond", map[string]string{"resolution": res})
			results[i] = result{via, res, status, body, err}
		})
	}
	close(start)
	wg.Wait()

	evA, evB := miEvents(t, p.A, turnID), miEvents(t, p.B, turnID)
	sameHistory(t, evA, evB)
	if c := miCountType(evA, "permission.approval_resolved"); c != 1 {
		t.Fatalf("%d approval_resolved events, want 1: %s", c, miTypes(evA))
	}
	var winner string
	for _, e := range evA {
		if e.Type == "permission.approval_resolved" {
			var d struct {
				RequestID  string `json:"request_id"`
				Resolution string `json:"resolution"`
			}
			if err := json.Unmarshal(e.Data, &d); err != nil || d.RequestID != rid {
				t.Fatalf("resolved event %s: %v", e.Data, err)
			}
			winner = d.Resolution
		}
	}
	fresh := 0
	for i, r := range results {
		if r.err != nil {
			t.Errorf("caller %d (%s via %s): %v", i, r.resolution, r.via, r.err)
			continue
		}
		if r.resolution == winner {
			var ok miRespond
			if r.status != http.StatusOK || json.Unmarshal(r.body, &ok) != nil || ok.Resolution != winner || ok.RequestID != rid {
				t.Errorf("caller %d (winning %s via %s): %d %s, want 200", i, r.resolution, r.via, r.status, r.body)
			}
			if !ok.Replayed {
				fresh++
			}
			continue
		}
		var e miAPIError
		if r.status != http.StatusConflict || json.Unmarshal(r.body, &e) != nil || e.Error.Code != "already_resolved" ||
			e.Error.Details["resolution"] != winner || e.Error.Details["request_id"] != rid {
			t.Errorf("caller %d (%s via %s): %d %s, want 409 already_resolved naming %s", i, r.resolution, r.via, r.status, r.body, winner)
		}
	}
	t.Logf("winner %s; %d winning callers were told replayed=false", winner, fresh)

	// Both read models settle on the winner.
	for _, s := range []*Server{p.A, p.B} {
		miWait(t, s.URL+" shows the winner", func() (bool, string) {
			status, data, err := miDo(s, "GET", "/v1/approvals/"+rid, nil)
			var v miApproval
			_ = json.Unmarshal(data, &v)
			return err == nil && status == http.StatusOK && v.Status == "resolved" && v.Resolution == winner, string(data)
		})
	}

	// Both instances' cached turns are still good: one more decision through
	// each appends to a consecutive, chained history.
	da := miDecide(t, p.A, turnID, "call-after-a", miReadFile)
	db := miDecide(t, p.B, turnID, "call-after-b", miReadFile)
	if da.Version != 5 || db.Version != 6 {
		t.Errorf("decisions after the race: A v%d, B v%d, want v5, v6", da.Version, db.Version)
	}
	evs := miEvents(t, p.B, turnID)
	chain := miChainBreak(evs)
	miFailIf(t, fresh > 1 || chain != "",
		"the race let %d callers of the winning resolution be told replayed=false (want exactly 1), chain: %q. An instance whose "+
			"cached turn had the request open appended the same resolution (same deterministic event id) at its stale expected "+
			"version; the store took it as an idempotent replay and the instance folded its own copy into its cache "+
			"in the engine, so its next append chains to a hash the store does not have. "+
			"TestMultiInstanceStaleCommands/SameAnswerThroughBoth reproduces it deterministically",
		fresh, chain)
	if fresh != 1 {
		t.Errorf("%d winning callers were told replayed=false, want 1", fresh)
	}
	checkChain(t, "after the race", evs)
}

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
			d           miDecision
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
		var reused miAPIError
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
				var d miDecision
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
		started := s.waitFor(t, "turn/started of "+turnID, func(e miSSEEvent) bool {
			return e.Event == "turn/started" && e.Data.Params["turn_id"] == turnID
		})
		opened := s.waitFor(t, "turn/permission/request/opened of "+rid, func(e miSSEEvent) bool {
			req, _ := e.Data.Params["request"].(map[string]any)
			return e.Event == "turn/permission/request/opened" && req != nil && req["request_id"] == rid
		})
		resolved := s.waitFor(t, "turn/permission/request/resolved of "+rid, func(e miSSEEvent) bool {
			return e.Event == "turn/permission/request/resolved" && e.Data.Params["request_id"] == rid
		})
		if opened.Data.Method != "turn/permission/request/opened" || resolved.Data.Params["resolution"] != "allow_once" ||
			resolved.Data.Params["turn_id"] != turnID {
			t.Errorf("%s: opened %+v, resolved %+v", s.name, opened.Data, resolved.Data)
		}
		// In store order: started, opened, resolved.
		idx := func(e miSSEEvent) int {
			return slices.IndexFunc(s.seen, func(x miSSEEvent) bool { return x.ID == e.ID })
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
			{"start a turn (A)", "POST", "/v1/turns", p.A, miStartBody(fmt.Sprintf("down-new-%d", phase), miWorkspace(t))},
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
			var e miAPIError
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
			miWait(t, s.URL+" ready again", func() (bool, string) {
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
		miWait(t, "A ready again", func() (bool, string) {
			status, body, err := miDo(p.A, "GET", "/readyz", nil)
			return err == nil && status == http.StatusOK, fmt.Sprintf("%d %s %v", status, body, err)
		})
	})
}

package tests

// Commands on an instance whose cached turn is stale: the other instance has
// appended since this one last touched the turn. The design (DESIGN.md,
// "Principles") caches a turn at its version and catches it up "only when a
// conflict says it is stale", so a command decided on a stale cache must
// either reach the store with its expected version (and be told it is
// stale) or be right anyway. Each subtest below is a case where it is
// neither. Each subtest asserts the right behaviour; its failure message
// (miFailIf) says which wrong behaviour came back.

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"
)

// miCacheThroughB makes B cache the turn: one decision through B.
func miCacheThroughB(t *testing.T, b *Server, turnID string) {
	t.Helper()
	if d := miDecide(t, b, turnID, "call-b-caches", miReadFile); d.Decision != "allow" {
		t.Fatalf("read_file through B: %+v", d)
	}
}

// TestMultiInstanceStaleCommands runs commands through B after B cached the
// turn and A moved it on.
func TestMultiInstanceStaleCommands(t *testing.T) {
	p := miStartPair(t)

	t.Run("RespondToARequestOpenedElsewhere", func(t *testing.T) {
		const turnID = "stale-respond"
		miStartTurn(t, p.A, turnID)
		miCacheThroughB(t, p.B, turnID)
		ask := miDecide(t, p.A, turnID, "call-ask", miExec("build"))
		if ask.Request == nil {
			t.Fatalf("exec_command: %+v", ask)
		}
		rid := ask.Request.RequestID
		miWaitPending(t, p.B, turnID, rid) // B's read model has it; B's cached turn does not
		status, body, err := miDo(p.B, "POST", "/v1/approvals/"+rid+"/respond", map[string]string{"resolution": "allow_once"})
		if err != nil {
			t.Fatal(err)
		}
		var e errorBody
		_ = json.Unmarshal(body, &e)
		miFailIf(t, status == http.StatusNotFound && e.Error.Code == "not_found",
			"POST /v1/approvals/%s/respond through B, which lists the request as pending, answers 404 %s (%q) when B's cached turn "+
				"predates the request: the engine decides RespondApproval on the cached state without catching up, "+
				"the decider returns NotFoundError, and nothing is appended that could report the cache stale",
			rid, e.Error.Code, e.Error.Message)
		if status != http.StatusOK {
			t.Fatalf("respond through B: %d %s, want 200", status, body)
		}
		evs := miEvents(t, p.A, turnID)
		if miCountType(evs, "permission.approval_resolved") != 1 {
			t.Fatalf("history: %s", miTypes(evs))
		}
		checkChain(t, "history", evs)
	})

	t.Run("ChangeProfileBack", func(t *testing.T) {
		const turnID = "stale-profile"
		miStartTurn(t, p.A, turnID)
		miCacheThroughB(t, p.B, turnID)
		var changed turnAnswer
		miCall(t, p.A, "POST", "/v1/turns/"+turnID+"/permissions",
			map[string]any{"permission_profile": map[string]any{"mode": "full_access"}}, http.StatusOK, &changed)
		if changed.Turn.Profile.Mode != "full_access" {
			t.Fatalf("change through A: %+v", changed.Turn)
		}
		miWaitTurnVersion(t, p.B, turnID, changed.Turn.Version)
		// Back to the profile the turn started with, through B.
		var back turnAnswer
		miCall(t, p.B, "POST", "/v1/turns/"+turnID+"/permissions",
			map[string]any{"permission_profile": map[string]any{"mode": "supervised", "denied_tools": []string{"web_fetch"}}}, http.StatusOK, &back)
		evs := miEvents(t, p.A, turnID)
		miFailIf(t, back.Turn.Profile.Mode == "full_access" && miCountType(evs, "permission.profile_changed") == 1,
			"POST /v1/turns/%s/permissions {supervised} through B answers 200 with mode %q and appends nothing (history %s): "+
				"B's cached turn still has the starting (supervised) snapshot, so the decider finds the request "+
				"equal to it and returns Replayed without an append; the turn stays full_access",
			turnID, back.Turn.Profile.Mode, miTypes(evs))
		if back.Turn.Profile.Mode != "supervised" || miCountType(evs, "permission.profile_changed") != 2 {
			t.Fatalf("change back through B answered mode %q at v%d; history %s; want supervised with a second profile_changed",
				back.Turn.Profile.Mode, back.Turn.Version, miTypes(evs))
		}
		if d := miDecide(t, p.A, turnID, "call-after-change", miWebFetch); d.Decision != "deny" {
			t.Fatalf("web_fetch after changing back to supervised (web_fetch denied): %+v", d)
		}
	})

	t.Run("ExecApprovedElsewhere", func(t *testing.T) {
		// The agent runs a command through A; a person approves it through
		// B; the agent sends the same call to A again. (On one instance the
		// same steps answer 200 with the command run.)
		const turnID = "stale-exec"
		miStartTurn(t, p.A, turnID)
		exec := map[string]any{"tool_call_id": "call-run", "argv": []string{"true"}}
		var first decisionAnswer
		miCall(t, p.A, "POST", "/v1/turns/"+turnID+"/exec", exec, http.StatusAccepted, &first)
		if first.Decision != "ask" || first.Request == nil {
			t.Fatalf("exec through A: %+v", first)
		}
		rid := first.Request.RequestID
		miWaitPending(t, p.B, turnID, rid)
		miCall(t, p.B, "POST", "/v1/approvals/"+rid+"/respond", map[string]string{"resolution": "allow_once"}, http.StatusOK, nil)
		status, body, err := miDo(p.A, "POST", "/v1/turns/"+turnID+"/exec?wait=10s", exec)
		if err != nil {
			t.Fatal(err)
		}
		var e errorBody
		_ = json.Unmarshal(body, &e)
		miFailIf(t, status == http.StatusConflict && e.Error.Code == "not_approved",
			"POST /v1/turns/%s/exec through A after the request was approved through B answers 409 %s (%q): A "+
				"decides the run on A's cached turn, where the request is still open, and nothing is appended",
			turnID, e.Error.Code, e.Error.Message)
		var out struct {
			decisionAnswer
			Ran bool `json:"ran"`
		}
		_ = json.Unmarshal(body, &out)
		if status != http.StatusOK || out.Decision == "ask" {
			t.Fatalf("exec through A after approval through B: %d %s, want 200 (ran, or refused by the sandbox)", status, body)
		}
	})

	t.Run("SameAnswerThroughBoth", func(t *testing.T) {
		// Two approvers give the same answer, one through each instance;
		// B's cached turn has the request open.
		const turnID = "stale-same-answer"
		miStartTurn(t, p.A, turnID)
		ask := miDecide(t, p.A, turnID, "call-ask", miExec("build"))
		if ask.Request == nil {
			t.Fatalf("exec_command: %+v", ask)
		}
		rid := ask.Request.RequestID
		miCacheThroughB(t, p.B, turnID) // after the request: B's cache has it open
		var ra, rb respondAnswer
		miCall(t, p.A, "POST", "/v1/approvals/"+rid+"/respond", map[string]string{"resolution": "allow_once"}, http.StatusOK, &ra)
		miCall(t, p.B, "POST", "/v1/approvals/"+rid+"/respond", map[string]string{"resolution": "allow_once"}, http.StatusOK, &rb)
		next := miDecide(t, p.B, turnID, "call-b-next", miReadFile)
		evs := miEvents(t, p.A, turnID)
		if miCountType(evs, "permission.approval_resolved") != 1 || next.Version != int64(len(evs)-1) {
			t.Fatalf("history %s; B's next decision at v%d", miTypes(evs), next.Version)
		}
		chain := miChainBreak(evs)
		miFailIf(t, !rb.Replayed || chain != "",
			"the same resolution through B after A stored it answers replayed=%v (want true), and B's next append breaks the "+
				"audit chain (%s): B's resolved event has the stored one's deterministic id, the store accepts B's append at its "+
				"stale expected version as an idempotent replay, and the engine folds B's own copy "+
				"(another occurred_at, another hash) into B's cache",
			rb.Replayed, chain)
		if ra.Replayed || !rb.Replayed {
			t.Errorf("A replayed=%v, B replayed=%v; want false, true", ra.Replayed, rb.Replayed)
		}
		checkChain(t, "history", evs)
	})
}

// TestMultiInstanceExpiryWhenTheOpenerIsGone: a request opened through A
// expires through B's sweeper once A is gone.
func TestMultiInstanceExpiryWhenTheOpenerIsGone(t *testing.T) {
	const ttl = 2 * time.Second
	p := miStartPair(t, "--approval-ttl", ttl.String())
	const turnID = "stale-expiry"
	miStartTurn(t, p.A, turnID)
	miCacheThroughB(t, p.B, turnID)
	ask := miDecide(t, p.A, turnID, "call-ask", miExec("build"))
	if ask.Request == nil {
		t.Fatalf("exec_command: %+v", ask)
	}
	rid := ask.Request.RequestID
	p.A.Kill() // at once, long before the request is due: only B can expire it
	miWaitPending(t, p.B, turnID, rid)

	// B sweeps every ttl/10 (at least 100ms). The bound below is a guard
	// (six TTLs past the expiry), not a timing assertion.
	deadline := time.Now().Add(6 * ttl)
	var last approvalView
	for time.Now().Before(deadline) {
		status, data, err := miDo(p.B, "GET", "/v1/approvals/"+rid+"?wait=2s", nil)
		if err == nil && status == http.StatusOK {
			last = approvalView{}
			_ = json.Unmarshal(data, &last)
			if last.Status == "resolved" {
				break
			}
		}
	}
	evs := miEvents(t, p.B, turnID)
	miFailIf(t, last.Status == "pending",
		"request %s, opened through A (since killed) with a %v TTL, is still pending through B after polling B for %v; B's "+
			"sweeper lists it from B's read model but runs ExpireApprovals on B's cached turn, which predates the request: "+
			"the decider finds no open request, no event is appended, and nothing ever reports the cache stale "+
			"(history %s)",
		rid, ttl, 6*ttl, miTypes(evs))
	if last.Status != "resolved" || last.Resolution != "expired" {
		t.Fatalf("request through B: %+v, want resolved as expired", last)
	}
	checkChain(t, "history", evs)
}

package egress

import (
	"context"
	"slices"
	"testing"
	"time"

	"turnstile/domain"
	"turnstile/domain/turn"
)

// The hundred-and-fiftieth review (medium): connections that ask the same
// question share one approval request (asks.go), and the question is
// keyed by turn, method and origin only (EngineJudge.Decide: askKey{turnID,
// method+" "+rawURL}), not by the principal the connection is made for.
// A connection that joins another principal's open question never runs
// EngineJudge.decide for itself: its principal's byte quota (Admit) is
// never checked, no decision is recorded as its own, and the person's
// answer to the other principal's request (the request names that
// principal as its actor) lets it through. The README: "Each connection
// is judged as a web_fetch decision … the actor is the credential the
// proxy URL was given to", "A decision reused so is the principal's own:
// another credential's first connection to the origin is decided, and
// recorded, for it", and a principal past its byte quota has "each new
// connection … decided (and refused, quota_exceeded)".
//
// The agent (runtime credential "agent", past its byte quota) waits for
// a connection of another principal ("other": a second runtime of the
// workspace, or an admin's /exec in the turn) to ask a person about an
// origin, and opens its own connection to the same origin: it joins that
// request.

var (
	sharedAskAgent = domain.Actor{Name: "agent", Role: domain.RoleRuntime}
	sharedAskOther = domain.Actor{Name: "other", Role: domain.RoleRuntime}
)

// overQuota is an Admit that refuses the agent (past its byte quota) and
// admits everyone else, as api.HeldBytesQuota does for a credential
// whose events in live turns hold --max-held-bytes.
func overQuota(_ string, by domain.Actor) error {
	if by == sharedAskAgent {
		return &domain.QuotaError{Quota: domain.QuotaHeldBytes, Limit: 1, Of: by.Name}
	}
	return nil
}

// decideAs runs one Decide for by, its verdict on the channel.
func decideAs(ctx context.Context, j *EngineJudge, by domain.Actor, rawURL string) chan Verdict {
	out := make(chan Verdict, 1)
	go func() {
		v, err := j.Decide(WithActor(ctx, by), "t", rawURL, "GET")
		if err != nil {
			v = Verdict{Code: "error: " + err.Error()}
		}
		out <- v
	}()
	return out
}

func verdictWithin(t *testing.T, ch chan Verdict, what string) Verdict {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("no verdict for %s", what)
		return Verdict{}
	}
}

// TestAttack150_QuotaBypassThroughAnotherPrincipalsAsk: the agent past its
// byte quota is refused quota_exceeded on its own (control), but its
// connection to an origin another principal is asking about joins that
// request and is carried when the person grants it.
func TestAttack150_QuotaBypassThroughAnotherPrincipalsAsk(t *testing.T) {
	eng, j := judgeOnEngine(t)
	j.Admit = overQuota
	const u = "https://asked.test:443/"

	// Control: the agent asking alone is refused at once, quota_exceeded.
	if v := verdictWithin(t, decideAs(context.Background(), j, sharedAskAgent, "https://alone.test:443/"), "the agent alone"); v.Allow || v.Code != "quota_exceeded" {
		t.Fatalf("control: the agent past its quota was not refused quota_exceeded: %+v", v)
	}
	if all, _ := requests(t, eng); len(all) != 0 {
		t.Fatalf("control: the refused agent opened %d requests", len(all))
	}

	other := decideAs(context.Background(), j, sharedAskOther, u)
	waitFor(t, "the other principal's request", func() bool { _, open := requests(t, eng); return len(open) == 1 && waiting(j) == 1 })
	agent := decideAs(context.Background(), j, sharedAskAgent, u)
	// The agent's connection is refused at once (quota_exceeded), or
	// waits on a question of its own; it must not wait on the other's.
	var early *Verdict
	waitFor(t, "the agent's connection to be decided or to wait", func() bool {
		select {
		case v := <-agent:
			early = &v
			return true
		default:
		}
		return waiting(j) == 2
	})
	_, open := requests(t, eng)
	if len(open) != 1 {
		t.Fatalf("want the other principal's one open request, got %d", len(open))
	}
	respond(t, eng, open[0], domain.ResolutionAllowForTurn)
	if v := verdictWithin(t, other, "the other principal"); !v.Allow {
		t.Fatalf("control: the other principal's connection, granted, was refused: %+v", v)
	}
	v := Verdict{}
	if early != nil {
		v = *early
	} else {
		v = verdictWithin(t, agent, "the agent")
	}
	if v.Allow {
		t.Errorf("the agent, past its byte quota (refused quota_exceeded on its own), had its connection let through by joining another principal's approval request: %+v", v)
	}
}

// TestAttack150_AllowOnceOfAnotherPrincipalTaken: a person's allow_once of
// a request another principal's connection opened (its actor is that
// principal) lets the agent's connection through, one the person was
// never asked about and no decision records as the agent's.
func TestAttack150_AllowOnceOfAnotherPrincipalTaken(t *testing.T) {
	eng, j := judgeOnEngine(t)
	const u = "https://asked.test:443/"

	// The other principal's connection asks, then gives up (its command's
	// timeout); the question stays open for the person (asks.go).
	octx, ocancel := context.WithCancel(context.Background())
	other := decideAs(octx, j, sharedAskOther, u)
	waitFor(t, "the other principal's request", func() bool { _, open := requests(t, eng); return len(open) == 1 && waiting(j) == 1 })
	ocancel()
	if v := verdictWithin(t, other, "the other principal"); v.Allow {
		t.Fatalf("setup: the other principal's connection was allowed before any answer: %+v", v)
	}
	_, open := requests(t, eng)
	if len(open) != 1 {
		t.Fatalf("setup: want one open request, got %d", len(open))
	}
	otherReq := open[0]
	if by := askerOf(t, eng, otherReq); by != sharedAskOther.Name {
		t.Fatalf("setup: request %s was asked by %q, want %q", otherReq, by, sharedAskOther.Name)
	}

	actx, acancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer acancel()
	agent := decideAs(actx, j, sharedAskAgent, u)
	waitFor(t, "the agent's connection to wait", func() bool {
		_, open := requests(t, eng)
		return waiting(j) == 2 || len(open) == 2
	})
	respond(t, eng, otherReq, domain.ResolutionAllowOnce)
	v := verdictWithin(t, agent, "the agent")
	if v.Allow && v.Rule == "approval "+otherReq {
		t.Errorf("the person's allow_once of request %s (asked for %s's connection) let the agent's connection through: %+v", otherReq, sharedAskOther.Name, v)
	}

	// Control: the agent's own question, answered allow_once, lets its
	// connection through.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel2()
	const u2 = "https://mine.test:443/"
	before, _ := requests(t, eng)
	mine := decideAs(ctx2, j, sharedAskAgent, u2)
	waitFor(t, "the agent's own request", func() bool { return waiting(j) >= 1 && openFor(t, eng, sharedAskAgent, before) != "" })
	respond(t, eng, openFor(t, eng, sharedAskAgent, before), domain.ResolutionAllowOnce)
	if v := verdictWithin(t, mine, "the agent's own"); !v.Allow {
		t.Fatalf("control: the agent's own request answered allow_once did not let it through: %+v", v)
	}
}

// waiting is how many connections wait on the turn's questions, whatever
// a question's key holds.
func waiting(j *EngineJudge) int {
	j.asks.mu.Lock()
	defer j.asks.mu.Unlock()
	n := 0
	for k, a := range j.asks.m {
		if k.turnID == "t" {
			n += a.joined
		}
	}
	return n
}

type viewer interface {
	View(context.Context, string, func(*turn.State) error) error
}

// askerOf is the name of the principal whose decision opened request id.
func askerOf(t *testing.T, eng viewer, id string) string {
	t.Helper()
	by := ""
	if err := eng.View(context.Background(), "t", func(s *turn.State) error {
		if a := s.Approvals[id]; a != nil {
			if c := s.Calls[a.ToolCallID]; c != nil {
				by = c.By
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return by
}

// openFor is an open request asked by by, not one of old ("" for none).
func openFor(t *testing.T, eng viewer, by domain.Actor, old []string) string {
	t.Helper()
	id := ""
	if err := eng.View(context.Background(), "t", func(s *turn.State) error {
		for rid, a := range s.Approvals {
			if c := s.Calls[a.ToolCallID]; a.Status == turn.RequestOpen && c != nil && c.By == by.Name && !slices.Contains(old, rid) {
				id = rid
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return id
}

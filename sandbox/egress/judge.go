package egress

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
)

// EngineJudge judges connections through the engine: each decision is an
// EvaluateTool of web_fetch on the connection's origin (method GET for a
// CONNECT tunnel, the request's method for plain HTTP), so the turn's
// policy, its allow_for_turn grants and its approval requests apply exactly
// as they do to a runtime's own web_fetch decision, and every decision is
// an event on the turn (decision_allowed, decision_denied,
// approval_requested).
type EngineJudge struct {
	Engine *engine.Engine
	// Now is the clock the events are stamped with.
	Now func() time.Time
	// Poll is how often a held connection looks at its approval request.
	Poll time.Duration
	// TTL is how long an approval request a connection opens stays open.
	TTL time.Duration
}

// Actor is who the proxy's decisions are recorded as.
var Actor = domain.Actor{Name: "egress-proxy", Role: "system"}

// Snapshot implements Judge. The version is the snapshot's (the event it
// came from): it moves only when the profile changes, which is also the
// only thing that takes a grant away.
func (j *EngineJudge) Snapshot(ctx context.Context, turnID string) (*domain.TurnExecutionSecuritySnapshot, int64, error) {
	var snap domain.TurnExecutionSecuritySnapshot
	var ver int64
	err := j.Engine.View(ctx, turnID, func(s *turn.State) error {
		if s.Status == turn.StatusNone {
			return errors.New("no such turn")
		}
		if s.Status.Terminal() {
			return errors.New("the turn has ended: its network access ended with it")
		}
		snap, ver = s.Snapshot, s.SnapshotVersion
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return &snap, ver, nil
}

// Record implements Judge: an egress.traffic event on the turn.
func (j *EngineJudge) Record(ctx context.Context, turnID, id string, t turn.EgressTraffic) error {
	_, err := j.Engine.Execute(ctx, turnID, &turn.RecordEgress{Meta: turn.Meta{Now: j.Now().UTC(), Actor: Actor}, ID: id, Traffic: t})
	return err
}

// Decide implements Judge.
func (j *EngineJudge) Decide(ctx context.Context, turnID, rawURL, method string) (Verdict, error) {
	args, _ := json.Marshal(map[string]string{"url": rawURL, "method": method})
	id := make([]byte, 12)
	rand.Read(id)
	call := "egress-" + hex.EncodeToString(id)
	res, err := j.Engine.Execute(ctx, turnID, &turn.EvaluateTool{
		Meta: turn.Meta{Now: j.Now().UTC(), Actor: Actor, CorrelationID: call}, ToolCallID: call,
		Invocation: domain.Invocation{ToolName: "web_fetch", Arguments: args}, TTL: j.TTL,
	})
	if err != nil {
		return Verdict{}, err
	}
	d := res.Decision
	switch d.Behavior {
	case domain.BehaviorAllow:
		return Verdict{Allow: true, Code: string(d.Reason), Rule: d.DecidedBy}, nil
	case domain.BehaviorAsk:
	default:
		code := string(d.Reason)
		if res.Refusal != "" {
			code = res.Refusal
		}
		return Verdict{Code: code, Rule: d.DecidedBy + ": " + string(d.Reason)}, nil
	}
	if res.Approval == nil {
		return Verdict{Code: "approval_missing", Rule: "the decision asked but opened no request"}, nil
	}
	reqID := res.Approval.Request.RequestID
	poll := j.Poll
	if poll <= 0 {
		poll = 50 * time.Millisecond
	}
	tk := time.NewTicker(poll)
	defer tk.Stop()
	for {
		var r turn.Approval
		err := j.Engine.View(ctx, turnID, func(s *turn.State) error {
			if q := s.Approvals[reqID]; q != nil {
				r = *q
			}
			return nil
		})
		if err != nil {
			return Verdict{}, err
		}
		if r.Request.RequestID != "" && r.Status != turn.RequestOpen {
			if r.Resolution.Allows() {
				return Verdict{Allow: true, Code: string(r.Resolution), Rule: "approval " + reqID, Once: r.Resolution == domain.ResolutionAllowOnce}, nil
			}
			return Verdict{Code: string(r.Resolution), Rule: "approval " + reqID + " resolved " + string(r.Resolution)}, nil
		}
		select {
		case <-ctx.Done():
			return Verdict{Code: "approval_pending", Rule: "approval " + reqID + " was not answered in time"}, nil
		case <-tk.C:
		}
	}
}

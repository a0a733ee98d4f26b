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
// EvaluateTool of web_fetch on the connection's origin, scope origin (any
// path), with the request's method (CONNECT for a tunnel, which may carry
// any method), so the turn's
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
	// Admit, when set, refuses a connection's decision before it is
	// recorded (the byte quota of the credential the decision is charged
	// to: by, the principal the connection is made for, or, for the
	// proxy's own (Actor), the one that started the turn:
	// api.HeldBytesQuota): every connection a command opens is otherwise
	// an event on the turn.
	Admit func(turnID string, by domain.Actor) error

	// asks are the open requests connections wait on, by question.
	asks asks
}

// Actor is who the proxy's decisions are recorded as when no principal is
// named for the connection (ActorOf): a ProxyURL without one.
var Actor = domain.Actor{Name: "egress-proxy", Role: "system"}

// Snapshot implements Judge. The version is the snapshot's (the event it
// came from): it moves only when the profile changes, which is also the
// only thing that takes a grant away.
func (j *EngineJudge) Snapshot(ctx context.Context, turnID string) (*domain.TurnExecutionSecuritySnapshot, int64, error) {
	var snap domain.TurnExecutionSecuritySnapshot
	var ver int64
	var parent string
	err := j.Engine.View(ctx, turnID, func(s *turn.State) error {
		if s.Status == turn.StatusNone {
			return errors.New("no such turn")
		}
		if s.Status.Terminal() {
			return errors.New("the turn has ended: its network access ended with it")
		}
		snap, ver, parent = s.Snapshot, s.SnapshotVersion, s.ParentTurnID
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	if parent != "" {
		// A child (or grandchild) of an ended turn carries nothing while
		// the end reaches it (Engine.refuseParentEnded); nor while a turn
		// above cannot be read.
		if a, err := j.Engine.EndedAncestor(ctx, parent); err != nil {
			return nil, 0, err
		} else if a != nil {
			return nil, 0, errors.New("a turn above this one has ended: its network access ended with it")
		}
	}
	return &snap, ver, nil
}

// Record implements Judge: an egress.traffic event on the turn, recorded
// as the principal the connections were made for (ActorOf). A summary is
// the record of what was carried, so it is recorded past the principal's
// byte quota too; the quota's error is then returned, and the proxy stops
// carrying for that principal (Proxy.cutOff).
func (j *EngineJudge) Record(ctx context.Context, turnID, id string, t turn.EgressTraffic) error {
	by := ActorOf(ctx)
	var over error
	if j.Admit != nil {
		var q *domain.QuotaError
		if err := j.Admit(turnID, by); errors.As(err, &q) {
			over = err
		} else if err != nil {
			return err
		}
	}
	if _, err := j.Engine.Execute(ctx, turnID, &turn.RecordEgress{Meta: turn.Meta{Now: j.Now().UTC(), Actor: by}, ID: id, Traffic: t}); err != nil {
		return err
	}
	return over
}

// Decide implements Judge. Connections that ask the same question (the
// turn, the origin, the method, and the principal and credential whose
// proxy URL they came through) while its request is open share that one
// request (asks.go): a command that opens and drops connections in a loop
// leaves one request for the person, not one per connection. The
// principal is part of the question: a connection that joined another
// principal's request took that principal's answer, and was never decided
// (nor held to its byte quota) for its own (the hundred-and-fiftieth
// review).
func (j *EngineJudge) Decide(ctx context.Context, turnID, rawURL, method string) (Verdict, error) {
	key := askKey{turnID: turnID, question: batchPrefix(ActorOf(ctx), CredentialOf(ctx)) + method + " " + rawURL}
	pruned := false
	for {
		a, mine, v := j.asks.join(key, j.now(), j.TTL)
		if a == nil && !pruned {
			// At the limit: drop the questions whose requests a person
			// answered (or that expired) while no connection waited on
			// them, and try once more.
			pruned = true
			if err := j.pruneAnswered(ctx, turnID); err != nil {
				return Verdict{}, err
			}
			continue
		}
		if a == nil {
			return v, nil // too many of the turn's requests are open
		}
		if mine {
			v, reqID, err := j.decide(ctx, turnID, rawURL, method)
			j.asks.made(key, a, reqID)
			if err != nil || reqID == "" {
				return v, err
			}
		} else {
			select {
			case <-a.ready:
			case <-ctx.Done():
				return Verdict{Code: "approval_pending", Rule: "an approval request for " + method + " " + rawURL + " was not answered in time"}, nil
			}
			if a.reqID == "" {
				continue // that decision did not ask: decide anew
			}
		}
		v, retry, err := j.await(ctx, turnID, key, a)
		if !retry {
			return v, err
		}
	}
}

// decide records one web_fetch decision of the origin; reqID is the
// request it opened when it asks (v is then not the answer yet).
func (j *EngineJudge) decide(ctx context.Context, turnID, rawURL, method string) (v Verdict, reqID string, err error) {
	// The decision is recorded as the principal the connection is made
	// for, so that it counts for that principal's byte quota.
	by := ActorOf(ctx)
	if j.Admit != nil {
		var q *domain.QuotaError
		if err := j.Admit(turnID, by); errors.As(err, &q) {
			return Verdict{Code: "quota_exceeded", Rule: q.Error()}, "", nil
		} else if err != nil {
			return Verdict{}, "", err
		}
	}
	// scope origin: a connection may carry any path, and the person asked
	// is told so; the grant is not the one of the runtime's fetch of "/".
	args, _ := json.Marshal(map[string]string{"url": rawURL, "method": method, "scope": "origin"})
	id := make([]byte, 12)
	rand.Read(id)
	call := "egress-" + hex.EncodeToString(id)
	res, err := j.Engine.Execute(ctx, turnID, &turn.EvaluateTool{
		Meta: turn.Meta{Now: j.now().UTC(), Actor: by, CorrelationID: call}, ToolCallID: call,
		Invocation: domain.Invocation{ToolName: "web_fetch", Arguments: args}, TTL: j.TTL,
	})
	if err != nil {
		return Verdict{}, "", err
	}
	d := res.Decision
	switch d.Behavior {
	case domain.BehaviorAllow:
		return Verdict{Allow: true, Code: string(d.Reason), Rule: d.DecidedBy}, "", nil
	case domain.BehaviorAsk:
	default:
		code := string(d.Reason)
		if res.Refusal != "" {
			code = res.Refusal
		}
		return Verdict{Code: code, Rule: d.DecidedBy + ": " + string(d.Reason)}, "", nil
	}
	if res.Approval == nil {
		return Verdict{Code: "approval_missing", Rule: "the decision asked but opened no request"}, "", nil
	}
	return Verdict{}, res.Approval.Request.RequestID, nil
}

// await waits for a's request to be resolved. An allow_once lets one
// connection through: the first to see it; the others (retry) decide anew.
func (j *EngineJudge) await(ctx context.Context, turnID string, key askKey, a *ask) (v Verdict, retry bool, err error) {
	poll := j.Poll
	if poll <= 0 {
		poll = 50 * time.Millisecond
	}
	tk := time.NewTicker(poll)
	defer tk.Stop()
	for {
		var r turn.Approval
		var version int64
		err := j.Engine.View(ctx, turnID, func(s *turn.State) error {
			if q := s.Approvals[a.reqID]; q != nil {
				r = *q
			}
			version = s.SnapshotVersion
			return nil
		})
		if err != nil {
			if ctx.Err() == nil {
				// The turn is gone or unreadable; a connection that only
				// gave up leaves the question to the others.
				j.asks.done(key, a)
			}
			return Verdict{}, false, err
		}
		if r.Request.RequestID == "" || r.Status != turn.RequestOpen {
			j.asks.done(key, a)
			switch {
			case r.Request.RequestID == "":
				return Verdict{}, true, nil // gone: decide anew
			case r.Resolution.Allows() && r.SnapshotVersion != version:
				// The permissions changed while it waited (a narrower mode
				// the answer was not given under, or a widening that
				// allowed it): the snapshot in force now decides, as the
				// API does for a call approved before a change.
				return Verdict{}, true, nil
			case r.Resolution == domain.ResolutionAllowOnce:
				if !j.asks.claim(a) {
					return Verdict{}, true, nil
				}
				return Verdict{Allow: true, Code: string(r.Resolution), Rule: "approval " + a.reqID, Once: true}, false, nil
			case r.Resolution.Allows():
				return Verdict{Allow: true, Code: string(r.Resolution), Rule: "approval " + a.reqID}, false, nil
			}
			return Verdict{Code: string(r.Resolution), Rule: "approval " + a.reqID + " resolved " + string(r.Resolution)}, false, nil
		}
		select {
		case <-ctx.Done():
			return Verdict{Code: "approval_pending", Rule: "approval " + a.reqID + " was not answered in time"}, false, nil
		case <-tk.C:
		}
	}
}

// pruneAnswered drops the turn's questions whose requests are no longer
// open.
func (j *EngineJudge) pruneAnswered(ctx context.Context, turnID string) error {
	reqs := j.asks.requests(turnID)
	if len(reqs) == 0 {
		return nil
	}
	var closed []string
	err := j.Engine.View(ctx, turnID, func(s *turn.State) error {
		for _, id := range reqs {
			if q := s.Approvals[id]; q == nil || q.Status != turn.RequestOpen {
				closed = append(closed, id)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	j.asks.dropRequests(turnID, closed)
	return nil
}

func (j *EngineJudge) now() time.Time {
	if j.Now == nil {
		return time.Now()
	}
	return j.Now()
}

// Refuse implements Refuser: the proxy's own refusal of a connection
// (a method a limited network does not allow, a TLS hello naming another
// server than the tunnel's host) is a decision_denied event on the turn,
// as the judge's refusals are: a person reading the turn's audit sees the
// attempts to send past a read-only network, and a tunnel closed for its
// hello is not only counted as carried (the fifty-sixth review).
func (j *EngineJudge) Refuse(ctx context.Context, turnID, rawURL, method string, v Verdict) error {
	if j.Admit != nil {
		// Past the principal's quota nothing more is recorded for it, as
		// for the judge's own decisions: a command refused in a loop would
		// otherwise grow the turn's log without bound (the fifty-seventh
		// review).
		if err := j.Admit(turnID, ActorOf(ctx)); err != nil {
			return err
		}
	}
	args, _ := json.Marshal(map[string]string{"url": rawURL, "method": method, "scope": "origin"})
	id := make([]byte, 12)
	rand.Read(id)
	call := "egress-" + hex.EncodeToString(id)
	_, err := j.Engine.Execute(ctx, turnID, &turn.RecordDenial{
		Meta: turn.Meta{Now: j.now().UTC(), Actor: ActorOf(ctx), CorrelationID: call}, ToolCallID: call,
		Invocation: domain.Invocation{ToolName: "web_fetch", Arguments: args}, Refusal: v.Code, Message: v.Rule,
	})
	return err
}

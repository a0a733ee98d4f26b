package api

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
	"turnstile/projections"
)

// startQuota holds the open-turn quota of each principal: a principal's
// turn starts are taken one at a time, each counted against the read
// models after the one before it is in them, so that concurrent starts
// cannot all pass the count at once. The count is of the turns in the
// store, so it holds across processes sharing one store up to the starts
// they make at the same moment.
//
// The wait for a principal's turn is bounded by the request: a start can
// hold it for as long as its command takes (a child's, waiting for its
// parent, which the agent's own slow decision can keep busy), and a Claude
// Code PreToolUse that starts the session's turn must be answered before
// the hook's timeout, at which Claude Code runs the call.
type startQuota struct {
	mu    sync.Mutex
	locks map[string]chan struct{} // principal name → its start lock (one slot)
}

func (q *startQuota) lock(name string) chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.locks == nil {
		q.locks = map[string]chan struct{}{}
	}
	l := q.locks[name]
	if l == nil {
		l = make(chan struct{}, 1)
		q.locks[name] = l
	}
	return l
}

// startWithinQuota runs a turn start within the principal's open-turn quota
// (Config.MaxOpenTurns). A start of a turn that exists appends nothing (a
// repeat, or a conflict) and is not counted; a new one past the quota is a
// *domain.QuotaError, and nothing is appended.
func (s *Server) startWithinQuota(r *http.Request, turnID string, c *turn.StartTurn) (engine.Result, error) {
	limit := s.cfg.MaxOpenTurns
	if limit < 0 {
		if err := s.startHeldBytes(r, turnID, c.Actor); err != nil {
			return engine.Result{}, err
		}
		return s.run(r, turnID, c)
	}
	name := c.Actor.Name
	l := s.quota.lock(name)
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.CommandTimeout)
	defer cancel()
	waited := false
	select {
	case l <- struct{}{}:
	default:
		waited = true
		select {
		case l <- struct{}{}:
		case <-ctx.Done():
			return engine.Result{}, fmt.Errorf("waiting for the turn starts of %s: %w", name, ctx.Err())
		}
	}
	defer func() { <-l }()
	if waited {
		// The credential may have been revoked while the start waited
		// (the hundred-and-seventy-seventh review).
		if err := recheckOf(r.Context()); err != nil {
			return engine.Result{}, err
		}
	}
	// A start of a turn the caller may see (a retry of its own) is not
	// charged again; one of another workspace's turn is charged as a start
	// of a free id is, so that a scoped caller at its quota is answered
	// alike for both (the forty-third review: 429 for a free id, 400 for a
	// taken one, told the other workspace's ids).
	if !s.seenStart(r, turnID) && s.overQuota(r, func() bool { return s.cfg.Projector.LiveTurnsOf(name) >= limit }) {
		return engine.Result{}, &domain.QuotaError{Quota: domain.QuotaOpenTurns, Limit: limit, Of: name}
	}
	if err := s.startHeldBytes(r, turnID, c.Actor); err != nil {
		return engine.Result{}, err
	}
	res, err := s.run(r, turnID, c)
	if err == nil && len(res.Events) > 0 {
		// The next start of this principal counts this turn: wait (within
		// the command's bound) until the read models hold it.
		ctx, cancel := context.WithTimeout(r.Context(), s.cfg.CommandTimeout)
		defer cancel()
		_ = s.cfg.Projector.WaitFor(ctx, res.Position)
	}
	return res, err
}

// seenStart reports whether turnID is a turn the caller may see: its
// start again is a retry, not charged to a quota.
func (s *Server) seenStart(r *http.Request, turnID string) bool {
	t, exists := s.cfg.Projector.Turn(turnID)
	return exists && (!principalOf(r).Scoped() || principalOf(r).InScope(t.WorkspaceID))
}

// startHeldBytes refuses a new turn's start by a starter whose events in
// live turns hold Config.MaxHeldBytes or more (a *domain.QuotaError), as
// admitCall refuses its tool calls: a start, its snapshot and its prompt,
// is the largest event a credential adds, and the read models hold it
// while the turn is open (the hundred-and-eighty-third review: 1,024
// starts of 3 MiB snapshots past a 256 MiB quota). A retry of a start
// the caller may see is not refused.
func (s *Server) startHeldBytes(r *http.Request, turnID string, a domain.Actor) error {
	limit := s.cfg.MaxHeldBytes
	if limit < 0 || a.Name == "" || a.Role == "" || a.Role == "system" || s.seenStart(r, turnID) {
		return nil
	}
	if s.overQuota(r, func() bool { return s.cfg.Projector.HeldBytesBy(a.Name) >= int64(limit) }) {
		return &domain.QuotaError{Quota: domain.QuotaHeldBytes, Limit: limit, Of: a.Name}
	}
	return nil
}

// admitCall refuses a new tool call of a caller whose events in live turns
// (any turn's, projections' chargedTo) hold more than Config.MaxHeldBytes
// (a *domain.QuotaError); a call the turn has decided is still answered. The count is the read
// models', a moment behind the engine: concurrent calls can pass it by
// what they carry, each at most a request body.
func (s *Server) admitCall(r *http.Request, turnID, toolCallID string) error {
	var over error
	check := func() bool {
		if a := principalOf(r).Actor(); a.Name != "" && a.Role != "" && a.Role != "system" {
			// The call's events are charged to its caller (the read models'
			// chargedTo), in any turn: a credential's calls in a turn another
			// started fill its own quota, not the other's.
			if limit := s.cfg.MaxHeldBytes; limit >= 0 && s.cfg.Projector.HeldBytesBy(a.Name) >= int64(limit) {
				over = &domain.QuotaError{Quota: domain.QuotaHeldBytes, Limit: limit, Of: a.Name}
			} else {
				over = nil
			}
		} else {
			over = HeldBytesQuota(s.cfg.Projector, s.cfg.MaxHeldBytes)(turnID, a)
		}
		return over != nil
	}
	if !s.overQuota(r, check) {
		return nil
	}
	known := false
	if err := s.cfg.Engine.View(r.Context(), turnID, func(st *turn.State) error {
		known = st.Calls[toolCallID] != nil
		return nil
	}); err != nil {
		return err
	}
	if known {
		return nil
	}
	return over
}

// HeldBytesQuota is the byte quota's check of a new record made in turnID
// as by (Config.MaxHeldBytes; -1: none): a *domain.QuotaError once the
// events charged to the principal the record is charged to (the
// projections' chargedTo: by, or, for the service itself, the principal
// that started the turn) in live turns hold limit bytes or more. The
// egress proxy checks each connection's decision with it
// (egress.EngineJudge.Admit), as admitCall checks a tool call.
func HeldBytesQuota(p *projections.Projector, limit int) func(turnID string, by domain.Actor) error {
	return func(turnID string, by domain.Actor) error {
		if limit < 0 {
			return nil
		}
		if by.Name != "" && by.Role != "" && by.Role != domain.SystemActor.Role {
			if p.HeldBytesBy(by.Name) >= int64(limit) {
				return &domain.QuotaError{Quota: domain.QuotaHeldBytes, Limit: limit, Of: by.Name}
			}
			return nil
		}
		name, held := p.HeldBytesOf(turnID)
		if name == "" || held < int64(limit) {
			return nil
		}
		return &domain.QuotaError{Quota: domain.QuotaHeldBytes, Limit: limit, Of: name}
	}
}

// overQuota reports over(), asked again, when it holds, once the read
// models hold every event this server appended: the end of a turn that
// frees a place may have been answered a moment before the read models
// applied it, and a runtime that ends a turn and starts the next at once
// must not be refused for it.
func (s *Server) overQuota(r *http.Request, over func() bool) bool {
	if !over() {
		return false
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.CommandTimeout)
	defer cancel()
	if s.cfg.Projector.WaitFor(ctx, s.cfg.Engine.LastAppended()) != nil {
		return true
	}
	return over()
}

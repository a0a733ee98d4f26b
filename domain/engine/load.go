package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"turnstile/domain"
	"turnstile/domain/eventcodec"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
)

// propagateTimeout bounds ending a turn's descendants after the turn ended.
const propagateTimeout = 30 * time.Second

// load is the default hook: what a command needs beyond the turn's own
// state is loaded through the engine (never from a read model): the resource
// checks of a new tool call, the parent of a child turn whose profile
// changes, and the registration of a child turn on its parent before the
// child's first event.
func (e *Engine) load(ctx context.Context, s *turn.State, cmd turn.Command) (turn.Command, error) {
	switch c := cmd.(type) {
	case *turn.EvaluateTool:
		if err := e.refuseParentEnded(ctx, s, "decide a tool call"); err != nil {
			return nil, err
		}
		return e.checkResources(s, c)
	case *turn.RespondApproval:
		if err := e.refuseParentEnded(ctx, s, "answer a request"); err != nil {
			return nil, err
		}
		return e.recheck(s, c)
	case *turn.RecordToolRun:
		if c.Classified != nil || s.Status == turn.StatusNone || s.Status.Terminal() {
			return c, nil
		}
		a, err := e.ClassifyAsDecided(s, c.Invocation, c.Actor)
		if err != nil {
			return c, nil // Decide reports the bad input
		}
		classified := *c
		classified.Classified = &a
		return &classified, nil
	case *turn.ChangeProfile:
		loaded := *c
		if e.cfg.Checker != nil && s.Open > 0 && c.Judge == nil {
			loaded.Judge = e.judgeOpen(e.checkerFor(c.Actor))
		}
		if s.ParentTurnID == "" || c.Parent != nil {
			return &loaded, nil
		}
		p, err := e.parent(ctx, s.ParentTurnID)
		if err != nil {
			return nil, err
		}
		loaded.Parent = p
		return &loaded, nil
	case *turn.StartTurn:
		if c.ParentTurnID == "" || c.Parent == nil {
			return c, nil
		}
		if s.Status != turn.StatusNone {
			// A taken id, which a start of a free one would register on
			// the parent: at the parent's child cap the answer is the
			// one a free id gets, unless the id is this parent's child
			// already (a retry), so that the cap does not tell which ids
			// another workspace holds (the forty-fifth review).
			if evs, _, err := turn.Decide(turn.NewState(s.TurnID), c); err != nil || len(evs) == 0 {
				return c, nil
			}
			if err := e.View(ctx, c.ParentTurnID, func(p *turn.State) error { return turn.ChildCapRefusal(p, c.TurnID) }); err != nil {
				return nil, err
			}
			return c, nil
		}
		// Decide is pure: a dry run says whether the child would start;
		// only then is it recorded on the parent (before its own first
		// event, so that ending the parent always finds it).
		if evs, _, err := turn.Decide(s, c); err != nil || len(evs) == 0 {
			return c, nil
		}
		if _, err := e.Execute(ctx, c.ParentTurnID, &turn.RegisterChild{Meta: turn.Meta{Actor: c.Actor, CorrelationID: c.CorrelationID}, ChildTurnID: c.TurnID}); err != nil {
			return nil, err
		}
	}
	return cmd, nil
}

// after runs what follows a command on other turns: ending a turn ends its
// descendants (also when the turn had already ended, so a retry finishes a
// propagation a crash interrupted); a child that started while its parent
// was ending is ended too.
func (e *Engine) after(ctx context.Context, turnID string, cmd turn.Command, res *Result, err error) {
	switch c := cmd.(type) {
	case *turn.EndTurn:
		if err == nil || errors.Is(err, turn.ErrIllegalTransition) {
			e.StopRuns(turnID, string(c.Status))
			e.endChildren(ctx, turnID)
		}
	case *turn.ChangeProfile:
		if err == nil && len(res.Events) > 0 {
			snap := res.Turn.Snapshot
			e.running.changed(turnID, &snap, res.Turn.SnapshotVersion)
		}
		if err == nil {
			// Also on a replay: the same change sent again finishes a
			// propagation that was cut short.
			e.narrowChildren(ctx, turnID, c.Meta)
		}
	case *turn.StartTurn:
		if err != nil || c.ParentTurnID == "" || len(res.Events) == 0 {
			return
		}
		// The parent read as the follow-up's own (detached: a caller
		// revoked while the parent's lock was busy skipped the bounding
		// below, the hundred-and-seventy-ninth review).
		nctx, cancel := context.WithTimeout(detached(ctx), propagateTimeout)
		defer cancel()
		p, perr := e.parent(nctx, c.ParentTurnID)
		if a, _ := e.EndedAncestor(nctx, c.ParentTurnID); perr == nil && a != nil {
			p = a // a parent, or a turn above it, has ended
		}
		if perr == nil && p.Status.Terminal() {
			if end, eerr := e.endWithParent(nctx, turnID, p); eerr == nil {
				res.Turn, res.Position = end.Turn, end.Position
			}
		} else if perr == nil {
			// The parent may have been narrowed after this child read its
			// snapshot and before it was registered (narrowChildren did
			// not see it then): bounded again by the parent as it is now.
			if n, nerr := e.Execute(nctx, turnID, &turn.ChangeProfile{Meta: turn.Meta{Actor: c.Actor, CorrelationID: c.CorrelationID},
				FromParent: true, Parent: p}); nerr == nil && len(n.Events) > 0 {
				res.Turn, res.Position = n.Turn, n.Position
			}
		}
	}
}

// refuseParentEnded refuses what a live child turn is asked (what) once
// its parent has ended: the parent's end is appended before its children
// are ended one after another (endChildren), and a person who interrupts
// the parent means every turn under it, not each in its turn (the
// hundred-and-thirty-first review: a later child's decisions were allowed
// while an earlier child's end waited). Execute then ends the child the
// way its parent ended (as /exec does: prepareExec) and answers an illegal
// transition.
func (e *Engine) refuseParentEnded(ctx context.Context, s *turn.State, what string) error {
	if s.ParentTurnID == "" || s.Status == turn.StatusNone || s.Status.Terminal() {
		return nil
	}
	p, err := e.EndedAncestor(ctx, s.ParentTurnID)
	if err != nil || p == nil {
		return err // none ended; an ancestor that cannot be read refuses what was asked
	}
	return &parentEndedError{parent: p, what: what}
}

// endWithParent ends turnID the way its parent ended.
func (e *Engine) endWithParent(ctx context.Context, turnID string, p *turn.Parent) (Result, error) {
	ctx, cancel := context.WithTimeout(detached(ctx), propagateTimeout)
	defer cancel()
	return e.Execute(ctx, turnID, &turn.EndTurn{Meta: turn.Meta{Actor: domain.SystemActor}, Status: p.Status,
		Reason: fmt.Sprintf("parent turn %s is %s", p.TurnID, p.Status)})
}

// endChildren ends every child recorded on turnID (and, through Execute,
// their own children) the way turnID ended. A child that never started or
// has already ended is skipped.
func (e *Engine) endChildren(ctx context.Context, turnID string) {
	// Not the caller's context, nor its recheck: a caller revoked (or
	// gone) while the parent's lock was busy left the children running
	// (the hundred-and-seventy-ninth review).
	ctx, cancel := context.WithTimeout(detached(ctx), propagateTimeout)
	defer cancel()
	var p *turn.Parent
	var children []string
	err := e.View(ctx, turnID, func(s *turn.State) error {
		p = &turn.Parent{TurnID: turnID, Status: s.Status, Snapshot: s.Snapshot}
		children = append(children, s.Children...)
		return nil
	})
	if err != nil || !p.Status.Terminal() {
		return
	}
	// Their commands are stopped first, then every child is ended at
	// once: a child whose end waits (its egress drain, a slow store) must
	// not keep the children after it running, their commands included
	// (the hundred-and-thirty-third review). A turn starts at most 256
	// children.
	// Every child's kills sent at once, and their waits side by side: in
	// turn, a child whose command's processes take their time to end held
	// the kill of the next one's (review 195).
	var stops sync.WaitGroup
	for _, child := range children {
		stops.Go(func() { e.StopRuns(child, string(p.Status)) })
	}
	stops.Wait()
	var wg sync.WaitGroup
	for _, child := range children {
		wg.Go(func() { _, _ = e.endWithParent(ctx, child, p) })
	}
	wg.Wait()
}

// narrowChildren bounds every live child of turnID again by its profile
// now (turn.ChangeProfile's FromParent), as the principal who changed it:
// a parent narrowed narrows the turns it delegated to, their open requests
// and running commands with them, and theirs in turn (each child's change
// comes back here). A child ended meanwhile refuses, and is skipped.
func (e *Engine) narrowChildren(ctx context.Context, turnID string, meta turn.Meta) {
	// Not the caller's context: a client that hangs up must not leave
	// children wider than their parent.
	ctx, cancel := context.WithTimeout(detached(ctx), propagateTimeout)
	defer cancel()
	var p *turn.Parent
	var children []string
	err := e.View(ctx, turnID, func(s *turn.State) error {
		p = &turn.Parent{TurnID: turnID, Status: s.Status, Snapshot: s.Snapshot, WorkspaceID: s.WorkspaceID}
		children = append(children, s.Children...)
		return nil
	})
	if err != nil || p.Status.Terminal() {
		return
	}
	for _, child := range children {
		_, _ = e.Execute(ctx, child, &turn.ChangeProfile{Meta: turn.Meta{Actor: meta.Actor, CorrelationID: meta.CorrelationID}, FromParent: true, Parent: p})
	}
}

// index remembers which turn an approval request belongs to.
func (e *Engine) index(turnID string, ev *turn.Event) {
	r, ok := ev.Payload.(*turn.ApprovalRequested)
	if !ok {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.requests) >= e.cfg.MaxCachedTurns {
		clear(e.requests) // a forgotten request is found through the store
	}
	e.requests[r.Request.RequestID] = turnID
}

// LocateRequest returns the turn of an approval request: from the requests
// this engine has seen, else by reading the store's log (an approval
// request id is a hash of its turn and tool call, so it cannot be inverted),
// one such search at a time: a caller waits for the one in progress within
// ctx (its deadline then ends the wait).
func (e *Engine) LocateRequest(ctx context.Context, requestID string) (string, error) {
	e.mu.Lock()
	id, ok := e.requests[requestID]
	e.mu.Unlock()
	if ok {
		return id, nil
	}
	select {
	case e.scanning <- struct{}{}:
		defer func() { <-e.scanning }()
	case <-ctx.Done():
		return "", ctx.Err()
	}
	from := eventstore.Position{}
	for {
		recs, err := e.store.ReadAll(ctx, from, 4096)
		if err != nil {
			return "", err
		}
		for i := range recs {
			from = recs[i].Position
			if recs[i].Type != turn.TypeApprovalRequested {
				continue
			}
			ev, err := eventcodec.DecodeUnhashed(&recs[i])
			if err != nil {
				return "", err
			}
			if r := ev.Payload.(*turn.ApprovalRequested); r.Request.RequestID == requestID {
				return ev.TurnID, nil
			}
		}
		if len(recs) < 4096 {
			return "", &turn.NotFoundError{Kind: "request", ID: requestID}
		}
	}
}

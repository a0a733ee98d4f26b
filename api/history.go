package api

import (
	"context"

	"turnstile/domain"
	"turnstile/domain/eventcodec"
	"turnstile/domain/turn"
	"turnstile/projections"
)

// foldPage is how many events of a turn's stream are read at a time when
// its read models are folded on demand: the page and its decoded events are
// in memory together, and an event may be a 3 MiB snapshot or carry 128 KiB
// of arguments, so a page of 1,024 could hold hundreds of megabytes.
const foldPage = 64

// foldTurn folds the stream of a turn the read models no longer hold in
// full (it ended before the recent ones), a page at a time, with the
// projector's own fold; it stops early once enough (when not nil) says so.
func (s *Server) foldTurn(ctx context.Context, id string, enough ...func(*projections.TurnFold) bool) (*projections.TurnFold, error) {
	name, _ := ctx.Value(principalKey{}).(domain.Principal)
	release, err := s.folds.acquire(ctx, name.Name)
	if err != nil {
		return nil, err
	}
	defer release()
	f := projections.FoldTurn(id)
	var from uint64
	for {
		recs, err := s.cfg.Store.ReadStream(ctx, turn.StreamName(id), from, foldPage)
		if err != nil {
			return nil, err
		}
		for i := range recs {
			e, err := eventcodec.DecodeUnhashed(&recs[i])
			if err != nil {
				return nil, err
			}
			if err := f.Apply(&e); err != nil {
				return nil, err
			}
		}
		if len(recs) < foldPage || len(enough) > 0 && enough[0](f) {
			return f, nil
		}
		from = recs[len(recs)-1].Revision + 1
	}
}

// turnView is a turn's full view: from the read models, or folded from its
// stream when they hold only its summary.
func (s *Server) turnView(ctx context.Context, id string) (projections.TurnView, error) {
	t, held, ok := s.cfg.Projector.TurnHeld(id)
	if !ok {
		return t, &turn.NotFoundError{Kind: "turn", ID: id}
	}
	if held {
		return t, nil
	}
	f, err := s.foldTurn(ctx, id)
	if err != nil {
		return t, err
	}
	if full, ok := f.Turn(); ok {
		return full, nil
	}
	return t, &turn.NotFoundError{Kind: "turn", ID: id}
}

// timelineRows are a turn's timeline rows, from the read models or its
// stream.
func (s *Server) timelineRows(ctx context.Context, id string) ([]projections.TimelineRow, error) {
	if rows, held := s.cfg.Projector.TimelineOf(id); held {
		return rows, nil
	}
	if _, ok := s.cfg.Projector.Turn(id); !ok {
		return nil, &turn.NotFoundError{Kind: "turn", ID: id}
	}
	f, err := s.foldTurn(ctx, id)
	if err != nil {
		return nil, err
	}
	return f.Timeline(), nil
}

// auditRows are a page of a turn's audit rows, from the read models or its
// stream.
func (s *Server) auditRows(ctx context.Context, id string, offset, limit int) ([]projections.AuditRow, error) {
	if rows, held := s.cfg.Projector.AuditOf(id, offset, limit); held {
		return rows, nil
	}
	if _, ok := s.cfg.Projector.Turn(id); !ok {
		return nil, &turn.NotFoundError{Kind: "turn", ID: id}
	}
	// Rows never change once added: a page needs the events up to its
	// last row only.
	f, err := s.foldTurn(ctx, id, func(f *projections.TurnFold) bool { return limit > 0 && f.AuditLen() >= offset+limit })
	if err != nil {
		return nil, err
	}
	return f.Audit(offset, limit), nil
}

// approvalsOf lists approvals matching f; those of a turn the read models
// hold only as a summary come from its stream.
func (s *Server) approvalsOf(ctx context.Context, f projections.ApprovalFilter) ([]projections.ApprovalView, error) {
	if f.TurnID != "" {
		if _, held, ok := s.cfg.Projector.TurnHeld(f.TurnID); ok && !held {
			fold, err := s.foldTurn(ctx, f.TurnID)
			if err != nil {
				return nil, err
			}
			return fold.Approvals(f), nil
		}
	}
	return s.cfg.Projector.Approvals(f), nil
}

// oldApproval finds a request of a turn the read models hold only as a
// summary (the client names the turn: a request id cannot be inverted).
func (s *Server) oldApproval(ctx context.Context, turnID, requestID string) (projections.ApprovalView, bool, error) {
	if _, held, ok := s.cfg.Projector.TurnHeld(turnID); !ok || held {
		return projections.ApprovalView{}, false, nil
	}
	f, err := s.foldTurn(ctx, turnID)
	if err != nil {
		return projections.ApprovalView{}, false, err
	}
	a, ok := f.Approval(requestID)
	return a, ok, nil
}

package projections

import (
	"context"
	"slices"
	"strings"
	"time"

	"turnstile/domain/eventstore"
)

// Turn returns a copy of a turn's view.
func (p *Projector) Turn(id string) (TurnView, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	t, ok := p.turns[id]
	if !ok {
		return TurnView{}, false
	}
	return *t, true
}

// Approval returns one approval request.
func (p *Projector) Approval(id string) (ApprovalView, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	a, ok := p.approvals[id]
	if !ok {
		return ApprovalView{}, false
	}
	return *a, true
}

// ApprovalFilter selects approvals.
type ApprovalFilter struct {
	TurnID      string
	WorkspaceID string
	// Status is "pending", "resolved" or "" for both.
	Status string
	// ExpiresBefore keeps only requests expiring at or before it.
	ExpiresBefore time.Time
}

// Approvals lists approvals matching f, oldest first.
func (p *Projector) Approvals(f ApprovalFilter) []ApprovalView {
	p.mu.RLock()
	defer p.mu.RUnlock()
	var out []ApprovalView
	add := func(a *ApprovalView) {
		if (f.TurnID == "" || a.Request.TurnID == f.TurnID) && (f.WorkspaceID == "" || a.Request.WorkspaceID == f.WorkspaceID) &&
			(f.Status == "" || a.Status == f.Status) && (f.ExpiresBefore.IsZero() || !a.ExpiresAt.After(f.ExpiresBefore)) {
			out = append(out, *a)
		}
	}
	if f.Status == ApprovalPending {
		for turnID, ids := range p.pending {
			if f.TurnID != "" && turnID != f.TurnID {
				continue
			}
			for id := range ids {
				add(p.approvals[id])
			}
		}
	} else {
		for _, a := range p.approvals {
			add(a)
		}
	}
	slices.SortFunc(out, func(a, b ApprovalView) int {
		if c := a.OpenedAt.Compare(b.OpenedAt); c != 0 {
			return c
		}
		return strings.Compare(a.Request.RequestID, b.Request.RequestID)
	})
	return out
}

// Audit lists audit rows of one turn (all turns when turnID is empty), in
// store order, skipping the first offset rows and returning at most limit
// (all when limit <= 0).
func (p *Projector) Audit(turnID string, offset, limit int) []AuditRow {
	p.mu.RLock()
	defer p.mu.RUnlock()
	var out []AuditRow
	n := p.audit.len()
	if turnID != "" {
		n = len(p.byTurn[turnID])
	}
	for i := max(offset, 0); i < n && (limit <= 0 || len(out) < limit); i++ {
		if turnID == "" {
			out = append(out, *p.audit.at(i))
		} else {
			out = append(out, *p.audit.at(p.byTurn[turnID][i]))
		}
	}
	return out
}

// Timeline lists a turn's timeline rows in turn order.
func (p *Projector) Timeline(turnID string) []TimelineRow {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return slices.Clone(p.timeline[turnID])
}

// WaitFor blocks until the projector has applied pos (or ctx ends).
func (p *Projector) WaitFor(ctx context.Context, pos eventstore.Position) error {
	for {
		p.mu.RLock()
		done, ch := !p.pos.Less(pos), p.changed
		p.mu.RUnlock()
		if done {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Export is every read model in a deterministic form, for comparing a
// rebuild with the incremental path.
type Export struct {
	Position  string
	Turns     []TurnView
	Snapshots map[string]any
	Approvals []ApprovalView
	Audit     []AuditRow
	Timeline  map[string][]TimelineRow
}

// Export returns every read model.
func (p *Projector) Export() Export {
	p.mu.RLock()
	defer p.mu.RUnlock()
	ex := Export{Position: p.pos.String(), Snapshots: map[string]any{}, Timeline: map[string][]TimelineRow{}}
	for _, t := range p.turns {
		ex.Turns = append(ex.Turns, *t)
		ex.Snapshots[t.TurnID] = t.Snapshot
	}
	slices.SortFunc(ex.Turns, func(a, b TurnView) int { return strings.Compare(a.TurnID, b.TurnID) })
	for _, a := range p.approvals {
		ex.Approvals = append(ex.Approvals, *a)
	}
	slices.SortFunc(ex.Approvals, func(a, b ApprovalView) int { return strings.Compare(a.Request.RequestID, b.Request.RequestID) })
	for i := range p.audit.len() {
		ex.Audit = append(ex.Audit, *p.audit.at(i))
	}
	for k, v := range p.timeline {
		ex.Timeline[k] = slices.Clone(v)
	}
	return ex
}

// TurnFilter selects turns.
type TurnFilter struct {
	WorkspaceID string
	Status      string
	// After skips turns whose id sorts at or before it (for paging).
	After string
	Limit int
}

// Turns lists turns sorted by id.
func (p *Projector) Turns(f TurnFilter) []TurnView {
	p.mu.RLock()
	var out []TurnView
	for _, t := range p.turns {
		if (f.WorkspaceID == "" || t.WorkspaceID == f.WorkspaceID) && (f.Status == "" || string(t.Status) == f.Status) && t.TurnID > f.After {
			out = append(out, *t)
		}
	}
	p.mu.RUnlock()
	slices.SortFunc(out, func(a, b TurnView) int { return strings.Compare(a.TurnID, b.TurnID) })
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out
}

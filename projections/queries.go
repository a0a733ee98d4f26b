package projections

import (
	"context"
	"slices"
	"strings"
	"time"

	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
)

// Turn returns a copy of a turn's view: in full for a held turn; for an
// older one what its summary keeps (no Snapshot, no Children: see
// TurnHeld).
func (p *Projector) Turn(id string) (TurnView, bool) {
	v, _, ok := p.TurnHeld(id)
	return v, ok
}

// TurnHeld is Turn, and whether the turn is held in full: when it is not,
// its full view, audit, timeline and approvals come from its stream
// (FoldTurn).
func (p *Projector) TurnHeld(id string) (v TurnView, held, ok bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if t, ok := p.held[id]; ok {
		return t.TurnView, true, true
	}
	// An archive that cannot be read is a turn not found: queries have
	// no error to give (the bolt archive fails only once closed).
	if s, err := p.oldTurn(id); err == nil && s != nil {
		return s.view(), false, true
	}
	return TurnView{}, false, false
}

// Approval returns one approval request of a held turn.
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

func (f *ApprovalFilter) match(a *ApprovalView) bool {
	return (f.TurnID == "" || a.Request.TurnID == f.TurnID) && (f.WorkspaceID == "" || a.Request.WorkspaceID == f.WorkspaceID) &&
		(f.Status == "" || a.Status == f.Status) && (f.ExpiresBefore.IsZero() || !a.ExpiresAt.After(f.ExpiresBefore))
}

// Approvals lists the approvals of held turns matching f, oldest first:
// every pending one, and the resolved ones of turns not yet evicted (those
// of an older turn come from its stream: FoldTurn).
func (p *Projector) Approvals(f ApprovalFilter) []ApprovalView {
	p.mu.RLock()
	defer p.mu.RUnlock()
	var out []ApprovalView
	add := func(a *ApprovalView) {
		if f.match(a) {
			out = append(out, *a)
		}
	}
	switch {
	case f.TurnID != "":
		if t := p.held[f.TurnID]; t != nil {
			for _, id := range t.requests {
				add(p.approvals[id])
			}
		}
	case f.Status == ApprovalPending:
		for _, ids := range p.pending {
			for id := range ids {
				add(p.approvals[id])
			}
		}
	default:
		for _, a := range p.approvals {
			add(a)
		}
	}
	sortApprovals(out)
	return out
}

func sortApprovals(out []ApprovalView) {
	slices.SortFunc(out, func(a, b ApprovalView) int {
		if c := a.OpenedAt.Compare(b.OpenedAt); c != 0 {
			return c
		}
		return strings.Compare(a.Request.RequestID, b.Request.RequestID)
	})
}

// Audit lists the audit rows of a held turn in store order, skipping the
// first offset rows and returning at most limit (all when limit <= 0). It
// returns nothing for a turn not held (see AuditOf).
func (p *Projector) Audit(turnID string, offset, limit int) []AuditRow {
	rows, _ := p.AuditOf(turnID, offset, limit)
	return rows
}

// AuditOf is Audit, and whether the turn is held: when it is not, its rows
// come from its stream (FoldTurn).
func (p *Projector) AuditOf(turnID string, offset, limit int) ([]AuditRow, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	t, ok := p.held[turnID]
	if !ok {
		return nil, false
	}
	return t.audit.page(offset, limit), true
}

// Timeline lists a held turn's timeline rows in turn order (nothing for a
// turn not held: see TimelineOf).
func (p *Projector) Timeline(turnID string) []TimelineRow {
	rows, _ := p.TimelineOf(turnID)
	return rows
}

// TimelineOf is Timeline, and whether the turn is held: when it is not,
// its rows come from its stream (FoldTurn).
func (p *Projector) TimelineOf(turnID string) ([]TimelineRow, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	t, ok := p.held[turnID]
	if !ok {
		return nil, false
	}
	return t.timeline.all(), true
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

// TurnFilter selects turns.
type TurnFilter struct {
	WorkspaceID string
	// Workspaces, when set, keeps only turns of these workspaces (a
	// credential's scope), before the limit counts.
	Workspaces []string
	Status     string
	// After skips turns whose id sorts at or before it (for paging).
	After string
	Limit int
}

// Turns lists turns sorted by id: held ones in full, older ones compact.
// With a limit, only the first Limit held ids are kept while scanning (a
// bounded heap) and the archive is read in id order until it gave Limit,
// so a page costs a scan of what is held and a page of the archive, not a
// sort of every turn.
func (p *Projector) Turns(f TurnFilter) []TurnView {
	match := func(id, ws string, st string) bool {
		return (f.WorkspaceID == "" || ws == f.WorkspaceID) && (f.Workspaces == nil || slices.Contains(f.Workspaces, ws)) &&
			(f.Status == "" || st == f.Status) && id > f.After
	}
	first := &firstIDs{limit: f.Limit}
	p.mu.RLock()
	defer p.mu.RUnlock()
	for id, t := range p.held {
		if match(id, t.WorkspaceID, string(t.Status)) {
			first.offer(id)
		}
	}
	var olds []TurnView
	// Only ended turns are archived: a listing of running ones does not
	// read the archive. One that cannot be read lists the held turns only
	// (queries have no error to give; the bolt archive fails only once
	// closed).
	if f.Status != "" && !turn.Status(f.Status).Terminal() {
		return p.mergeTurns(first.sorted(), nil, f.Limit)
	}
	scan := func(ws string) {
		ss, _ := p.oldTurns(f.After, ws, f.Status, f.Limit)
		for _, s := range ss {
			if match(s.id, s.workspace, string(s.status)) {
				olds = append(olds, s.view())
			}
		}
	}
	if f.WorkspaceID == "" && f.Workspaces != nil {
		// One page of each workspace's index, merged.
		for _, ws := range slices.Compact(slices.Sorted(slices.Values(f.Workspaces))) {
			scan(ws)
		}
		slices.SortFunc(olds, func(a, b TurnView) int { return strings.Compare(a.TurnID, b.TurnID) })
	} else {
		scan(f.WorkspaceID)
	}
	return p.mergeTurns(first.sorted(), olds, f.Limit)
}

// mergeTurns merges the views of held turns (their ids) with those of old
// turns, both sorted by id, up to limit (all when limit <= 0).
func (p *Projector) mergeTurns(ids []string, olds []TurnView, limit int) []TurnView {
	out := make([]TurnView, 0, len(ids)+len(olds))
	for len(ids) > 0 || len(olds) > 0 {
		if limit > 0 && len(out) == limit {
			break
		}
		if len(olds) == 0 || len(ids) > 0 && ids[0] < olds[0].TurnID {
			out = append(out, p.held[ids[0]].TurnView)
			ids = ids[1:]
		} else {
			out = append(out, olds[0])
			olds = olds[1:]
		}
	}
	return out
}

// firstIDs keeps the limit smallest ids offered (all when limit <= 0) in a
// max-heap.
type firstIDs struct {
	limit int
	ids   []string
}

func (h *firstIDs) offer(id string) {
	if h.limit <= 0 || len(h.ids) < h.limit {
		h.ids = append(h.ids, id)
		if h.limit > 0 {
			h.up(len(h.ids) - 1)
		}
		return
	}
	if id >= h.ids[0] {
		return
	}
	h.ids[0] = id
	h.down(0)
}

func (h *firstIDs) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if h.ids[parent] >= h.ids[i] {
			return
		}
		h.ids[parent], h.ids[i] = h.ids[i], h.ids[parent]
		i = parent
	}
}

func (h *firstIDs) down(i int) {
	for {
		largest, l, r := i, 2*i+1, 2*i+2
		if l < len(h.ids) && h.ids[l] > h.ids[largest] {
			largest = l
		}
		if r < len(h.ids) && h.ids[r] > h.ids[largest] {
			largest = r
		}
		if largest == i {
			return
		}
		h.ids[i], h.ids[largest] = h.ids[largest], h.ids[i]
		i = largest
	}
}

func (h *firstIDs) sorted() []string {
	slices.Sort(h.ids)
	return h.ids
}

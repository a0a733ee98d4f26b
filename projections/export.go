package projections

import (
	"slices"
	"strings"
)

// Export is every read model in a deterministic form, for comparing a
// rebuild (or a restore from a checkpoint) with the incremental path.
type Export struct {
	Position string
	// Turns are every turn's view (compact for the old ones).
	Turns []TurnView
	// Held are the ids of turns held in full, sorted; Recent those of them
	// that ended, in the order they ended.
	Held, Recent []string
	Snapshots    map[string]any
	Approvals    []ApprovalView
	Audit        map[string][]AuditRow
	Timeline     map[string][]TimelineRow
	Pending      map[string][]string
}

// Export returns every read model.
func (p *Projector) Export() Export {
	p.mu.RLock()
	defer p.mu.RUnlock()
	ex := Export{Position: p.pos.String(), Snapshots: map[string]any{}, Audit: map[string][]AuditRow{},
		Timeline: map[string][]TimelineRow{}, Pending: map[string][]string{}}
	for id, t := range p.held {
		ex.Turns = append(ex.Turns, t.TurnView)
		ex.Held = append(ex.Held, id)
		ex.Snapshots[id] = t.Snapshot
		ex.Audit[id] = t.audit.page(0, 0)
		ex.Timeline[id] = t.timeline.all()
	}
	olds, err := p.oldTurns("", "", "", 0)
	if err != nil {
		panic(err) // Export compares read models in tests
	}
	for _, s := range olds {
		ex.Turns = append(ex.Turns, s.view())
	}
	slices.SortFunc(ex.Turns, func(a, b TurnView) int { return strings.Compare(a.TurnID, b.TurnID) })
	slices.Sort(ex.Held)
	if q := p.recent[p.recentHead:]; len(q) > 0 { // nil when empty, however it became so
		ex.Recent = slices.Clone(q)
	}
	for _, a := range p.approvals {
		ex.Approvals = append(ex.Approvals, *a)
	}
	slices.SortFunc(ex.Approvals, func(a, b ApprovalView) int { return strings.Compare(a.Request.RequestID, b.Request.RequestID) })
	for id, ids := range p.pending {
		if len(ids) == 0 {
			continue
		}
		l := make([]string, 0, len(ids))
		for r := range ids {
			l = append(l, r)
		}
		slices.Sort(l)
		ex.Pending[id] = l
	}
	return ex
}

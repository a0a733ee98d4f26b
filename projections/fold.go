package projections

import (
	"fmt"

	"turnstile/domain/turn"
)

// TurnFold folds the events of one turn into its full read models with the
// projector's own fold, for a turn the projector no longer holds: the
// caller reads the turn's stream (a page at a time) and applies its events
// in order. It is not safe for concurrent use.
type TurnFold struct {
	id string
	p  *Projector
}

// FoldTurn returns an empty fold of turnID.
func FoldTurn(turnID string) *TurnFold {
	return &TurnFold{id: turnID, p: NewWith(Options{RecentTurns: -1})}
}

// Apply folds the turn's next event.
func (f *TurnFold) Apply(e *turn.Event) error {
	if e.TurnID != f.id {
		return fmt.Errorf("projections: event of turn %s in the fold of %s", e.TurnID, f.id)
	}
	return f.p.apply(e)
}

// Turn is the turn's full view (false before its first event).
func (f *TurnFold) Turn() (TurnView, bool) {
	t, ok := f.p.held[f.id]
	if !ok {
		return TurnView{}, false
	}
	return t.TurnView, true
}

// Audit is the turn's audit rows from offset, at most limit (all when
// limit <= 0).
func (f *TurnFold) Audit(offset, limit int) []AuditRow {
	if t := f.p.held[f.id]; t != nil {
		return t.audit.page(offset, limit)
	}
	return nil
}

// AuditLen is how many audit rows the events so far gave.
func (f *TurnFold) AuditLen() int {
	if t := f.p.held[f.id]; t != nil {
		return t.audit.len()
	}
	return 0
}

// Timeline is the turn's timeline rows.
func (f *TurnFold) Timeline() []TimelineRow {
	if t := f.p.held[f.id]; t != nil {
		return t.timeline.all()
	}
	return nil
}

// Approvals lists the turn's approvals matching filter, oldest first.
func (f *TurnFold) Approvals(filter ApprovalFilter) []ApprovalView {
	filter.TurnID = f.id
	return f.p.Approvals(filter)
}

// Approval returns one of the turn's approval requests.
func (f *TurnFold) Approval(id string) (ApprovalView, bool) { return f.p.Approval(id) }

package projections

import (
	"fmt"
	"time"

	"turnstile/domain"
	"turnstile/domain/turn"
)

// summary is what the projector keeps of a turn it no longer holds: what a
// listing shows (TurnView without the snapshot), in a few hundred bytes.
// The profile is the turn's own copy (the archive stores it once by
// digest).
type summary struct {
	id, workspace, thread, parent string
	status                        turn.Status
	version, snapshotVersion      int64
	profile                       *domain.TurnPermissionProfileSnapshot // never nil
	pending                       int
	started, updated, ended       time.Time
}

// view is the summary as a TurnView: every field a listing shows; the
// snapshot and the children are not kept.
func (s *summary) view() TurnView {
	return TurnView{
		TurnID: s.id, WorkspaceID: s.workspace, ThreadID: s.thread, ParentTurnID: s.parent, Status: s.status,
		Version: s.version, SnapshotVersion: s.snapshotVersion, Open: s.pending, Profile: *s.profile,
		StartedAt: s.started, UpdatedAt: s.updated, EndedAt: s.ended,
	}
}

// apply folds an event of an old turn into its summary with the one fold of
// a turn's fields (turn.Summary.Apply). An ended turn refuses every
// command, so what arrives here is what the engine still records after the
// end (exec.finished, tool.completed, egress traffic). The summary does not
// keep its requests' states: a request event is folded as naming one not
// seen, which is what a held turn's fold does too for every history Decide
// writes (a request id is opened once, and an evicted turn has none open).
func (s *summary) apply(p *Projector, e *turn.Event) error {
	switch e.Payload.(type) {
	case *turn.TurnStarted, *turn.ProfileSelected, *turn.SecuritySnapshotResolved, *turn.ProfileChanged,
		*turn.ApprovalRequested, *turn.ApprovalResolved, *turn.TurnCompleted, *turn.TurnInterrupted, *turn.TurnFailed,
		*turn.DecisionAllowed, *turn.DecisionDenied, *turn.ToolCompleted, *turn.EgressTraffic,
		*turn.ExecStarted, *turn.ExecFinished, *turn.ChildTurnStarted:
	default:
		return fmt.Errorf("projections: %w: %T", turn.ErrUnknownEventType, e.Payload)
	}
	v := s.view()
	v.Apply(e, turn.RequestNone)
	s.workspace, s.thread, s.parent, s.status = v.WorkspaceID, v.ThreadID, v.ParentTurnID, v.Status
	s.version, s.snapshotVersion, s.pending = v.Version, v.SnapshotVersion, v.Open
	s.started, s.updated, s.ended = v.StartedAt, v.UpdatedAt, v.EndedAt
	switch e.Payload.(type) {
	case *turn.ProfileSelected, *turn.ProfileChanged:
		s.profile = &v.Profile
	}
	return nil
}

// summarize is the summary of a held turn.
func (p *Projector) summarize(t *heldTurn) *summary {
	s := &summary{
		id: t.TurnID, workspace: t.WorkspaceID, thread: t.ThreadID, parent: t.ParentTurnID, status: t.Status,
		version: t.Version, snapshotVersion: t.SnapshotVersion, pending: t.Open,
		started: t.StartedAt, updated: t.UpdatedAt, ended: t.EndedAt,
	}
	prof := t.Profile
	s.profile = &prof
	return s
}

// evict moves the earliest ended turns beyond the recent bounds (their
// number, their bytes) from held to the archive, with their audit, timeline and
// approvals. The queue is in the order the turns ended and a turn's bytes
// only grow, so what stays held after every event is the longest run of
// the latest to end within both bounds: the same whether the events were
// applied one by one, or restored from a checkpoint taken with larger
// bounds and trimmed.
func (p *Projector) evict() error {
	over := func() bool {
		n := len(p.recent) - p.recentHead
		return n > 0 && (p.recentMax >= 0 && n > p.recentMax || p.recentBytesMax >= 0 && p.recentBytes > p.recentBytesMax)
	}
	for over() {
		id := p.recent[p.recentHead]
		p.recent[p.recentHead] = ""
		p.recentHead++
		t := p.held[id]
		if t == nil {
			continue
		}
		p.recentBytes -= t.bytes
		if t.Open > 0 {
			// Not produced by Decide (ending resolves every request);
			// the turn stays held rather than lose a pending request.
			t.queued = false
			continue
		}
		if err := p.putOld(p.summarize(t)); err != nil {
			// The turn stays held (and queued), the projector broken.
			p.recentHead--
			p.recent[p.recentHead] = id
			p.recentBytes += t.bytes
			return err
		}
		for _, r := range t.requests {
			delete(p.approvals, r)
		}
		delete(p.pending, id)
		delete(p.held, id)
	}
	if p.recentHead > 1024 && p.recentHead > len(p.recent)/2 {
		p.recent = append([]string(nil), p.recent[p.recentHead:]...)
		p.recentHead = 0
	}
	return nil
}

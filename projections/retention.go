package projections

import (
	"encoding/json"
	"fmt"
	"time"

	"turnstile/domain"
	"turnstile/domain/turn"
)

// summary is what the projector keeps of a turn it no longer holds: what a
// listing shows (TurnView without the snapshot), in a few hundred bytes.
// The profile is shared by every old turn that selected the same one.
type summary struct {
	id, workspace, thread, parent string
	status                        turn.Status
	version, snapshotVersion      int64
	profile                       *domain.TurnPermissionProfileSnapshot // interned, never nil
	pending                       int
	started, updated, ended       time.Time
}

// view is the summary as a (compact) TurnView.
func (s *summary) view() TurnView {
	v := TurnView{
		ID: s.id, WorkspaceID: s.workspace, ThreadID: s.thread, ParentTurnID: s.parent, Status: s.status,
		Version: s.version, SnapshotVersion: s.snapshotVersion, PendingCount: s.pending,
		StartedAt: s.started, UpdatedAt: s.updated, EndedAt: s.ended, Compact: true, Profile: *s.profile,
	}
	return v
}

// apply folds an event of an old turn into its summary. Only what a summary
// shows changes, exactly as the full fold changes it. An ended turn refuses
// every command, so what arrives here is what the engine still records after
// the end (exec.finished, tool.completed, egress traffic).
func (s *summary) apply(p *Projector, e *turn.Event) error {
	s.version, s.updated = e.Version, e.OccurredAt
	switch ev := e.Payload.(type) {
	case *turn.TurnStarted:
		s.workspace, s.thread, s.parent, s.started = ev.WorkspaceID, ev.ThreadID, ev.ParentTurnID, e.OccurredAt
		s.status = turn.StatusAfter(s.status, ev, 0)
	case *turn.ProfileSelected:
		s.profile = p.intern(ev.Profile)
	case *turn.SecuritySnapshotResolved:
		s.snapshotVersion = e.Version
	case *turn.ProfileChanged:
		s.profile, s.snapshotVersion = p.intern(ev.Profile), e.Version
	case *turn.ApprovalRequested:
		s.pending++
		s.status = turn.StatusAfter(s.status, ev, s.pending)
	case *turn.ApprovalResolved:
		if s.pending == 0 {
			return nil // as the full fold: not a pending request
		}
		s.pending--
		s.status = turn.StatusAfter(s.status, ev, s.pending)
	case *turn.TurnCompleted, *turn.TurnInterrupted, *turn.TurnFailed:
		s.status, s.ended = turn.StatusAfter(s.status, e.Payload, s.pending), e.OccurredAt
	case *turn.DecisionAllowed, *turn.DecisionDenied, *turn.ToolCompleted, *turn.EgressTraffic,
		*turn.ExecStarted, *turn.ExecFinished, *turn.ChildTurnStarted:
	default:
		return fmt.Errorf("projections: %w: %T", turn.ErrUnknownEventType, e.Payload)
	}
	return nil
}

// summarize is the summary of a held turn.
func (p *Projector) summarize(t *heldTurn) *summary {
	s := &summary{
		id: t.ID, workspace: t.WorkspaceID, thread: t.ThreadID, parent: t.ParentTurnID, status: t.Status,
		version: t.Version, snapshotVersion: t.SnapshotVersion, pending: t.PendingCount,
		started: t.StartedAt, updated: t.UpdatedAt, ended: t.EndedAt,
	}
	s.profile = p.intern(t.Profile)
	return s
}

// intern returns the shared copy of a profile (turns of one mode or named
// profile select the same one; there are few distinct ones).
func (p *Projector) intern(prof domain.TurnPermissionProfileSnapshot) *domain.TurnPermissionProfileSnapshot {
	b, err := json.Marshal(prof)
	if err != nil {
		c := prof // not expected: keep an unshared copy
		return &c
	}
	if s, ok := p.profiles[string(b)]; ok {
		return s
	}
	c := prof
	p.profiles[string(b)] = &c
	return &c
}

// evict moves the earliest ended turns beyond the recent bound from held to
// old, with their audit, timeline and approvals.
func (p *Projector) evict() {
	if p.recentMax < 0 {
		return
	}
	for len(p.recent)-p.recentHead > p.recentMax {
		id := p.recent[p.recentHead]
		p.recent[p.recentHead] = ""
		p.recentHead++
		t := p.held[id]
		if t == nil {
			continue
		}
		if t.PendingCount > 0 {
			// Not produced by Decide (ending resolves every request);
			// the turn stays held rather than lose a pending request.
			t.queued = false
			continue
		}
		p.old[id] = p.summarize(t)
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
}

package projections

import (
	"fmt"

	"turnstile/domain"
	"turnstile/domain/turn"
)

func (p *Projector) requested(t *heldTurn, e *turn.Event, row AuditRow, ev *turn.ApprovalRequested, state turn.RequestStatus) {
	id := ev.Request.RequestID
	if p.approvals[id] == nil {
		t.requests = append(t.requests, id)
	}
	p.approvals[id] = &ApprovalView{
		Request: ev.Request, ToolCallID: ev.ToolCallID, ItemID: ev.ItemID, Status: approvalStatus(state),
		OpenedAt: e.OccurredAt, ExpiresAt: ev.ExpiresAt, OpenedVersion: e.Version, Version: e.Version, Position: e.Position.String(),
	}
	if p.pending[t.TurnID] == nil {
		p.pending[t.TurnID] = map[string]struct{}{}
	}
	p.pending[t.TurnID][id] = struct{}{}
	row.Kind, row.ItemID, row.ToolCallID, row.ToolName = AuditApprovalRequested, ev.ItemID, ev.ToolCallID, ev.Action.ToolName
	row.ActionKind, row.RequestKey = ev.Action.Kind, &RequestKey{ActionKind: ev.Action.Kind, ScopeHash: ev.Action.ScopeHash}
	row.RequestID, row.Decision, row.Reason = id, domain.BehaviorAsk.String(), ev.Decision.Reason
	row.Scope, row.Detail = ev.Action.Scope, ev.Request.Summary
	t.addAudit(e, row)
	t.addTimeline(e, "approval_requested", "Approval requested: "+ev.Request.Summary, string(ev.Request.Action), id)
}

func (p *Projector) resolved(t *heldTurn, e *turn.Event, row AuditRow, ev *turn.ApprovalResolved, state turn.RequestStatus) {
	a := p.approvals[ev.RequestID]
	a.Status, a.Resolution, a.ResolvedBy, a.ResolvedAt = approvalStatus(state), ev.Resolution, e.Actor, e.OccurredAt
	a.Version, a.Position = e.Version, e.Position.String()
	delete(p.pending[t.TurnID], ev.RequestID)
	row.Kind, row.ItemID, row.ToolCallID, row.ToolName = AuditApprovalResolved, a.ItemID, a.ToolCallID, a.Request.ToolName
	row.ActionKind, row.RequestKey = a.Request.Action, &RequestKey{ActionKind: a.Request.Action, ScopeHash: a.Request.ScopeHash}
	row.RequestID, row.Decision, row.Reason = ev.RequestID, string(ev.Resolution), ev.Reason
	t.addAudit(e, row)
	t.addTimeline(e, "approval_resolved", fmt.Sprintf("Approval %s: %s", ev.Resolution, a.Request.Summary), string(ev.Reason), ev.RequestID)
}

func (p *Projector) ended(t *heldTurn, e *turn.Event, row AuditRow, status turn.Status, reason string) {
	row.Kind, row.Detail = AuditTurnEnded, string(status)
	if reason != "" {
		row.Detail += ": " + reason
	}
	t.addAudit(e, row)
	t.addTimeline(e, "turn_ended", "Turn "+string(status), reason, "")
}

// approvalStatus is the read model's name of a request state: pending
// while open.
func approvalStatus(s turn.RequestStatus) string {
	if s == turn.RequestOpen {
		return ApprovalPending
	}
	return ApprovalResolved
}

// approvalState is a request of this read model as the request machine
// names its state (turn.RequestNone for one it has not seen), for
// turn.Summary.Apply.
func approvalState(a *ApprovalView) turn.RequestStatus {
	switch {
	case a == nil:
		return turn.RequestNone
	case a.Status == ApprovalPending:
		return turn.RequestOpen
	}
	return turn.RequestResolved
}

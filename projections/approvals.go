package projections

import (
	"fmt"

	"turnstile/domain"
	"turnstile/domain/turn"
)

func (p *Projector) requested(t *heldTurn, e *turn.Event, row AuditRow, ev *turn.ApprovalRequested) {
	id := ev.Request.RequestID
	p.approvals[id] = &ApprovalView{
		Request: ev.Request, ToolCallID: ev.ToolCallID, ItemID: ev.ItemID, Status: ApprovalPending,
		OpenedAt: e.OccurredAt, ExpiresAt: ev.ExpiresAt, OpenedVersion: e.Version, Version: e.Version, Position: e.Position.String(),
	}
	if p.pending[t.ID] == nil {
		p.pending[t.ID] = map[string]struct{}{}
	}
	p.pending[t.ID][id] = struct{}{}
	t.requests = append(t.requests, id)
	t.PendingCount = len(p.pending[t.ID])
	t.Status = turn.StatusAfter(t.Status, ev, t.PendingCount)
	row.Kind, row.ItemID, row.ToolCallID, row.ToolName = AuditApprovalRequested, ev.ItemID, ev.ToolCallID, ev.Action.ToolName
	row.ActionKind, row.RequestKey = ev.Action.Kind, &RequestKey{ActionKind: ev.Action.Kind, ScopeHash: ev.Action.ScopeHash}
	row.RequestID, row.Decision, row.Reason = id, domain.BehaviorAsk.String(), ev.Decision.Reason
	row.Scope, row.Detail = ev.Action.Scope, ev.Request.Summary
	t.addAudit(row)
	t.addTimeline(e, "approval_requested", "Approval requested: "+ev.Request.Summary, string(ev.Request.Action), id)
}

func (p *Projector) resolved(t *heldTurn, e *turn.Event, row AuditRow, ev *turn.ApprovalResolved) {
	a := p.approvals[ev.RequestID]
	if a == nil || a.Status != ApprovalPending {
		return // Decide never produces this; a replay stays total
	}
	a.Status, a.Resolution, a.ResolvedBy, a.ResolvedAt = ApprovalResolved, ev.Resolution, e.Actor, e.OccurredAt
	a.Version, a.Position = e.Version, e.Position.String()
	delete(p.pending[t.ID], ev.RequestID)
	t.PendingCount = len(p.pending[t.ID])
	t.Status = turn.StatusAfter(t.Status, ev, t.PendingCount)
	row.Kind, row.ItemID, row.ToolCallID, row.ToolName = AuditApprovalResolved, a.ItemID, a.ToolCallID, a.Request.ToolName
	row.ActionKind, row.RequestKey = a.Request.Action, &RequestKey{ActionKind: a.Request.Action, ScopeHash: a.Request.ScopeHash}
	row.RequestID, row.Decision, row.Reason = ev.RequestID, string(ev.Resolution), ev.Reason
	t.addAudit(row)
	t.addTimeline(e, "approval_resolved", fmt.Sprintf("Approval %s: %s", ev.Resolution, a.Request.Summary), string(ev.Reason), ev.RequestID)
}

func (p *Projector) ended(t *heldTurn, e *turn.Event, row AuditRow, status turn.Status, reason string) {
	t.Status, t.EndedAt = turn.StatusAfter(t.Status, e.Payload, t.PendingCount), e.OccurredAt
	row.Kind, row.Detail = AuditTurnEnded, string(status)
	if reason != "" {
		row.Detail += ": " + reason
	}
	t.addAudit(row)
	t.addTimeline(e, "turn_ended", "Turn "+string(status), reason, "")
}

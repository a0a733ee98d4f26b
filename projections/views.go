// Package projections holds turnstile's read models — the effective snapshot
// of each turn, pending approvals, turn-scoped grants, audit rows and
// timeline rows — as folds over turn events. One Projector keeps them
// current from the store's subscription; a rebuild by replay, or a restore
// from a checkpoint and a replay of the tail, gives exactly the same read
// models. It holds open and recent turns in full and a summary of older
// ones, whose full read models are folded from their streams on demand.
package projections

import (
	"time"

	"turnstile/domain"
	"turnstile/domain/turn"
)

// TurnView is a turn as clients see it: turn.Summary, folded by the same
// turn.Summary.Apply that the engine's state folds, so that a command's
// answer and a read of the read model cannot disagree on a field.
type TurnView = turn.Summary

// ApprovalView is one approval request and what became of it.
type ApprovalView struct {
	Request    turn.ApprovalRequest `json:"request"`
	ToolCallID string               `json:"tool_call_id"`
	ItemID     string               `json:"item_id,omitempty"`
	// Status is "pending" or "resolved".
	Status     string            `json:"status"`
	Resolution domain.Resolution `json:"resolution,omitempty"`
	ResolvedBy domain.Actor      `json:"resolved_by,omitzero"`
	OpenedAt   time.Time         `json:"opened_at"`
	ExpiresAt  time.Time         `json:"expires_at"`
	ResolvedAt time.Time         `json:"resolved_at,omitzero"`
	// OpenedVersion is the turn version of the request's opening.
	OpenedVersion int64 `json:"opened_version"`
	// Version is the turn version of the request's last change.
	Version int64 `json:"version"`
	// Position is the store position of the request's last change.
	Position string `json:"position"`
}

// Approval statuses.
const (
	ApprovalPending  = "pending"
	ApprovalResolved = "resolved"
)

// RequestKey identifies what a decision was about.
type RequestKey struct {
	ActionKind domain.ActionKind `json:"action_kind"`
	ScopeHash  string            `json:"scope_hash"`
}

// AuditRow is one audited event (REFERENCE §7). Scope values that could hold
// secrets are redacted before they reach an event, so never appear here.
type AuditRow struct {
	Position      string               `json:"position"`
	TurnID        string               `json:"turn_id"`
	Version       int64                `json:"version"`
	EventID       string               `json:"event_id"`
	Kind          string               `json:"kind"`
	OccurredAt    time.Time            `json:"occurred_at"`
	Actor         domain.Actor         `json:"actor,omitzero"`
	ProfileMode   domain.Mode          `json:"profile_mode"`
	ProfileSource domain.ProfileSource `json:"profile_source"`
	ItemID        string               `json:"item_id,omitempty"`
	ToolCallID    string               `json:"tool_call_id,omitempty"`
	ToolName      string               `json:"tool_name,omitempty"`
	ActionKind    domain.ActionKind    `json:"action_kind,omitempty"`
	RequestKey    *RequestKey          `json:"request_key,omitempty"`
	RequestID     string               `json:"request_id,omitempty"`
	// Decision is allow, ask, deny, allow_once, allow_for_turn, cancelled or expired.
	Decision string        `json:"decision,omitempty"`
	Reason   domain.Reason `json:"reason,omitempty"`
	Cached   bool          `json:"cached"`
	Scope    domain.Scope  `json:"scope,omitempty"`
	Detail   string        `json:"detail,omitempty"`
}

// Audit row kinds.
const (
	AuditProfileSelected    = "profile_selected"
	AuditSnapshotResolved   = "security_snapshot_resolved"
	AuditSandboxDegraded    = "sandbox_degraded"
	AuditSandboxUnavailable = "sandbox_unavailable"
	AuditDecisionAllowed    = "decision_allowed"
	AuditDecisionDenied     = "decision_denied"
	AuditApprovalRequested  = "approval_requested"
	AuditApprovalResolved   = "approval_resolved"
	AuditProfileChanged     = "profile_changed"
	AuditTurnEnded          = "turn_ended"
	AuditToolCompleted      = "tool_completed"
	// AuditEgressTraffic summarises the egress proxy's connections to one
	// origin (turn.EgressTraffic).
	AuditEgressTraffic = "egress_traffic"
	// AuditExecQuarantined names what a command left that the check after
	// it set aside (repositories, rebase states, protected files) or could
	// not cover (turn.ExecFinished's Quarantined and CheckLimits).
	AuditExecQuarantined = "exec_quarantined"
)

// TimelineRow is one line a person should see in a client UI.
type TimelineRow struct {
	TurnID     string    `json:"turn_id"`
	Version    int64     `json:"version"`
	OccurredAt time.Time `json:"occurred_at"`
	// Kind is prompt, header, denied, approval_requested,
	// approval_resolved, sandbox, profile_changed, tool_ran,
	// tool_ran_unallowed or turn_ended.
	Kind      string `json:"kind"`
	Title     string `json:"title"`
	Detail    string `json:"detail,omitempty"`
	RequestID string `json:"request_id,omitempty"`
}

package projections

import (
	"fmt"
	"sync"

	"turnstile/domain"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
)

// Projector folds turn events into every read model. Apply is called by one
// goroutine (the follower); queries may run concurrently.
type Projector struct {
	mu sync.RWMutex // guards everything below

	pos       eventstore.Position
	applied   uint64
	turns     map[string]*TurnView
	approvals map[string]*ApprovalView
	pending   map[string]map[string]struct{} // turn id → pending request ids
	audit     auditLog
	byTurn    map[string][]int // turn id → indexes into audit
	timeline  map[string][]TimelineRow
	changed   chan struct{} // closed and replaced after every Apply
}

// New returns an empty projector.
func New() *Projector {
	return &Projector{
		turns: map[string]*TurnView{}, approvals: map[string]*ApprovalView{}, pending: map[string]map[string]struct{}{},
		byTurn: map[string][]int{}, timeline: map[string][]TimelineRow{},
		changed: make(chan struct{}),
	}
}

// Position is the store position of the last event applied.
func (p *Projector) Position() eventstore.Position {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.pos
}

// Applied counts the events applied.
func (p *Projector) Applied() uint64 {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.applied
}

// Changed returns a channel closed at the next Apply.
func (p *Projector) Changed() <-chan struct{} {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.changed
}

// Apply folds one event. Events at or before the last position applied are
// ignored, so a resubscription may deliver them again.
func (p *Projector) Apply(e *turn.Event) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.applied > 0 && !p.pos.Less(e.Position) {
		return nil
	}
	if err := p.apply(e); err != nil {
		return err
	}
	p.pos = e.Position
	p.applied++
	close(p.changed)
	p.changed = make(chan struct{})
	return nil
}

func (p *Projector) apply(e *turn.Event) error {
	t := p.turns[e.TurnID]
	if t == nil {
		if _, ok := e.Payload.(*turn.TurnStarted); !ok {
			return fmt.Errorf("projections: %s@%d (%s) before the turn started", e.TurnID, e.Version, e.Type)
		}
		v := turn.NewSummary(e.TurnID)
		t = &v
		p.turns[e.TurnID] = t
	}
	row := p.row(t, e)
	// The turn's own fields, its status and its open count: the engine's
	// fold (turn.Summary.Apply), with the request's state as this read
	// model knows it.
	named := approvalState(p.approvals[turn.NamedRequest(e.Payload)])
	moved := t.Apply(e, named)
	switch ev := e.Payload.(type) {
	case *turn.TurnStarted:
		if prompt := turn.PromptText(ev.Input); prompt != "" {
			if r := []rune(prompt); len(r) > maxPromptRunes {
				prompt = string(r[:maxPromptRunes]) + "…" // the event keeps it whole
			}
			p.addTimeline(e, "prompt", "Prompt", prompt, "")
		}
		return nil
	case *turn.ProfileSelected:
		row.ProfileMode, row.ProfileSource = ev.Profile.Mode, ev.Profile.Source
		row.Kind, row.Detail = AuditProfileSelected, "mode "+string(ev.Profile.Mode)+" from "+string(ev.Profile.Source)
		p.addAudit(row)
		p.addTimeline(e, "header", fmt.Sprintf("Permissions: %s", ev.Profile.Mode), "source "+string(ev.Profile.Source), "")
	case *turn.SecuritySnapshotResolved:
		p.snapshot(t, e, row, ev.Snapshot, AuditSnapshotResolved)
	case *turn.ProfileChanged:
		p.snapshot(t, e, row, ev.Snapshot, AuditProfileChanged)
		p.addTimeline(e, "profile_changed", fmt.Sprintf("Permissions changed to %s", ev.Profile.Mode), "approvals granted for the turn were cleared", "")
	case *turn.DecisionAllowed:
		p.decision(e, row, &ev.Decided, AuditDecisionAllowed)
	case *turn.DecisionDenied:
		p.decision(e, row, &ev.Decided, AuditDecisionDenied)
		title := "Denied: " + ev.Action.Summary
		kind := "denied"
		if ev.Decision.Reason == domain.ReasonSandboxDenied {
			kind, title = "sandbox", "Sandbox refused: "+ev.Action.Summary
		}
		p.addTimeline(e, kind, title, string(ev.Decision.Reason)+detailSuffix(ev.Refusal, ev.Message), ev.RequestID)
	case *turn.ApprovalRequested:
		if moved != named {
			p.requested(t, e, row, ev, moved)
		}
	case *turn.ApprovalResolved:
		if moved != named {
			p.resolved(t, e, row, ev, moved)
		}
	case *turn.TurnCompleted:
		p.ended(e, row, turn.StatusCompleted, ev.Reason)
	case *turn.TurnInterrupted:
		p.ended(e, row, turn.StatusInterrupted, ev.Reason)
	case *turn.TurnFailed:
		p.ended(e, row, turn.StatusFailed, ev.Reason)
	case *turn.ToolCompleted:
		p.toolCompleted(e, row, ev)
	case *turn.EgressTraffic:
		row.Kind, row.ActionKind, row.Decision = AuditEgressTraffic, domain.ActionNetwork, "allow"
		row.Detail = fmt.Sprintf("%s: %d connections, %d bytes up, %d bytes down", ev.Origin, ev.Connections, ev.BytesUp, ev.BytesDown)
		if ev.Closed > 0 {
			row.Detail += fmt.Sprintf(", %d closed by a narrowing", ev.Closed)
		}
		p.addAudit(row)
	case *turn.ExecStarted, *turn.ExecFinished, *turn.ChildTurnStarted:
		// Recorded for the engine (a started call never runs twice; ending
		// a turn ends its children); the decisions are already rows.
	default:
		return fmt.Errorf("projections: %w: %T", turn.ErrUnknownEventType, e.Payload)
	}
	return nil
}

// maxPromptRunes bounds the prompt a timeline row shows.
const maxPromptRunes = 2000

// toolCompleted records a tool the runtime reports as run; one that ran
// without an allowing decision is a timeline row of its own.
func (p *Projector) toolCompleted(e *turn.Event, row AuditRow, ev *turn.ToolCompleted) {
	row.Kind, row.ToolCallID, row.ToolName = AuditToolCompleted, ev.ToolCallID, ev.Action.ToolName
	row.ActionKind, row.RequestKey = ev.Action.Kind, &RequestKey{ActionKind: ev.Action.Kind, ScopeHash: ev.Action.ScopeHash}
	row.RequestID, row.Decision, row.Scope, row.Detail = ev.RequestID, ev.Decision, ev.Action.Scope, ev.Action.Summary
	p.addAudit(row)
	switch ev.Decision {
	case "allow", "allow_once", "allow_for_turn":
		p.addTimeline(e, "tool_ran", "Ran: "+ev.Action.Summary, ev.ClientTool, ev.RequestID)
	default:
		p.addTimeline(e, "tool_ran_unallowed", "Ran without an allowing decision ("+ev.Decision+"): "+ev.Action.Summary, ev.ClientTool, ev.RequestID)
	}
}

func detailSuffix(refusal, msg string) string {
	out := ""
	if refusal != "" {
		out += ": " + refusal
	}
	if msg != "" {
		out += " (" + msg + ")"
	}
	return out
}

// row starts an audit row for e with the turn's current profile.
func (p *Projector) row(t *TurnView, e *turn.Event) AuditRow {
	return AuditRow{
		Position: e.Position.String(), TurnID: e.TurnID, Version: e.Version, EventID: e.ID.String(),
		OccurredAt: e.OccurredAt, Actor: e.Actor, ProfileMode: t.Profile.Mode, ProfileSource: t.Profile.Source,
	}
}

func (p *Projector) addAudit(r AuditRow) {
	p.byTurn[r.TurnID] = append(p.byTurn[r.TurnID], p.audit.len())
	p.audit.add(r)
}

// auditLog stores audit rows in fixed-size chunks, so that growing it never
// copies the rows already there.
type auditLog struct {
	chunks [][]AuditRow
	n      int
}

const auditChunk = 4096

func (l *auditLog) len() int { return l.n }

func (l *auditLog) add(r AuditRow) {
	if l.n%auditChunk == 0 {
		l.chunks = append(l.chunks, make([]AuditRow, 0, auditChunk))
	}
	c := &l.chunks[len(l.chunks)-1]
	*c = append(*c, r)
	l.n++
}

func (l *auditLog) at(i int) *AuditRow { return &l.chunks[i/auditChunk][i%auditChunk] }

func (p *Projector) addTimeline(e *turn.Event, kind, title, detail, requestID string) {
	p.timeline[e.TurnID] = append(p.timeline[e.TurnID], TimelineRow{
		TurnID: e.TurnID, Version: e.Version, OccurredAt: e.OccurredAt, Kind: kind, Title: title, Detail: detail, RequestID: requestID,
	})
}

func (p *Projector) snapshot(t *TurnView, e *turn.Event, row AuditRow, s domain.TurnExecutionSecuritySnapshot, kind string) {
	row.ProfileMode, row.ProfileSource = s.PermissionProfile.Mode, s.PermissionProfile.Source
	row.Kind = kind
	row.Detail = fmt.Sprintf("sandbox %s, network %s, enforcement %s", s.Sandbox.Mode, s.Network.Mode, s.Enforcement.Status)
	p.addAudit(row)
	if s.Enforcement.Status == domain.EnforcementActive {
		return
	}
	row.Kind = AuditSandboxDegraded
	if s.Enforcement.Status == domain.EnforcementUnavailable {
		row.Kind = AuditSandboxUnavailable
	}
	detail := s.Enforcement.Reason
	for _, d := range s.Enforcement.Degradations {
		if detail != "" {
			detail += "; "
		}
		detail += d.Dimension + ": " + d.Reason
	}
	row.Detail = detail
	p.addAudit(row)
	p.addTimeline(e, "sandbox", "Sandbox "+string(s.Enforcement.Status), detail, "")
}

func (p *Projector) decision(e *turn.Event, row AuditRow, d *turn.Decided, kind string) {
	row.Kind, row.ItemID, row.ToolCallID, row.ToolName = kind, d.ItemID, d.ToolCallID, d.Action.ToolName
	row.ActionKind, row.RequestKey = d.Action.Kind, &RequestKey{ActionKind: d.Action.Kind, ScopeHash: d.Action.ScopeHash}
	row.RequestID, row.Decision, row.Reason, row.Cached = d.RequestID, d.Decision.Behavior.String(), d.Decision.Reason, d.Decision.Cached
	row.Scope, row.Detail = d.Action.Scope, d.Action.Summary
	if d.Refusal != "" {
		row.Detail += detailSuffix(d.Refusal, d.Message)
	}
	p.addAudit(row)
}

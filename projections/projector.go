package projections

import (
	"fmt"
	"strings"
	"sync"

	"github.com/google/uuid"

	"turnstile/domain"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
)

// DefaultRecentTurns is how many ended turns keep their full read models in
// memory by default.
const DefaultRecentTurns = 256

// DefaultRecentBytes bounds the stored size of the events of the ended
// turns held in full: a turn may hold up to a credential's open-turn quota
// (256 MiB stored) while it runs, and without a bound in bytes the agent
// could end RecentTurns such turns one after another and have them all
// kept, a few times their stored size in memory each.
const DefaultRecentBytes = 64 << 20

// Options tunes a Projector.
type Options struct {
	// RecentTurns is how many ended turns keep their full read models
	// (snapshot, audit, timeline, approvals) in memory, the latest to end
	// first; an older one keeps only a compact summary (see TurnHeld)
	// and its full read models are folded from its stream on demand
	// (FoldTurn). Open turns are always held. 0 means DefaultRecentTurns; a
	// negative value holds every turn. Eviction follows the order of the
	// events only (never a clock), so a replay evicts exactly the same turns.
	RecentTurns int
	// RecentBytes bounds, besides, the stored size of the events of those
	// ended turns (their events after the end too): the earliest to end
	// are evicted while the sum is above it, even below RecentTurns. 0
	// means DefaultRecentBytes; a negative value sets no bound in bytes.
	RecentBytes int64
	// Archive keeps the summaries of old turns; nil keeps them in memory.
	// A projector that is not restored from a checkpoint needs it empty
	// (Reset) before its first event.
	Archive Archive
}

// Projector folds turn events into every read model. Apply is called by one
// goroutine (the follower); queries may run concurrently.
//
// What it holds is bounded by what is live: every open turn and the
// RecentTurns latest ended ones in full (held), a compact summary of every
// older turn in its archive (on disk for serve), the approvals of held turns (every pending one among
// them: a turn ends only once its requests are resolved).
type Projector struct {
	mu sync.RWMutex // guards everything below

	recentMax int // < 0: never evict
	// recentBytesMax bounds recentBytes, the sum of the queued turns'
	// bytes (< 0: no bound).
	recentBytesMax, recentBytes int64
	pos                         eventstore.Position
	last                        Mark // the last event applied (pos is last.Position)
	applied                     uint64
	held                        map[string]*heldTurn
	archive                     Archive // the summaries of old turns
	// restored: the projector was restored from a checkpoint (its archive
	// then holds what the checkpoint names, and may hold more).
	restored, restoredInline bool // restoredInline: see RestoredInline
	// recent are the held turns that have ended, in the order they ended;
	// recent[recentHead:] is the queue.
	recent     []string
	recentHead int
	approvals  map[string]*ApprovalView       // of held turns
	pending    map[string]map[string]struct{} // turn id → pending request ids
	openBy     map[string]int                 // principal name → turns it started that are live
	heldBy     map[string]int64               // principal name → stored size of those turns' events
	// cur is the mark of the event being applied (the last applied
	// between events; the checkpoint's while restoring): what the
	// archive's records are given.
	cur Mark
	// pmu guards the caches below (queries fill decoded under the read
	// lock): profiles of old turns by digest, decoded, and the digests the
	// archive was given lately; each bounded by profileCache.
	pmu     sync.Mutex
	decoded map[string]*domain.TurnPermissionProfileSnapshot
	given   map[string]bool
	changed chan struct{} // closed and replaced after every Apply
	// broken is the error of an Apply that failed part-way: the read
	// models may then be wrong, and no checkpoint is taken of them.
	broken error
}

// heldTurn is a turn whose read models are all in memory.
type heldTurn struct {
	TurnView
	audit    auditLog
	timeline timelineLog
	requests []string // approval request ids, in order opened
	queued   bool     // in recent
	// startedBy is the name of the principal that started the turn; live
	// says the turn is counted in its openBy and its bytes in heldBy.
	startedBy string
	live      bool
	bytes     int64 // the stored size of the turn's events
	// by is bytes by the name each event is charged to (chargedTo).
	by map[string]int64
}

// Mark identifies the last event a projector applied: a checkpoint holds
// it, and is trusted only when the store still has that very event there.
type Mark struct {
	Position eventstore.Position
	Stream   string
	Revision uint64
	EventID  uuid.UUID
	// PrevHash is the event's link in its stream's hash chain (the hash of
	// the event before it; "" for a stream's first): with the id it ties
	// the mark to the stored content, not only to a deterministic id.
	PrevHash string
}

// New returns an empty projector with the default options.
func New() *Projector { return NewWith(Options{}) }

// NewWith returns an empty projector.
func NewWith(o Options) *Projector {
	if o.RecentTurns == 0 {
		o.RecentTurns = DefaultRecentTurns
	}
	if o.RecentBytes == 0 {
		o.RecentBytes = DefaultRecentBytes
	}
	if o.Archive == nil {
		o.Archive = newMemArchive()
	}
	return &Projector{
		recentMax: o.RecentTurns, recentBytesMax: o.RecentBytes,
		held: map[string]*heldTurn{}, archive: o.Archive,
		decoded: map[string]*domain.TurnPermissionProfileSnapshot{}, given: map[string]bool{},
		approvals: map[string]*ApprovalView{}, pending: map[string]map[string]struct{}{}, openBy: map[string]int{},
		heldBy:  map[string]int64{},
		changed: make(chan struct{}),
	}
}

// Position is the store position of the last event applied.
func (p *Projector) Position() eventstore.Position {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.pos
}

// Mark is the last event applied (zero before the first).
func (p *Projector) Mark() Mark {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.last
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
	if p.applied == 0 && !p.restored && p.archive.Len() > 0 {
		p.broken = ErrArchiveNotEmpty
		return p.broken
	}
	p.cur = Mark{Position: e.Position, Stream: turn.StreamName(e.TurnID), Revision: uint64(e.Version), EventID: e.ID, PrevHash: e.PrevHash}
	if err := p.apply(e); err != nil {
		p.broken = err
		return err
	}
	p.pos = e.Position
	p.last = p.cur
	p.applied++
	close(p.changed)
	p.changed = make(chan struct{})
	return nil
}

func (p *Projector) apply(e *turn.Event) error {
	t := p.held[e.TurnID]
	if t == nil {
		if _, ok := e.Payload.(*turn.TurnStarted); !ok {
			return p.applyOld(e)
		}
		// A turn starts once; one in the archive already ended after the
		// checkpoint this projector was restored from, before a restart,
		// and is held again as a replay from the checkpoint holds it
		// (the held turn hides the archived one, and replaces it when it
		// is evicted again).
		t = &heldTurn{TurnView: turn.NewSummary(e.TurnID)}
		p.held[e.TurnID] = t
	}
	if err := p.fold(t, e); err != nil {
		return err
	}
	switch {
	case !t.queued && t.Status.Terminal():
		t.queued = true
		p.recent = append(p.recent, t.TurnID)
		p.recentBytes += t.bytes
		return p.evict()
	case t.queued:
		// An event after the end (exec.finished, egress traffic) grows
		// a queued turn: evicted now as at the end, so that what is
		// held never depends on when the next turn ends.
		p.recentBytes += int64(e.Size)
		return p.evict()
	}
	return nil
}

// applyOld folds an event of a turn the projector no longer holds into its
// archived summary. One the summary already reflects (the archive was
// written past the checkpoint restored from) is skipped.
func (p *Projector) applyOld(e *turn.Event) error {
	s, err := p.oldTurn(e.TurnID)
	if err != nil {
		return err
	}
	if s == nil {
		return fmt.Errorf("projections: %s@%d (%s) before the turn started", e.TurnID, e.Version, e.Type)
	}
	if e.Version <= s.version {
		return nil
	}
	if err := s.apply(p, e); err != nil {
		return err
	}
	return p.putOld(s)
}

// fold applies e to a held turn.
func (p *Projector) fold(t *heldTurn, e *turn.Event) error {
	row := p.row(&t.TurnView, e)
	// The turn's own fields, its status and its open count: the engine's
	// fold (turn.Summary.Apply), with the request's state as this read
	// model knows it.
	named := approvalState(p.approvals[turn.NamedRequest(e.Payload)])
	moved := t.Apply(e, named)
	p.countLive(t, e)
	switch ev := e.Payload.(type) {
	case *turn.TurnStarted:
		if prompt := turn.PromptText(ev.Input); prompt != "" {
			t.addTimeline(e, "prompt", "Prompt", domain.CutRunes(prompt, maxPromptRunes), "") // the event keeps it whole
		}
	case *turn.ProfileSelected:
		row.ProfileMode, row.ProfileSource = ev.Profile.Mode, ev.Profile.Source
		row.Kind, row.Detail = AuditProfileSelected, "mode "+string(ev.Profile.Mode)+" from "+string(ev.Profile.Source)
		t.addAudit(e, row)
		t.addTimeline(e, "header", fmt.Sprintf("Permissions: %s", ev.Profile.Mode), "source "+string(ev.Profile.Source), "")
	case *turn.SecuritySnapshotResolved:
		p.snapshot(t, e, row, ev.Snapshot, AuditSnapshotResolved)
	case *turn.ProfileChanged:
		if ev.Confirmed {
			// The same permissions, set again by someone who may widen:
			// nothing changed but who asked for them (no grant cleared;
			// the sandbox's state is as the last row says).
			row.Kind, row.Detail = AuditProfileChanged, "confirmed: the same permissions, set by "+e.Actor.Name
			row.ProfileMode, row.ProfileSource = ev.Profile.Mode, ev.Profile.Source
			t.addAudit(e, row)
			t.addTimeline(e, "profile_changed", fmt.Sprintf("Permissions confirmed as %s", ev.Profile.Mode), "by "+e.Actor.Name+"; nothing changed, approvals for the turn stand", "")
			break
		}
		p.snapshot(t, e, row, ev.Snapshot, AuditProfileChanged)
		t.addTimeline(e, "profile_changed", fmt.Sprintf("Permissions changed to %s", ev.Profile.Mode), "approvals granted for the turn were cleared", "")
	case *turn.DecisionAllowed:
		p.decision(t, e, row, &ev.Decided, AuditDecisionAllowed)
	case *turn.DecisionDenied:
		p.decision(t, e, row, &ev.Decided, AuditDecisionDenied)
		title := "Denied: " + ev.Action.Summary
		kind := "denied"
		if ev.Decision.Reason == domain.ReasonSandboxDenied {
			kind, title = "sandbox", "Sandbox refused: "+ev.Action.Summary
		}
		t.addTimeline(e, kind, title, string(ev.Decision.Reason)+detailSuffix(ev.Refusal, ev.Message), ev.RequestID)
	case *turn.ApprovalRequested:
		if moved != named {
			p.requested(t, e, row, ev, moved)
		}
	case *turn.ApprovalResolved:
		if moved != named {
			p.resolved(t, e, row, ev, moved)
		}
	case *turn.TurnCompleted:
		p.ended(t, e, row, turn.StatusCompleted, ev.Reason)
	case *turn.TurnInterrupted:
		p.ended(t, e, row, turn.StatusInterrupted, ev.Reason)
	case *turn.TurnFailed:
		p.ended(t, e, row, turn.StatusFailed, ev.Reason)
	case *turn.ToolCompleted:
		p.toolCompleted(t, e, row, ev)
	case *turn.EgressTraffic:
		row.Kind, row.ActionKind, row.Decision = AuditEgressTraffic, domain.ActionNetwork, "allow"
		row.Detail = fmt.Sprintf("%s: %d connections, %d bytes up, %d bytes down", ev.Origin, ev.Connections, ev.BytesUp, ev.BytesDown)
		if ev.Closed > 0 {
			row.Detail += fmt.Sprintf(", %d closed by a narrowing", ev.Closed)
		}
		t.addAudit(e, row)
	case *turn.ExecFinished:
		// Recorded for the engine (a started call never runs twice); the
		// decision is already a row, what the check set aside is one.
		if len(ev.Quarantined) > 0 || len(ev.CheckLimits) > 0 {
			row.Kind, row.ToolCallID, row.Detail = AuditExecQuarantined, ev.ToolCallID, quarantineDetail(ev)
			t.addAudit(e, row)
			t.addTimeline(e, AuditExecQuarantined, "What the command left was set aside", row.Detail, "")
		}
	case *turn.ExecStarted, *turn.ChildTurnStarted:
		// Recorded for the engine (a started call never runs twice; ending
		// a turn ends its children); the decisions are already rows.
	default:
		return fmt.Errorf("projections: %w: %T", turn.ErrUnknownEventType, e.Payload)
	}
	return nil
}

// countLive keeps openBy and heldBy: a turn counts for the principal that
// started it from its start until its status is terminal; the stored size
// of each of its events meanwhile counts for the principal whose command
// appended it (chargedTo), so that one credential's calls in a turn
// another started are held against its own quota, not the other's.
func (p *Projector) countLive(t *heldTurn, e *turn.Event) {
	if _, ok := e.Payload.(*turn.TurnStarted); ok && t.startedBy == "" {
		t.startedBy = e.Actor.Name
	}
	who := chargedTo(t, e)
	if t.by == nil {
		t.by = map[string]int64{}
	}
	t.bytes += int64(e.Size)
	t.by[who] += int64(e.Size)
	live := t.Status != turn.StatusNone && !t.Status.Terminal()
	switch {
	case live && t.live:
		p.heldBy[who] += int64(e.Size)
	case live:
		t.live = true
		p.openBy[t.startedBy]++
		for name, n := range t.by {
			p.heldBy[name] += n
		}
	case t.live:
		t.live = false
		if p.openBy[t.startedBy]--; p.openBy[t.startedBy] <= 0 {
			delete(p.openBy, t.startedBy)
		}
		for name, n := range t.by {
			if name == who {
				n -= int64(e.Size) // never added: the turn ended with it
			}
			if p.heldBy[name] -= n; p.heldBy[name] <= 0 {
				delete(p.heldBy, name)
			}
		}
	}
}

// chargedTo is the principal an event's stored size counts for: the one
// whose command appended it, or the turn's starter for the service's own
// (the egress proxy's decisions, expiries: role system) and for an actor
// without a role (the service itself).
func chargedTo(t *heldTurn, e *turn.Event) string {
	if e.Actor.Name == "" || e.Actor.Role == "" || e.Actor.Role == "system" {
		return t.startedBy
	}
	return e.Actor.Name
}

// LiveTurnsOf is how many turns the principal named name started that are
// not yet ended (child turns included).
func (p *Projector) LiveTurnsOf(name string) int {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.openBy[name]
}

// HeldBytesOf is the stored size of the events charged to the principal
// that started turnID in live turns (its name; "" when the turn is not
// live).
func (p *Projector) HeldBytesOf(turnID string) (name string, bytes int64) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	t := p.held[turnID]
	if t == nil || !t.live {
		return "", 0
	}
	return t.startedBy, p.heldBy[t.startedBy]
}

// HeldBytesBy is the stored size of the events charged to the principal
// named name in live turns (its commands', in any turn).
func (p *Projector) HeldBytesBy(name string) int64 {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.heldBy[name]
}

// maxPromptRunes bounds the prompt a timeline row shows, and its title (a
// long command's summary: the audit row and the approval keep it whole).
const maxPromptRunes = 2000

// toolCompleted records a tool the runtime reports as run; one that ran
// without an allowing decision is a timeline row of its own.
func (p *Projector) toolCompleted(t *heldTurn, e *turn.Event, row AuditRow, ev *turn.ToolCompleted) {
	row.Kind, row.ToolCallID, row.ToolName = AuditToolCompleted, ev.ToolCallID, ev.Action.ToolName
	row.ActionKind, row.RequestKey = ev.Action.Kind, &RequestKey{ActionKind: ev.Action.Kind, ScopeHash: ev.Action.ScopeHash}
	row.RequestID, row.Decision, row.Scope, row.Detail = ev.RequestID, ev.Decision, ev.Action.Scope, ev.Action.Summary
	t.addAudit(e, row)
	switch ev.Decision {
	case "allow", "allow_once", "allow_for_turn":
		t.addTimeline(e, "tool_ran", "Ran: "+ev.Action.Summary, ev.ClientTool, ev.RequestID)
	default:
		t.addTimeline(e, "tool_ran_unallowed", "Ran without an allowing decision ("+ev.Decision+"): "+ev.Action.Summary, ev.ClientTool, ev.RequestID)
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

// row starts an audit row for e with the turn's current profile. Its
// Position and EventID are left empty: the audit log keeps e's (addAudit)
// and formats them when the row is read.
func (p *Projector) row(t *TurnView, e *turn.Event) AuditRow {
	return AuditRow{
		TurnID: e.TurnID, Version: e.Version, OccurredAt: e.OccurredAt, Actor: e.Actor, ProfileMode: t.Profile.Mode, ProfileSource: t.Profile.Source,
	}
}

// addAudit appends the row r of event e.
func (t *heldTurn) addAudit(e *turn.Event, r AuditRow) { t.audit.add(e, &r) }

func (t *heldTurn) addTimeline(e *turn.Event, kind, title, detail, requestID string) {
	t.timeline.add(&TimelineRow{
		TurnID: e.TurnID, Version: e.Version, OccurredAt: e.OccurredAt, Kind: kind, Title: domain.CutRunes(title, maxPromptRunes), Detail: detail, RequestID: requestID,
	})
}

func (p *Projector) snapshot(t *heldTurn, e *turn.Event, row AuditRow, s domain.TurnExecutionSecuritySnapshot, kind string) {
	row.ProfileMode, row.ProfileSource = s.PermissionProfile.Mode, s.PermissionProfile.Source
	row.Kind = kind
	row.Detail = fmt.Sprintf("sandbox %s, network %s, enforcement %s", s.Sandbox.Mode, s.Network.Mode, s.Enforcement.Status)
	t.addAudit(e, row)
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
	t.addAudit(e, row)
	t.addTimeline(e, "sandbox", "Sandbox "+string(s.Enforcement.Status), detail, "")
}

func (p *Projector) decision(t *heldTurn, e *turn.Event, row AuditRow, d *turn.Decided, kind string) {
	row.Kind, row.ItemID, row.ToolCallID, row.ToolName = kind, d.ItemID, d.ToolCallID, d.Action.ToolName
	row.ActionKind, row.RequestKey = d.Action.Kind, &RequestKey{ActionKind: d.Action.Kind, ScopeHash: d.Action.ScopeHash}
	row.RequestID, row.Decision, row.Reason, row.Cached = d.RequestID, d.Decision.Behavior.String(), d.Decision.Reason, d.Decision.Cached
	row.Scope, row.Detail = d.Action.Scope, d.Action.Summary
	if d.Refusal != "" {
		row.Detail += detailSuffix(d.Refusal, d.Message)
	}
	t.addAudit(e, row)
}

// quarantineDetail lists what the check after a command set aside and
// what it could not cover.
func quarantineDetail(ev *turn.ExecFinished) string {
	var parts []string
	if len(ev.Quarantined) > 0 {
		parts = append(parts, "set aside: "+strings.Join(ev.Quarantined, ", "))
	}
	if len(ev.CheckLimits) > 0 {
		parts = append(parts, "not checked: "+strings.Join(ev.CheckLimits, "; "))
	}
	return strings.Join(parts, "; ")
}

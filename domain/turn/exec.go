package turn

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"turnstile/domain"
)

// Event type names of commands run and of child turns (stored: never rename).
const (
	TypeExecStarted      = "exec.started"
	TypeExecFinished     = "exec.finished"
	TypeChildTurnStarted = "turn.child_started"
)

// ExecStarted records, before anything runs, that an allowed command is
// about to run; a retry of the tool call id finds it and never runs twice.
type ExecStarted struct {
	ToolCallID string `json:"tool_call_id"`
	ScopeHash  string `json:"scope_hash"`
	// RequestID is the approval request that allowed it, if any.
	RequestID string `json:"request_id,omitempty"`
	// SnapshotVersion is the snapshot the command runs under.
	SnapshotVersion int64 `json:"snapshot_version"`
	// Instance is the engine that runs it. Two instances starting the same
	// call at the same instant would otherwise write identical events, and
	// the store would take the second append for a retry of the first.
	Instance string `json:"instance,omitempty"`
}

// ExecFinished records what a started command did (never its output).
type ExecFinished struct {
	ToolCallID string `json:"tool_call_id"`
	ExitCode   int    `json:"exit_code"`
	DurationMs int64  `json:"duration_ms"`
	TimedOut   bool   `json:"timed_out,omitempty"`
	// Stopped says why the command was killed before it ended by itself
	// ("permissions changed (version N)": a mid-turn change narrowed the
	// snapshot it ran under); empty when it was not.
	Stopped string `json:"stopped,omitempty"`
	// Quarantined are the paths of what the command left in a writable
	// root that a host program would run, set aside (a repository's git
	// dir, a rebase state, a .git file, a protected file); empty when none.
	Quarantined []string `json:"quarantined,omitempty"`
	// CheckLimits is what the check for what the command left could not
	// cover (a directory bound reached); empty when it covered everything.
	CheckLimits []string `json:"check_limits,omitempty"`
}

// ChildTurnStarted is appended to a parent turn before a child starts, so
// that ending the parent can end the child (the parent's stream lists its
// children; no read model is needed to find them).
type ChildTurnStarted struct {
	ChildTurnID string `json:"child_turn_id"`
}

// EventType implementations.
func (ExecStarted) EventType() string      { return TypeExecStarted }
func (ExecFinished) EventType() string     { return TypeExecFinished }
func (ChildTurnStarted) EventType() string { return TypeChildTurnStarted }

// ExecStep is what StartExec tells the caller to do.
type ExecStep int

// Exec steps. The zero value runs nothing.
const (
	// ExecNothing: the call is denied (the decision says why).
	ExecNothing ExecStep = iota
	// ExecPending: the call waits for a person's answer.
	ExecPending
	// ExecRun: exec.started was recorded now; the caller runs the command.
	ExecRun
	// ExecAlreadyStarted: the call started before; it never runs again.
	ExecAlreadyStarted
)

// StartExec decides a command for running, in one step: a new tool call
// is decided (and, when allowed, recorded as started); an approved one is
// re-checked against the current snapshot and recorded as started; a
// pending one waits; a started one is never started again. Invocation must
// bind everything that decides what runs (domain.Classify's exec bindings),
// so a retry with other content is a different scope and refused.
type StartExec struct {
	Meta
	ToolCallID string
	ItemID     string
	Invocation domain.Invocation
	TTL        time.Duration
	// MaxOpen bounds the turn's open approval requests (EvaluateTool.MaxOpen).
	MaxOpen int
	// Classified is Invocation classified against this state's cwd.
	Classified *domain.Action
	// Instance names the engine that will run the command (ExecStarted).
	Instance string
}

// FinishExec records what a started command did.
type FinishExec struct {
	Meta
	Finished ExecFinished
}

// RegisterChild records on a parent that a child turn starts.
type RegisterChild struct {
	Meta
	ChildTurnID string
}

// ReasonProfileChanged is the decided_by (and refusal code) of an approved
// call revoked because the profile was narrowed after the approval.
const ReasonProfileChanged = "permissions_changed"

func decideStartExec(s *State, c *StartExec) ([]Event, Outcome, error) {
	if s.Status == StatusNone {
		return nil, Outcome{}, &NotFoundError{Kind: "turn", ID: s.TurnID}
	}
	if c.ToolCallID == "" {
		return nil, Outcome{}, &domain.FieldError{Field: "tool_call_id", Message: "required"}
	}
	a, err := c.action(s)
	if err != nil {
		return nil, Outcome{}, err
	}
	call := s.Calls[c.ToolCallID]
	if call == nil {
		evs, out, err := decideEvaluate(s, &EvaluateTool{Meta: c.Meta, ToolCallID: c.ToolCallID, ItemID: c.ItemID, Invocation: c.Invocation, TTL: c.TTL, MaxOpen: c.MaxOpen, Classified: &a})
		if err != nil || out.Decision.Behavior != domain.BehaviorAllow {
			if out.Decision.Behavior == domain.BehaviorAsk {
				out.Exec = ExecPending
			}
			return evs, out, err
		}
		out.Exec = ExecRun
		return append(evs, s.started(c, &a, "")), out, nil
	}
	if err := foreignCall(call, &c.Meta, c.ToolCallID); err != nil {
		return nil, Outcome{}, err
	}
	if call.ToolName != a.ToolName || call.ScopeHash != a.ScopeHash {
		return nil, Outcome{}, &ConflictError{Code: "tool_call_reused",
			Message: fmt.Sprintf("tool_call_id %s was already decided for a different invocation (command, stdin, environment, cwd or executable differ)", c.ToolCallID)}
	}
	out := Outcome{Decision: call.Decision, Approval: s.approval(call.RequestID), Replayed: true}
	switch r := s.Approvals[call.RequestID]; {
	case call.Denial != nil:
		out.Decision, out.Refusal = *call.Denial, call.Refusal
		return nil, out, nil
	case call.Started || call.Consumed:
		out.Exec, out.Finished = ExecAlreadyStarted, call.Finished
		if r != nil && r.Resolution.Allows() {
			out.Decision = approved(call)
		}
		return nil, out, nil
	case r != nil && r.Status == RequestOpen:
		out.Exec = ExecPending
		return nil, out, nil
	case r != nil && !r.Resolution.Allows():
		out.Decision = domain.Decision{Behavior: domain.BehaviorDeny, Reason: r.Resolution.Reason(), Action: call.Decision.Action,
			ScopeHash: call.ScopeHash, DecidedBy: "approval"}
		return nil, out, nil
	case r == nil && call.Decision.Behavior != domain.BehaviorAllow:
		return nil, out, nil
	}
	if err := s.live(TransDecide); err != nil {
		return nil, Outcome{}, err
	}
	// An allowed call that has not run yet: it runs under the snapshot in
	// force now, so the snapshot decides again.
	var r *Approval
	if call.RequestID != "" {
		r = s.Approvals[call.RequestID]
	}
	if why := s.revoked(r, call, &a); why != "" {
		ev, d := s.revocation(&c.Meta, c.ToolCallID, c.ItemID, &a, call.RequestID, why)
		return []Event{ev}, Outcome{Decision: d, Refusal: ReasonProfileChanged, Approval: out.Approval}, nil
	}
	out.Replayed, out.Exec = false, ExecRun
	var evs []Event
	if r != nil {
		out.Decision = approved(call)
		if r.ResolvedReason == domain.ReasonPermissionsChanged {
			out.Decision.Reason, out.Decision.DecidedBy = r.ResolvedReason, ReasonProfileChanged
		}
		act := r.Action
		// A decision records no files but the request's summary and
		// details (see ActionRecord).
		act.Files, act.Summary, act.Details = nil, r.Request.Summary, r.Request.Details
		rec := Decided{ToolCallID: c.ToolCallID, ItemID: c.ItemID, Action: act, Decision: decisionRecordOf(out.Decision), RequestID: r.Request.RequestID}
		evs = append(evs, s.event(&c.Meta, []string{"run_approved", c.ToolCallID, r.Request.RequestID}, &DecisionAllowed{rec}))
	}
	return append(evs, s.started(c, &a, call.RequestID)), out, nil
}

func (c *StartExec) action(s *State) (domain.Action, error) {
	return s.classified(c.Classified, c.Invocation, nil)
}

func approved(call *Call) domain.Decision {
	return domain.Decision{Behavior: domain.BehaviorAllow, Reason: domain.ReasonUserApproved, Action: call.Decision.Action, ScopeHash: call.ScopeHash, DecidedBy: "approval"}
}

func (s *State) started(c *StartExec, a *domain.Action, requestID string) Event {
	return s.event(&c.Meta, []string{"exec_started", c.ToolCallID, c.Instance}, &ExecStarted{ToolCallID: c.ToolCallID, ScopeHash: a.ScopeHash,
		RequestID: requestID, SnapshotVersion: s.SnapshotVersion, Instance: c.Instance})
}

// revocation is the denial of an allowed call that has not run, because
// the snapshot changed since it was allowed (why): recorded once per
// snapshot version.
func (s *State) revocation(m *Meta, toolCallID, itemID string, a *domain.Action, requestID, why string) (Event, domain.Decision) {
	d := domain.Decision{Behavior: domain.BehaviorDeny, Reason: domain.ReasonPolicyDeniesAction, Action: a.Kind, ScopeHash: a.ScopeHash, DecidedBy: ReasonProfileChanged}
	rec := Decided{ToolCallID: toolCallID, ItemID: itemID, Action: record(a), Decision: decisionRecordOf(d), RequestID: requestID,
		Refusal: ReasonProfileChanged, Message: why}
	return s.event(m, []string{"revoked", toolCallID, strconv.FormatInt(s.SnapshotVersion, 10)}, &DecisionDenied{rec}), d
}

// revoked says why an allowed call that has not run is no longer allowed
// under the current snapshot ("" when it still is): the snapshot changed
// since the decision (or the approval request) and now denies the action,
// or now runs under a stricter mode than the one it was approved under.
func (s *State) revoked(r *Approval, call *Call, a *domain.Action) string {
	since, mode := call.SnapshotVersion, call.Mode
	if r != nil {
		since, mode = r.SnapshotVersion, r.Grant.Mode
	}
	if since == s.SnapshotVersion {
		return ""
	}
	cur := s.Snapshot.PermissionProfile.Mode
	d := domain.Evaluate(&s.Snapshot, a, s.Grants)
	// A request a permission change allowed (a widening resolves as
	// allow_once what it allows) was answered by no person: it holds only
	// while the snapshot allows the call outright, as a policy allow does.
	// Narrowed back, it ran unasked, recorded as a person's approval (the
	// hundred-and-seventy-eighth review).
	byPerson := r != nil && r.ResolvedReason != domain.ReasonPermissionsChanged
	switch {
	case d.Behavior == domain.BehaviorDeny:
		return fmt.Sprintf("the permission profile changed after the call was allowed (snapshot v%d → v%d): %s now denies it (%s)", since, s.SnapshotVersion, d.DecidedBy, d.Reason)
	case mode != "" && cur != mode && domain.StricterMode(cur, mode) == cur:
		return fmt.Sprintf("the permission profile changed after the call was allowed (snapshot v%d → v%d): mode %s is narrower than %s", since, s.SnapshotVersion, cur, mode)
	case !byPerson && d.Behavior != domain.BehaviorAllow:
		return fmt.Sprintf("the permission profile changed after the call was allowed (snapshot v%d → v%d): it now needs approval", since, s.SnapshotVersion)
	}
	return ""
}

func decideFinishExec(s *State, c *FinishExec) ([]Event, Outcome, error) {
	// Not only while the turn is live: a command started before the turn
	// ended is recorded when it stops (by the end), with what the check
	// after it set aside. The runtime's credential ends a turn, and an
	// agent that ended its own turn while its command ran erased the
	// record of what the command planted (the hundred-and-twenty-first
	// review).
	if s.Status == StatusNone {
		return nil, Outcome{}, &NotFoundError{Kind: "turn", ID: s.TurnID}
	}
	call := s.Calls[c.Finished.ToolCallID]
	if call == nil || !(call.Started || call.Consumed) {
		return nil, Outcome{}, &ConflictError{Code: "not_started", Message: fmt.Sprintf("tool call %s has not started", c.Finished.ToolCallID)}
	}
	if call.Finished != nil {
		return nil, Outcome{Replayed: true, Finished: call.Finished}, nil
	}
	f := c.Finished
	return []Event{s.event(&c.Meta, []string{"exec_finished", f.ToolCallID}, &f)}, Outcome{Finished: &f}, nil
}

func decideRegisterChild(s *State, c *RegisterChild) ([]Event, Outcome, error) {
	if s.Status == StatusNone {
		return nil, Outcome{}, &NotFoundError{Kind: "turn", ID: s.TurnID}
	}
	for _, id := range s.Children {
		if id == c.ChildTurnID {
			return nil, Outcome{Replayed: true}, nil
		}
	}
	if s.Status.Terminal() {
		return nil, Outcome{}, &IllegalTransitionError{TurnID: s.TurnID, State: s.Status, Transition: "start a child turn"}
	}
	if err := s.live(TransDecide); err != nil {
		return nil, Outcome{}, err
	}
	if err := ChildCapRefusal(s, c.ChildTurnID); err != nil {
		return nil, Outcome{}, err
	}
	return []Event{s.event(&c.Meta, []string{"child", c.ChildTurnID}, &ChildTurnStarted{ChildTurnID: c.ChildTurnID})}, Outcome{}, nil
}

// ChildCapRefusal refuses a child turn child of the parent s past
// MaxChildren, unless s has it already.
func ChildCapRefusal(s *State, child string) error {
	if len(s.Children) < MaxChildren || slices.Contains(s.Children, child) {
		return nil
	}
	return &domain.FieldError{Field: "parent_turn_id", Value: s.TurnID,
		Message: fmt.Sprintf("turn %s has %d child turns, the most one turn may start", s.TurnID, MaxChildren)}
}

// MaxChildren bounds the child turns one turn may start: a narrowing of
// the turn is carried to every one of them (and ending it ends them), and
// an agent must not be able to outrun that with children.
const MaxChildren = 256

// evolveExec applies the events of this file.
func (s *State) evolveExec(e *Event) bool {
	switch p := e.Payload.(type) {
	case *ExecStarted:
		if c := s.Calls[p.ToolCallID]; c != nil {
			c.Started = true
		}
	case *ExecFinished:
		if c := s.Calls[p.ToolCallID]; c != nil {
			f := *p
			c.Finished = &f
		}
	case *ChildTurnStarted:
		// The turn's own field (Summary.Apply keeps Children).
	default:
		return false
	}
	return true
}

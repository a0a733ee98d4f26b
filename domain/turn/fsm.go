package turn

import (
	"errors"
	"fmt"

	"github.com/looplab/fsm"
)

// Status is the state of a turn.
type Status string

// Turn states. StatusNone is a turn that has not started.
const (
	StatusNone             Status = "none"
	StatusInProgress       Status = "in_progress"
	StatusAwaitingApproval Status = "awaiting_approval"
	StatusCompleted        Status = "completed"
	StatusInterrupted      Status = "interrupted"
	StatusFailed           Status = "failed"
)

// Terminal reports whether s ends the turn: a terminal turn refuses every
// command, so access ends with the turn.
func (s Status) Terminal() bool {
	return s == StatusCompleted || s == StatusInterrupted || s == StatusFailed
}

// Transition names (the looplab/fsm events of the turn machine).
const (
	TransStart       = "start"
	TransDecide      = "decide"
	TransOpenRequest = "open_request"
	TransResolve     = "resolve_request"
	TransResolveLast = "resolve_last_request"
	TransChange      = "change_profile"
	TransComplete    = "complete"
	TransInterrupt   = "interrupt"
	TransFail        = "fail"
)

var live = []string{string(StatusInProgress), string(StatusAwaitingApproval)}

// TurnTransitions is the turn's state machine as one table: in_progress ⇄
// awaiting_approval → completed | interrupted | failed. Self-loops (a
// decision, a resolution that leaves requests open, a profile change) are
// legal only in a live state.
var TurnTransitions = fsm.Events{
	{Name: TransStart, Src: []string{string(StatusNone)}, Dst: string(StatusInProgress)},
	{Name: TransDecide, Src: []string{string(StatusInProgress)}, Dst: string(StatusInProgress)},
	{Name: TransDecide, Src: []string{string(StatusAwaitingApproval)}, Dst: string(StatusAwaitingApproval)},
	{Name: TransOpenRequest, Src: live, Dst: string(StatusAwaitingApproval)},
	{Name: TransResolve, Src: []string{string(StatusAwaitingApproval)}, Dst: string(StatusAwaitingApproval)},
	{Name: TransResolveLast, Src: []string{string(StatusAwaitingApproval)}, Dst: string(StatusInProgress)},
	{Name: TransChange, Src: []string{string(StatusInProgress)}, Dst: string(StatusInProgress)},
	{Name: TransChange, Src: []string{string(StatusAwaitingApproval)}, Dst: string(StatusAwaitingApproval)},
	{Name: TransComplete, Src: live, Dst: string(StatusCompleted)},
	{Name: TransInterrupt, Src: live, Dst: string(StatusInterrupted)},
	{Name: TransFail, Src: live, Dst: string(StatusFailed)},
}

// Approval request transition names.
const (
	RequestTransOpen    = "open"
	RequestTransResolve = "resolve"
)

// RequestTransitions is an approval request's state machine: none → open →
// resolved. Both folds move requests only through it (RequestMove).
var RequestTransitions = fsm.Events{
	{Name: RequestTransOpen, Src: []string{string(RequestNone)}, Dst: string(RequestOpen)},
	{Name: RequestTransResolve, Src: []string{string(RequestOpen)}, Dst: string(RequestResolved)},
}

// RequestStatus is the state of an approval request.
type RequestStatus string

// Request states. RequestNone is a request no event has opened yet.
const (
	RequestNone     RequestStatus = "none"
	RequestOpen     RequestStatus = "open"
	RequestResolved RequestStatus = "resolved"
)

// ErrIllegalTransition is wrapped by every refusal of the state machine.
var ErrIllegalTransition = errors.New("illegal transition")

// IllegalTransitionError names the state and the transition refused.
type IllegalTransitionError struct {
	TurnID     string
	State      Status
	Transition string
}

func (e *IllegalTransitionError) Error() string {
	return fmt.Sprintf("%v: turn %s is %s and cannot %s", ErrIllegalTransition, e.TurnID, e.State, e.Transition)
}

// Unwrap makes errors.Is(err, ErrIllegalTransition) hold.
func (e *IllegalTransitionError) Unwrap() error { return ErrIllegalTransition }

type transKey struct {
	from  Status
	trans string
}

// table is TurnTransitions as a lookup, derived once so that the hot path
// allocates nothing; TestTableMatchesFSM checks it against looplab/fsm.
var table = func() map[transKey]Status {
	m := map[transKey]Status{}
	for _, e := range TurnTransitions {
		for _, src := range e.Src {
			m[transKey{Status(src), e.Name}] = Status(e.Dst)
		}
	}
	return m
}()

// next returns the state after trans, or an *IllegalTransitionError.
func next(turnID string, from Status, trans string) (Status, error) {
	to, ok := table[transKey{from, trans}]
	if !ok {
		return from, &IllegalTransitionError{TurnID: turnID, State: from, Transition: trans}
	}
	return to, nil
}

// TransitionOf names the move of the turn machine that folding p makes, or
// "" for an event that leaves the state where it is (exec records, a tool
// the runtime reports). openAfter is the number of approval requests still
// open once the event is folded: the last resolution leaves
// awaiting_approval.
func TransitionOf(p Payload, openAfter int) string {
	switch p.(type) {
	case *TurnStarted:
		return TransStart
	case *DecisionAllowed, *DecisionDenied:
		return TransDecide
	case *ApprovalRequested:
		return TransOpenRequest
	case *ApprovalResolved:
		if openAfter == 0 {
			return TransResolveLast
		}
		return TransResolve
	case *ProfileChanged:
		return TransChange
	case *TurnCompleted:
		return TransComplete
	case *TurnInterrupted:
		return TransInterrupt
	case *TurnFailed:
		return TransFail
	}
	return ""
}

// StatusAfter is the turn's state once p is folded in state from, read from
// TurnTransitions: both folds (Evolve and the read models) take statuses
// from here. An event that makes no move, or a move the table does not
// allow from there, leaves the state as it is: a fold is total over stored
// history, and Decide refuses such moves before anything is stored.
func StatusAfter(from Status, p Payload, openAfter int) Status {
	trans := TransitionOf(p, openAfter)
	if trans == "" {
		return from
	}
	if to, ok := table[transKey{from, trans}]; ok {
		return to
	}
	return from
}

type requestKey struct {
	from  RequestStatus
	trans string
}

// requestTable is RequestTransitions as a lookup.
var requestTable = func() map[requestKey]RequestStatus {
	m := map[requestKey]RequestStatus{}
	for _, e := range RequestTransitions {
		for _, src := range e.Src {
			m[requestKey{RequestStatus(src), e.Name}] = RequestStatus(e.Dst)
		}
	}
	return m
}()

// NamedRequest is the id of the approval request p opens or resolves, or
// "" for an event that names none.
func NamedRequest(p Payload) string {
	switch p := p.(type) {
	case *ApprovalRequested:
		return p.Request.RequestID
	case *ApprovalResolved:
		return p.RequestID
	}
	return ""
}

// RequestMove is the state of an approval request once p (which names it)
// is folded, read from RequestTransitions; ok is false when p does not
// move it from status (a second opening, a resolution of a request that is
// not open, an event that names no request).
func RequestMove(status RequestStatus, p Payload) (next RequestStatus, ok bool) {
	var trans string
	switch p.(type) {
	case *ApprovalRequested:
		trans = RequestTransOpen
	case *ApprovalResolved:
		trans = RequestTransResolve
	default:
		return status, false
	}
	next, ok = requestTable[requestKey{status, trans}]
	if !ok {
		return status, false
	}
	return next, true
}

// NewMachine returns a looplab/fsm machine of the turn table in state s (for
// diagrams and checks; the aggregate uses the derived table).
func NewMachine(s Status) *fsm.FSM { return fsm.NewFSM(string(s), TurnTransitions, nil) }

// Mermaid renders the turn's state machine as a Mermaid state diagram.
func Mermaid() (string, error) {
	return fsm.VisualizeForMermaidWithGraphType(NewMachine(StatusNone), fsm.StateDiagram)
}

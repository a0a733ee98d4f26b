package engine

import (
	"errors"

	"turnstile/domain"
	"turnstile/domain/turn"
)

// ResourceChecker is the port to the checks made before any side effect
// (REFERENCE §5): the file policy (canonical paths, symlink escapes, roots)
// and the network policy (schemes, denied and allowed hosts, localhost and
// private ranges). The sandbox package implements it.
type ResourceChecker interface {
	CheckFile(s *domain.TurnExecutionSecuritySnapshot, path string, op domain.Access) error
	CheckURL(s *domain.TurnExecutionSecuritySnapshot, rawURL string) error
}

// Refusal is an error a ResourceChecker returns to refuse; other errors are
// failures of the check itself.
type Refusal interface {
	error
	RefusalCode() string
}

// checkResources runs the resource checks on a tool call that has not been
// decided yet. A refusal turns the command into a RecordDenial, so the turn
// records a decision_denied with reason sandbox_denied instead of asking a
// person about something that cannot run.
func (e *Engine) checkResources(s *turn.State, c *turn.EvaluateTool) (turn.Command, error) {
	if e.cfg.Checker == nil || s.Status == turn.StatusNone || s.Status.Terminal() || s.Calls[c.ToolCallID] != nil || c.ToolCallID == "" {
		return c, nil
	}
	a, err := domain.Classify(c.Invocation, s.Snapshot.Sandbox.Cwd, c.Trust)
	if err != nil {
		return c, nil // Decide reports the bad input
	}
	snap := &s.Snapshot
	var refusal error
	for _, f := range a.Files {
		if refusal = e.cfg.Checker.CheckFile(snap, f.Path, f.Access); refusal != nil {
			break
		}
	}
	if refusal == nil && a.URL != nil {
		refusal = e.cfg.Checker.CheckURL(snap, a.URL.String())
	}
	if refusal == nil && a.URL != nil && !snap.Network.MethodAllowed(a.Method) {
		refusal = methodRefusal(a.Method)
	}
	if refusal == nil {
		classified := *c // the caller's command stays as it was
		classified.Classified = &a
		return &classified, nil
	}
	var r Refusal
	if !errors.As(refusal, &r) {
		return nil, refusal
	}
	return &turn.RecordDenial{Meta: c.Meta, ToolCallID: c.ToolCallID, ItemID: c.ItemID, Invocation: c.Invocation,
		Refusal: r.RefusalCode(), Message: r.Error()}, nil
}

// methodRefusal refuses an HTTP method a limited network does not allow.
type methodRefusal string

func (m methodRefusal) Error() string {
	return "the network is limited to GET, HEAD and OPTIONS; " + string(m) + " is not allowed"
}

// RefusalCode implements Refusal.
func (m methodRefusal) RefusalCode() string { return "method_not_allowed" }

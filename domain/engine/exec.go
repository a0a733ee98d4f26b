package engine

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"turnstile/domain"
	"turnstile/domain/turn"
)

// Runner is the port to the process sandbox, beside the ResourceChecker.
// The sandbox package implements it (wired in cmd/turnstile).
type Runner interface {
	// Resolve finds the executable argv0 names, at decision time: a name
	// with a slash against cwd, a bare name in the policy's search path
	// (never the request's PATH). A refusal implements Refusal.
	Resolve(s *domain.TurnExecutionSecuritySnapshot, argv0, cwd string) (string, error)
	// Run checks cmd against s (the spawn plan) and runs cmd.Executable with
	// cmd.Argv's arguments. A refusal (nothing ran) implements Refusal.
	Run(ctx context.Context, s *domain.TurnExecutionSecuritySnapshot, cmd *Command) (*CommandResult, error)
}

// Command is one command a turn wants to run.
type Command struct {
	ToolCallID string
	ItemID     string
	Argv       []string
	// Cwd is absolute or relative to the snapshot's cwd; empty is the cwd.
	Cwd       string
	Env       map[string]string
	TimeoutMs int64
	Stdin     []byte
	// Executable is Argv[0] as Resolve found it (set by Exec).
	Executable string
	// StepTimeout, when set, bounds each recorded step (deciding, recording
	// the result), including the wait for the turn's lock; the run itself
	// is bounded by the command's own timeout.
	StepTimeout time.Duration
	// Interrupt, when closed, ends a wait for approval early (a server
	// that drains); it never stops a command that runs.
	Interrupt <-chan struct{}
	// Actor is who asks: the authenticated principal, recorded on every
	// event the command appends (a sandbox refusal included).
	Actor         domain.Actor
	CorrelationID string
	// TurnID is the turn the command runs for (set by Exec before Run: a
	// runner attributes the command's proxied connections to it).
	TurnID string
}

// CommandResult is what a command did.
type CommandResult struct {
	ExitCode        int    `json:"exit_code"`
	Stdout          string `json:"stdout"`
	Stderr          string `json:"stderr"`
	StdoutTruncated bool   `json:"stdout_truncated"`
	StderrTruncated bool   `json:"stderr_truncated"`
	DurationMs      int64  `json:"duration_ms"`
	TimedOut        bool   `json:"timed_out"`
	// Quarantined is what the command left in a writable root that a host
	// program would run, set aside (renamed, domain.UntrustedSuffix): a
	// repository with a config or hooks that are not trusted (its HEAD,
	// config and hooks), a rebase state, a .git file, a protected file.
	// CheckLimits is what that check could not cover.
	Quarantined []Quarantined `json:"quarantined,omitempty"`
	CheckLimits []string      `json:"check_limits,omitempty"`
}

// Quarantined is one thing a command left that was set aside.
type Quarantined struct {
	// Path is what was set aside (a repository's git dir).
	Path string `json:"path"`
	// Reason is what is not trusted (the first untrusted key or hook).
	Reason string `json:"reason"`
	// MovedTo is where it is now (a repository's HEAD); empty when the
	// rename failed.
	MovedTo string `json:"moved_to,omitempty"`
	// Error is why the rename failed: what it names is still in use.
	Error string `json:"error,omitempty"`
}

// quarantinedPaths are the paths of q.
func quarantinedPaths(q []Quarantined) []string {
	var out []string
	for _, r := range q {
		out = append(out, r.Path)
	}
	return out
}

// ExecResult is the answer to Exec.
type ExecResult struct {
	Result
	// Step is what happened: nothing ran (denied), pending, ran, or the call
	// had started before (ExecAlreadyStarted: it never runs twice).
	Step turn.ExecStep
	// Ran is set when the command ran now; Output is what it did.
	Ran    bool
	Output *CommandResult
	// Message explains why nothing ran.
	Message string
}

// ErrNoRunner is returned by Exec on an engine without a Runner.
var ErrNoRunner = errors.New("this server runs no commands")

// Exec decides a command, waits up to wait for a person's answer when it
// asks, records exec.started, runs it through the Runner, and records what
// it did (or the sandbox's refusal). Deciding and recording the start is
// one command under the turn's lock; the run holds no lock. A retry of the
// same tool call id with the same content answers from the stream (a
// started call never runs again); with other content it is a conflict.
func (e *Engine) Exec(ctx context.Context, turnID string, c *Command, wait time.Duration) (ExecResult, error) {
	if e.cfg.Runner == nil {
		return ExecResult{}, ErrNoRunner
	}
	if c.ToolCallID == "" {
		return ExecResult{}, &domain.FieldError{Field: "tool_call_id", Message: "required"}
	}
	if len(c.Argv) == 0 || c.Argv[0] == "" {
		return ExecResult{}, &domain.FieldError{Field: "argv", Message: "required: the program and its arguments"}
	}
	// The call is registered as running before it is started, so an end of
	// the turn appended after the start always finds it (and stops it).
	ctx, rn, done := e.running.start(ctx, turnID)
	defer done()
	var timer <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		timer = t.C
	}
	var inv domain.Invocation
	var parentEnded *turn.Parent
	sctx := ctx // the current step's context
	load := func(s *turn.State, _ turn.Command) (turn.Command, error) {
		var err error
		inv, err = e.prepareExec(sctx, s, c)
		var pe *parentEndedError
		var rr *resolveRefusal
		switch {
		case errors.As(err, &pe):
			parentEnded = pe.parent
			return nil, err
		case errors.As(err, &rr):
			m := c.meta()
			setNow(&m, e.cfg.Now().UTC())
			return &turn.RecordDenial{Meta: m, ToolCallID: c.ToolCallID, ItemID: c.ItemID, Invocation: inv,
				Refusal: rr.RefusalCode(), Message: rr.Error()}, nil
		case err != nil:
			return nil, err
		}
		return e.classifyExec(s, c, inv)
	}
	for {
		parentEnded = nil
		var cancel context.CancelFunc
		sctx, cancel = c.step(ctx)
		res, err := e.execute(sctx, turnID, &turn.StartExec{Meta: c.meta()}, load)
		cancel()
		if parentEnded != nil {
			// The turn ends with its parent (a propagation that did not
			// happen: a crash, or the parent ended on another instance), as
			// every end does: what is kept for it elsewhere recorded first
			// (SetBeforeEnd), its commands stopped, its children ended.
			_, eerr := e.endWithParent(ctx, turnID, parentEnded)
			if eerr != nil && !errors.Is(eerr, turn.ErrIllegalTransition) {
				return ExecResult{}, eerr
			}
			return ExecResult{}, &turn.IllegalTransitionError{TurnID: turnID, State: parentEnded.Status,
				Transition: "run a command (parent turn " + parentEnded.TurnID + " has ended)"}
		}
		if err != nil {
			return ExecResult{}, err
		}
		out := ExecResult{Result: res, Step: res.Exec}
		switch {
		case res.Decision.Behavior == domain.BehaviorDeny && res.Exec == turn.ExecNothing:
			out.Message = "denied: " + string(res.Decision.Reason)
			return out, nil
		case res.Exec == turn.ExecAlreadyStarted:
			out.Message = "this tool call id has already started; use a new tool_call_id to run again"
			if res.Finished == nil {
				out.Message = "this tool call id was started before and no result was recorded (the server may have stopped while it ran); use a new tool_call_id to run again"
			}
			return out, nil
		case res.Exec == turn.ExecPending:
			out.Message = "waiting for approval: resolve the request, then send the same call again (or add ?wait=30s)"
			if timer == nil || !e.waitChange(ctx, turnID, res.Turn.Version, timer, c.Interrupt) {
				return out, nil
			}
			continue
		case res.Exec != turn.ExecRun:
			out.Message = "nothing to run"
			return out, nil
		}
		snap := res.Turn.Snapshot
		e.running.started(turnID, rn, &snap, res.Turn.SnapshotVersion)
		return e.run(ctx, turnID, c, inv, out)
	}
}

// run runs a started command under the snapshot it was started under and
// records what it did; a sandbox refusal is recorded as decision_denied
// (sandbox_denied).
func (e *Engine) run(ctx context.Context, turnID string, c *Command, inv domain.Invocation, out ExecResult) (ExecResult, error) {
	snap := out.Turn.Snapshot
	c.TurnID = turnID
	result, err := e.cfg.Runner.Run(ctx, &snap, c)
	ended := context.Cause(ctx)
	if !errors.Is(ended, ErrTurnEnded) && !errors.Is(ended, ErrPermissionsChanged) && !errors.Is(ended, ErrShuttingDown) {
		ended = nil
	}
	var refusal Refusal
	if errors.As(err, &refusal) {
		sctx, cancel := c.step(detached(ctx))
		defer cancel()
		den, derr := e.Execute(sctx, turnID, &turn.RecordDenial{Meta: c.meta(),
			ToolCallID: c.ToolCallID, ItemID: c.ItemID, Invocation: inv, Refusal: refusal.RefusalCode(), Message: refusal.Error()})
		if derr != nil {
			return ExecResult{}, derr
		}
		out.Result, out.Step = den, turn.ExecNothing
		out.Message = domain.RedactText(refusal.Error())
		return out, nil
	}
	if err != nil {
		return ExecResult{}, err
	}
	out.Ran, out.Output = true, result
	if ended != nil {
		out.Message = ended.Error() + ": it was killed, with every process it started"
	}
	sctx, cancel := c.step(detached(ctx))
	defer cancel()
	fin, err := e.Execute(sctx, turnID, &turn.FinishExec{Meta: c.meta(), Finished: turn.ExecFinished{
		ToolCallID: c.ToolCallID, ExitCode: result.ExitCode, DurationMs: result.DurationMs, TimedOut: result.TimedOut, Stopped: stoppedBy(ended),
		Quarantined: quarantinedPaths(result.Quarantined), CheckLimits: result.CheckLimits}})
	if err == nil {
		out.Position, out.Turn = fin.Position, fin.Turn
	}
	// A turn that ended while the command ran records no result; the
	// command ran all the same, and the caller gets its output.
	return out, nil
}

// step bounds one recorded step by StepTimeout.
func (c *Command) step(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.StepTimeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, c.StepTimeout)
}

func (c *Command) meta() turn.Meta {
	actor := c.Actor
	if actor.IsZero() {
		actor = domain.Actor{Name: "agent"}
	}
	return turn.Meta{Actor: actor, CorrelationID: c.CorrelationID}
}

// prepareExec resolves the executable under the turn's snapshot and builds
// the invocation that binds everything that decides what runs: argv, cwd,
// timeout, the executable, a digest of the environment's values and of
// stdin. A child turn whose parent has ended is ended first.
func (e *Engine) prepareExec(ctx context.Context, s *turn.State, c *Command) (domain.Invocation, error) {
	if s.Status == turn.StatusNone {
		return domain.Invocation{}, &turn.NotFoundError{Kind: "turn", ID: s.TurnID}
	}
	if s.ParentTurnID != "" && !s.Status.Terminal() {
		// The parent, or a turn above it.
		p, err := e.EndedAncestor(ctx, s.ParentTurnID)
		if err != nil {
			return domain.Invocation{}, err
		}
		if p != nil {
			return domain.Invocation{}, &parentEndedError{parent: p, what: "run a command"}
		}
	}
	given := c.Cwd != ""
	cwd := domain.ResolvePath(s.Snapshot.Sandbox.Cwd, c.Cwd)
	if fr, ok := e.cfg.Checker.(FileResolver); ok {
		// The kernel resolves the working directory's symlinks before
		// its "..": "lnk/.." is the parent of lnk's target, not the cwd.
		// What the approver sees, the scope binds and the command runs in
		// is that directory (the runner refuses to run where it no longer
		// leads). The turn's own cwd is resolved too, and bound when it
		// now leads elsewhere (another command swapped a link in). A
		// refused cwd is left as given: the plan refuses it.
		p := cmp.Or(c.Cwd, s.Snapshot.Sandbox.Cwd)
		if rc, err := fr.ResolveFile(&s.Snapshot, p, domain.AccessRead, false); err == nil {
			given = given || rc != domain.CleanPath(s.Snapshot.Sandbox.Cwd)
			cwd, c.Cwd = rc, rc
		}
	}
	exe, err := e.cfg.Runner.Resolve(&s.Snapshot, c.Argv[0], cwd)
	var refusal Refusal
	if err != nil && !errors.As(err, &refusal) {
		return domain.Invocation{}, err
	}
	if err != nil {
		exe = ""
		c.Executable = ""
	} else {
		c.Executable = exe
	}
	// A cwd or an executable resolved on disk may hold bytes that are not
	// UTF-8, which json.Marshal makes U+FFFD: two directories would be
	// one scope (the hundred-and-eighty-sixth review).
	for f, p := range map[string]string{"cwd": c.Cwd, "executable": exe} {
		if !utf8.ValidString(p) {
			return domain.Invocation{}, &domain.FieldError{Field: f, Value: p, Message: "resolves to a path whose name is not valid UTF-8, which cannot be shown or recorded as it is: it is refused"}
		}
	}
	args := map[string]any{"argv": c.Argv}
	if given {
		args["workdir"] = c.Cwd
	}
	if c.TimeoutMs > 0 {
		args["timeout_ms"] = c.TimeoutMs
	}
	if len(c.Env) > 0 {
		args["env"] = c.Env
	}
	if len(c.Stdin) > 0 {
		sum := sha256.Sum256(c.Stdin)
		args["stdin_sha256"], args["stdin_bytes"] = hex.EncodeToString(sum[:]), len(c.Stdin)
	}
	if exe != "" {
		args["executable"] = exe
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return domain.Invocation{}, err
	}
	key, err := e.turnKey(ctx, s.TurnID, c.meta().Actor.Name)
	if err != nil {
		return domain.Invocation{}, err
	}
	inv := domain.Invocation{ToolName: "exec_command", Arguments: raw, Key: key}
	if refusal != nil {
		return inv, &resolveRefusal{refusal}
	}
	return inv, nil
}

// classifyExec turns the prepared invocation into the StartExec command.
func (e *Engine) classifyExec(s *turn.State, c *Command, inv domain.Invocation) (turn.Command, error) {
	sx := &turn.StartExec{Meta: c.meta(), ToolCallID: c.ToolCallID, ItemID: c.ItemID, Invocation: inv, TTL: e.cfg.ApprovalTTL, MaxOpen: e.cfg.MaxOpenRequests, Instance: e.cfg.Instance}
	setNow(&sx.Meta, e.cfg.Now().UTC())
	a, err := domain.Classify(inv, s.Snapshot.Sandbox.Cwd, nil)
	if err != nil {
		return nil, err
	}
	sx.Classified = &a
	return sx, nil
}

// parentEndedError: the turn's parent has ended, so the turn ends too.
type parentEndedError struct {
	parent *turn.Parent
	what   string // what was refused, for the illegal transition
}

func (e *parentEndedError) Error() string {
	return fmt.Sprintf("parent turn %s is %s", e.parent.TurnID, e.parent.Status)
}

// resolveRefusal: the executable could not be resolved (nothing will run).
type resolveRefusal struct{ Refusal }

// Hint says when a turn may have changed: Changed returns a channel closed
// at the next change anywhere, TurnVersion the version a turn is known to
// have reached. The projector (read models) implements it; a hint decides
// nothing, it only saves reading the store for nothing.
type Hint interface {
	Changed() <-chan struct{}
	TurnVersion(turnID string) (int64, bool)
}

// waitChange waits until turnID may have moved past version (per the hint;
// without one, a short tick), the timer fires, interrupt closes or ctx
// ends. It reports whether to look again.
func (e *Engine) waitChange(ctx context.Context, turnID string, version int64, timer <-chan time.Time, interrupt <-chan struct{}) bool {
	for {
		var changed <-chan struct{}
		if e.cfg.Hint != nil {
			changed = e.cfg.Hint.Changed()
			if v, ok := e.cfg.Hint.TurnVersion(turnID); ok && v > version {
				return true
			}
		} else {
			t := time.NewTimer(50 * time.Millisecond)
			defer t.Stop()
			ch := make(chan struct{})
			changed = ch
			go func() {
				select {
				case <-t.C:
					close(ch)
				case <-ctx.Done():
				}
			}()
		}
		select {
		case <-changed:
			if e.cfg.Hint == nil {
				return true
			}
		case <-timer:
			return false
		case <-interrupt:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// stoppedBy is what a command's result records of why it was killed (a
// narrowing permission change; "" otherwise).
func stoppedBy(cause error) string {
	if errors.Is(cause, ErrPermissionsChanged) {
		return cause.Error()
	}
	return ""
}

package engine_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
	"turnstile/projections"
)

// procRunner is a real Runner without the kernel sandbox: it resolves like
// production (domain.SearchPath over a fixed server PATH) and runs the
// resolved executable with os/exec, the request's environment included.
type procRunner struct {
	path string // the "server" PATH
	mu   sync.Mutex
	ran  []string // executables run, in order
	fail error    // returned by Run after nothing ran, when set
}

type runRefusal struct{ code string }

func (r runRefusal) Error() string       { return "refused: " + r.code }
func (r runRefusal) RefusalCode() string { return r.code }

func (p *procRunner) Resolve(s *domain.TurnExecutionSecuritySnapshot, argv0, cwd string) (string, error) {
	if strings.Contains(argv0, "/") {
		if !filepath.IsAbs(argv0) {
			argv0 = filepath.Join(cwd, argv0)
		}
		return argv0, nil
	}
	for _, dir := range domain.SearchPath(&s.Process.Environment, p.path) {
		if fi, err := os.Stat(filepath.Join(dir, argv0)); err == nil && fi.Mode().IsRegular() {
			return filepath.Join(dir, argv0), nil
		}
	}
	return "", runRefusal{"command_not_found"}
}

func (p *procRunner) Run(ctx context.Context, s *domain.TurnExecutionSecuritySnapshot, c *engine.Command) (*engine.CommandResult, error) {
	if p.fail != nil {
		return nil, p.fail
	}
	cmd := exec.CommandContext(ctx, c.Executable, c.Argv[1:]...)
	cmd.Dir = domain.ResolvePath(s.Sandbox.Cwd, c.Cwd)
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	for k, v := range c.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdin = bytes.NewReader(c.Stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	p.mu.Lock()
	p.ran = append(p.ran, c.Executable)
	p.mu.Unlock()
	// As the service's runner: the turn's end kills the process by the
	// call that stops the turn's commands (engine.OnStop), registered
	// before the start: a stop during the start waits for it and kills.
	var mu sync.Mutex
	var started, stopped bool
	unregister := engine.OnStop(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if stopped = true; started {
			cmd.Process.Kill()
		}
	}, nil)
	mu.Lock()
	err := errors.New("stopped before it started")
	if !stopped {
		err = cmd.Start()
		started = err == nil
	}
	mu.Unlock()
	if started {
		err = cmd.Wait()
	}
	unregister()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		return nil, err
	}
	return &engine.CommandResult{ExitCode: code, Stdout: out.String(), Stderr: errOut.String()}, nil
}

func (p *procRunner) runs() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.ran...)
}

// execFixture is an engine with a procRunner over the fixture's store, and
// a workspace.
func execFixture(t *testing.T) (*fixture, *engine.Engine, *procRunner, string) {
	f := newFixture(t)
	r := &procRunner{path: "/usr/bin:/bin"}
	eng := engine.New(f.store, engine.Config{Kernel: kernel, Now: f.clock.Now, Runner: r, Hint: projHint{f.proj}})
	return f, eng, r, t.TempDir()
}

func startIn(t *testing.T, eng *engine.Engine, id, parent string, mode domain.Mode, root string) {
	t.Helper()
	if _, err := eng.Execute(ctx, id, &turn.StartTurn{TurnID: id, WorkspaceID: "ws", ThreadID: "th", ParentTurnID: parent,
		Profile: &domain.ProfileRequest{Mode: mode}, Inputs: turn.Inputs{WorkspaceRoot: root, Cwd: root}}); err != nil {
		t.Fatal(err)
	}
}

func respond(t *testing.T, eng *engine.Engine, turnID, call string, res domain.Resolution) {
	t.Helper()
	if _, err := eng.Execute(ctx, turnID, &turn.RespondApproval{RequestID: turn.RequestID(turnID, call), Resolution: res}); err != nil {
		t.Fatal(err)
	}
}

func mustExec(t *testing.T, eng *engine.Engine, turnID string, c engine.Command) engine.ExecResult {
	t.Helper()
	res, err := eng.Exec(ctx, turnID, &c, 0)
	if err != nil {
		t.Fatalf("exec %s: %v", c.ToolCallID, err)
	}
	return res
}

// TestExecStdinIsBound: an allow_once approval of `sh -s` with a harmless
// stdin does not run a different stdin under the same tool call id (409,
// nothing runs); the identical resend runs once, and a third is refused as
// already started.
func TestExecStdinIsBound(t *testing.T) {
	_, eng, r, root := execFixture(t)
	startIn(t, eng, "t", "", domain.ModeAutoAcceptEdits, root)
	marker := filepath.Join(root, "pwned")
	harmless := engine.Command{ToolCallID: "c1", Argv: []string{"/bin/sh", "-s"}, Stdin: []byte("echo harmless\n")}
	if res := mustExec(t, eng, "t", harmless); res.Step != turn.ExecPending || res.Approval == nil {
		t.Fatalf("first call: %+v", res)
	}
	respond(t, eng, "t", "c1", domain.ResolutionAllowOnce)
	evil := harmless
	evil.Stdin = []byte("touch " + marker + "\n")
	_, err := eng.Exec(ctx, "t", &evil, 0)
	var conflict *turn.ConflictError
	if !errors.As(err, &conflict) || conflict.Code != "tool_call_reused" {
		t.Fatalf("resend with another stdin: %v, want tool_call_reused", err)
	}
	if _, err := os.Stat(marker); err == nil || len(r.runs()) != 0 {
		t.Fatalf("the other stdin ran: %v", r.runs())
	}
	// Control: the identical resend runs what was approved, once.
	res := mustExec(t, eng, "t", harmless)
	if !res.Ran || res.Output.Stdout != "harmless\n" || res.Decision.Reason != domain.ReasonUserApproved {
		t.Fatalf("approved resend: %+v %+v", res, res.Output)
	}
	if again := mustExec(t, eng, "t", harmless); again.Ran || again.Step != turn.ExecAlreadyStarted {
		t.Fatalf("third send: %+v", again)
	}
	// The approval request showed the stdin size, never its content.
	details := ""
	for _, d := range res.Approval.Request.Details {
		details += d.Label + "=" + d.Value + ";"
	}
	if !strings.Contains(details, "Standard input=14 bytes") || strings.Contains(details, "harmless") || !strings.Contains(details, "Executable=/bin/sh") {
		t.Fatalf("details %s", details)
	}
}

// TestExecExecutableFromPolicyPath: a grant for `ls` does not cover a call
// whose environment puts a workspace directory first on PATH, and when that
// call is approved the executable resolved from the policy's path runs,
// never the workspace's `ls`.
func TestExecExecutableFromPolicyPath(t *testing.T) {
	_, eng, r, root := execFixture(t)
	evilbin := filepath.Join(root, "evilbin")
	marker := filepath.Join(root, "evil-ran")
	if err := os.MkdirAll(evilbin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(evilbin, "ls"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	startIn(t, eng, "t", "", domain.ModeAutoAcceptEdits, root)
	ls := engine.Command{ToolCallID: "g1", Argv: []string{"ls"}}
	first := mustExec(t, eng, "t", ls)
	respond(t, eng, "t", "g1", domain.ResolutionAllowForTurn)
	if res := mustExec(t, eng, "t", ls); !res.Ran {
		t.Fatalf("approved ls: %+v", res)
	}
	// Control: the same scope under a new tool call id is a cached approval.
	ls2 := ls
	ls2.ToolCallID = "g2"
	if res := mustExec(t, eng, "t", ls2); !res.Ran || res.Decision.Reason != domain.ReasonCachedApproval {
		t.Fatalf("same scope, new id: %+v", res)
	}
	evil := engine.Command{ToolCallID: "g3", Argv: []string{"ls"}, Env: map[string]string{"PATH": evilbin + ":/usr/bin"}}
	res := mustExec(t, eng, "t", evil)
	if res.Ran || res.Decision.Reason == domain.ReasonCachedApproval || res.Decision.ScopeHash == first.Decision.ScopeHash {
		t.Fatalf("PATH-changed call rode the grant: %+v", res)
	}
	respond(t, eng, "t", "g3", domain.ResolutionAllowOnce)
	if res = mustExec(t, eng, "t", evil); !res.Ran {
		t.Fatalf("approved call: %+v", res)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the workspace's ls ran")
	}
	for _, exe := range r.runs() {
		if exe != "/usr/bin/ls" && exe != "/bin/ls" {
			t.Fatalf("ran %s, want the policy path's ls", exe)
		}
	}
}

// TestExecApprovalRevokedByNarrowing: an approved call that has not run is
// decided again under the current snapshot: denied_tools or a stricter mode
// revoke it; without a change it runs.
func TestExecApprovalRevokedByNarrowing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change *domain.ProfileRequest
		runs   bool
	}{
		{"denied_tools", &domain.ProfileRequest{Mode: domain.ModeAutoAcceptEdits, DeniedTools: []string{"exec_command"}}, false},
		{"stricter mode", &domain.ProfileRequest{Mode: domain.ModeSupervised}, false},
		{"no change", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, eng, r, root := execFixture(t)
			startIn(t, eng, "t", "", domain.ModeAutoAcceptEdits, root)
			c := engine.Command{ToolCallID: "c", Argv: []string{"/bin/echo", "hi"}}
			mustExec(t, eng, "t", c)
			respond(t, eng, "t", "c", domain.ResolutionAllowOnce)
			if tc.change != nil {
				if _, err := eng.Execute(ctx, "t", &turn.ChangeProfile{Profile: tc.change}); err != nil {
					t.Fatal(err)
				}
			}
			res := mustExec(t, eng, "t", c)
			if res.Ran != tc.runs || len(r.runs()) != map[bool]int{true: 1, false: 0}[tc.runs] {
				t.Fatalf("ran %v (%v), want %v: %+v", res.Ran, r.runs(), tc.runs, res)
			}
			if !tc.runs {
				if res.Decision.Behavior != domain.BehaviorDeny || res.Decision.DecidedBy != turn.ReasonProfileChanged || res.Refusal != turn.ReasonProfileChanged {
					t.Fatalf("revoked call: %+v", res.Decision)
				}
				if again := mustExec(t, eng, "t", c); again.Ran || again.Decision.Behavior != domain.BehaviorDeny {
					t.Fatalf("retry of a revoked call: %+v", again)
				}
			}
		})
	}
}

// TestExecStartedBeforeRun: exec.started is recorded before the command
// runs, so a call whose run failed (as after a crash) is recognised on
// retry and never run again; a call decided allowed (as by a crash between
// decision and run in older streams, or by /decisions) runs on its first exec.
func TestExecStartedBeforeRun(t *testing.T) {
	_, eng, r, root := execFixture(t)
	startIn(t, eng, "t", "", domain.ModeFullAccess, root)
	// Decided allowed (the same scope, executable included), nothing
	// started: exec runs it.
	args := []byte(`{"argv":["/bin/echo","x"],"executable":"/bin/echo"}`)
	if _, err := eng.Execute(ctx, "t", &turn.EvaluateTool{ToolCallID: "d", Invocation: domain.Invocation{ToolName: "exec_command", Arguments: args}}); err != nil {
		t.Fatal(err)
	}
	c := engine.Command{ToolCallID: "d", Argv: []string{"/bin/echo", "x"}}
	if res := mustExec(t, eng, "t", c); !res.Ran || res.Output.Stdout != "x\n" {
		t.Fatalf("decided call: %+v", res)
	}
	r.fail = errors.New("the server went away")
	c2 := engine.Command{ToolCallID: "e", Argv: []string{"/bin/echo", "y"}}
	if _, err := eng.Exec(ctx, "t", &c2, 0); err == nil {
		t.Fatal("a failed run answered no error")
	}
	r.fail = nil
	res := mustExec(t, eng, "t", c2)
	if res.Ran || res.Step != turn.ExecAlreadyStarted || !strings.Contains(res.Message, "no result was recorded") {
		t.Fatalf("retry after a failed run: %+v", res)
	}
	var started, finished int
	if err := eng.View(ctx, "t", func(s *turn.State) error {
		for _, id := range []string{"d", "e"} {
			if s.Calls[id].Started {
				started++
			}
			if s.Calls[id].Finished != nil {
				finished++
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if started != 2 || finished != 1 || len(r.runs()) != 1 {
		t.Fatalf("started %d finished %d runs %v", started, finished, r.runs())
	}
}

// TestEndingParentEndsChildren: completing, interrupting or failing a
// parent ends its children (and grandchildren) the same way and cancels
// their open requests; a child's pending exec does not run afterwards, even
// on a second engine (another instance) that had the child cached. Control:
// under a live parent, the child's approved exec runs.
func TestEndingParentEndsChildren(t *testing.T) {
	for _, end := range []turn.Status{turn.StatusCompleted, turn.StatusInterrupted, turn.StatusFailed} {
		t.Run(string(end), func(t *testing.T) {
			f, eng, r, root := execFixture(t)
			other := engine.New(f.store, engine.Config{Kernel: kernel, Now: f.clock.Now, Runner: r, Hint: projHint{f.proj}})
			startIn(t, eng, "p", "", domain.ModeFullAccess, root)
			startIn(t, eng, "c", "p", domain.ModeSupervised, root)
			startIn(t, eng, "g", "c", domain.ModeSupervised, root)
			startIn(t, eng, "ok", "p", domain.ModeSupervised, root)
			cmd := engine.Command{ToolCallID: "x", Argv: []string{"/bin/echo", "child"}}
			mustExec(t, other, "c", cmd) // pending, cached on the other instance
			mustExec(t, eng, "ok", cmd)
			respond(t, eng, "ok", "x", domain.ResolutionAllowOnce)
			if res := mustExec(t, eng, "ok", cmd); !res.Ran {
				t.Fatalf("control child under a live parent: %+v", res)
			}
			if _, err := eng.Execute(ctx, "p", &turn.EndTurn{Status: end}); err != nil {
				t.Fatal(err)
			}
			for _, id := range []string{"c", "g", "ok"} {
				if err := other.View(ctx, id, func(s *turn.State) error {
					if s.Status != end || s.Open != 0 {
						t.Errorf("%s is %s with %d open requests, want %s", id, s.Status, s.Open, end)
					}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			_, err := other.Execute(ctx, "c", &turn.RespondApproval{RequestID: turn.RequestID("c", "x"), Resolution: domain.ResolutionAllowOnce})
			if err == nil {
				t.Fatal("a child's request was approved after its parent ended")
			}
			res, err := other.Exec(ctx, "c", &cmd, 0)
			if err != nil || res.Ran || res.Decision.Behavior != domain.BehaviorDeny || res.Decision.Reason != domain.ReasonCancelled {
				t.Fatalf("child exec after the parent ended: %+v %v", res, err)
			}
			if len(r.runs()) != 1 {
				t.Fatalf("runs %v", r.runs())
			}
		})
	}
}

// TestChildOfEndedParentEndsOnExec: a parent that ended without reaching
// its child (an end appended straight to its stream, as a crash between
// the two would leave it) still stops the child: its next exec ends it.
func TestChildOfEndedParentEndsOnExec(t *testing.T) {
	f, eng, r, root := execFixture(t)
	startIn(t, eng, "p", "", domain.ModeFullAccess, root)
	startIn(t, eng, "c", "p", domain.ModeFullAccess, root)
	s, _ := replay(t, f, "p")
	evs, _, err := turn.Decide(s, &turn.EndTurn{Meta: turn.Meta{Now: f.clock.Now()}, Status: turn.StatusCompleted})
	if err != nil {
		t.Fatal(err)
	}
	data, err := turn.Encode(evs, s.LastHash)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.Append(ctx, turn.StreamName("p"), eventstore.Exactly(uint64(s.Version)), data); err != nil {
		t.Fatal(err)
	}
	// What is kept for a turn elsewhere (the egress proxy's traffic) is
	// recorded before its end, on this path as on every end.
	var drained []string
	eng.SetBeforeEnd(func(_ context.Context, id string) { drained = append(drained, id) })
	_, err = eng.Exec(ctx, "c", &engine.Command{ToolCallID: "x", Argv: []string{"/bin/echo", "late"}}, 0)
	if !errors.Is(err, turn.ErrIllegalTransition) || len(r.runs()) != 0 {
		t.Fatalf("exec in a child of an ended parent: %v, runs %v", err, r.runs())
	}
	if !slices.Equal(drained, []string{"c"}) {
		t.Errorf("before the child's end, drained %q, want [c]", drained)
	}
	if err := eng.View(ctx, "c", func(s *turn.State) error {
		if s.Status != turn.StatusCompleted {
			t.Errorf("child is %s", s.Status)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestExecConcurrentSameCallRunsOnce: many concurrent sends of one allowed
// tool call id, through two engines on one store (two instances), run the
// command exactly once; every other answer is "already started".
func TestExecConcurrentSameCallRunsOnce(t *testing.T) {
	f, eng, r, root := execFixture(t)
	other := engine.New(f.store, engine.Config{Kernel: kernel, Now: f.clock.Now, Runner: r, Hint: projHint{f.proj}})
	startIn(t, eng, "t", "", domain.ModeFullAccess, root)
	var wg sync.WaitGroup
	results := make(chan engine.ExecResult, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := []*engine.Engine{eng, other}[i%2]
			res, err := e.Exec(ctx, "t", &engine.Command{ToolCallID: "once", Argv: []string{"/bin/echo", "x"}}, 0)
			if err != nil {
				t.Error(err)
				return
			}
			results <- res
		}()
	}
	wg.Wait()
	close(results)
	ran := 0
	for res := range results {
		if res.Ran {
			ran++
		} else if res.Step != turn.ExecAlreadyStarted {
			t.Errorf("answer %+v", res)
		}
	}
	if ran != 1 || len(r.runs()) != 1 {
		t.Fatalf("ran %d times (%v)", ran, r.runs())
	}
}

// projHint is the production hint: the projector following the store.
type projHint struct{ *projections.Projector }

func (h projHint) TurnVersion(turnID string) (int64, bool) {
	t, ok := h.Turn(turnID)
	return t.Version, ok
}

// TestExecWaitsForApproval: with a wait, Exec runs the call as soon as a
// person approves it on another engine (instance); a wait that ends first
// answers pending and runs nothing.
func TestExecWaitsForApproval(t *testing.T) {
	f, eng, r, root := execFixture(t)
	other := engine.New(f.store, engine.Config{Kernel: kernel, Now: f.clock.Now})
	startIn(t, eng, "t", "", domain.ModeSupervised, root)
	short := engine.Command{ToolCallID: "short", Argv: []string{"/bin/echo", "short"}}
	if res, err := eng.Exec(ctx, "t", &short, 1); err != nil || res.Step != turn.ExecPending || res.Ran {
		t.Fatalf("a wait that ends first: %+v %v", res, err)
	}
	done := make(chan engine.ExecResult, 1)
	go func() {
		res, err := eng.Exec(ctx, "t", &engine.Command{ToolCallID: "w", Argv: []string{"/bin/echo", "waited"}}, time.Minute)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	id := turn.RequestID("t", "w")
	for {
		changed := f.proj.Changed()
		if _, ok := f.proj.Approval(id); ok {
			break
		}
		<-changed
	}
	if _, err := other.Execute(ctx, "t", &turn.RespondApproval{RequestID: id, Resolution: domain.ResolutionAllowOnce}); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if !res.Ran || res.Output.Stdout != "waited\n" || res.Decision.Reason != domain.ReasonUserApproved || len(r.runs()) != 1 {
		t.Fatalf("waited exec: %+v", res)
	}
}

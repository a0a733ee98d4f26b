package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
	"turnstile/projections"
)

var ctx = context.Background()

func start(t testing.TB, eng *engine.Engine, id string, mode domain.Mode) engine.Result {
	t.Helper()
	res, err := eng.Execute(ctx, id, &turn.StartTurn{TurnID: id, WorkspaceID: "ws", ThreadID: "th",
		Profile: &domain.ProfileRequest{Mode: mode}, Inputs: turn.Inputs{WorkspaceRoot: "/work/repo"}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func decide(t testing.TB, eng *engine.Engine, id, call string, argv ...string) engine.Result {
	t.Helper()
	args, _ := json.Marshal(map[string]any{"cmd": argv})
	res, err := eng.Execute(ctx, id, &turn.EvaluateTool{ToolCallID: call, Invocation: domain.Invocation{ToolName: "exec_command", Arguments: args}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// replay folds a turn's stored events into a fresh state.
func replay(t testing.TB, f *fixture, id string) (*turn.State, []turn.Event) {
	t.Helper()
	recs, err := f.store.ReadStream(ctx, turn.StreamName(id), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	s := turn.NewState(id)
	var evs []turn.Event
	for i := range recs {
		e, err := turn.Decode(&recs[i])
		if err != nil {
			t.Fatal(err)
		}
		turn.Evolve(s, &e)
		evs = append(evs, e)
	}
	if _, err := turn.VerifyChain(recs, ""); err != nil {
		t.Fatal(err)
	}
	return s, evs
}

// TestReplayEqualsLive: for random valid command sequences, replaying the
// stored events from scratch gives the live state, event for event, and a
// projector rebuilt by replay equals the one fed by the subscription.
func TestReplayEqualsLive(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		f := newFixture(t)
		defer f.close()
		turns := []string{"a", "b", "c"}
		live := map[string][]turn.Event{}
		started := map[string]bool{}
		// Every append, also those a command makes on other turns (a child
		// recorded on its parent, children ended with their parent).
		var appendMu sync.Mutex
		var lastPos eventstore.Position
		eng := engine.New(f.store, engine.Config{Kernel: kernel, Now: f.clock.Now, Trust: domain.MCPTrust{"docs/*"},
			OnAppend: func(turnID string, evs []turn.Event, _ time.Duration) {
				appendMu.Lock()
				defer appendMu.Unlock()
				live[turnID] = append(live[turnID], evs...)
				started[turnID] = true
				if p := evs[len(evs)-1].Position; lastPos.Less(p) {
					lastPos = p
				}
			}})
		var calls int
		n := rapid.IntRange(1, 40).Draw(rt, "n")
		for range n {
			id := rapid.SampledFrom(turns).Draw(rt, "turn")
			var cmd turn.Command
			switch op := rapid.IntRange(0, 7).Draw(rt, "op"); {
			case !started[id] || op == 0:
				mode := rapid.SampledFrom(domain.Modes).Draw(rt, "mode")
				st := &turn.StartTurn{TurnID: id, WorkspaceID: "ws", Profile: &domain.ProfileRequest{Mode: mode}, Inputs: turn.Inputs{WorkspaceRoot: "/w"}}
				if parent := rapid.SampledFrom(turns).Draw(rt, "parent"); parent != id && rapid.Bool().Draw(rt, "child") {
					st.ParentTurnID = parent // recorded on the parent; ending the parent ends it
				}
				cmd = st
			case op <= 3:
				calls++
				tool := rapid.SampledFrom([]string{"exec_command", "read_file", "apply_patch", "web_fetch", "frobnicate"}).Draw(rt, "tool")
				arg := rapid.SampledFrom([]string{"a", "b"}).Draw(rt, "arg")
				args, _ := json.Marshal(map[string]any{"cmd": []string{"ls", arg}, "path": arg, "patch": "*** Update File: " + arg, "url": "https://x.org/" + arg})
				call := fmt.Sprintf("c%d", rapid.IntRange(0, calls).Draw(rt, "call"))
				cmd = &turn.EvaluateTool{ToolCallID: call, Invocation: domain.Invocation{ToolName: tool, Arguments: args}}
			case op <= 5:
				res := rapid.SampledFrom([]domain.Resolution{domain.ResolutionAllowOnce, domain.ResolutionAllowForTurn, domain.ResolutionDeny}).Draw(rt, "res")
				call := fmt.Sprintf("c%d", rapid.IntRange(0, calls).Draw(rt, "rcall"))
				cmd = &turn.RespondApproval{RequestID: turn.RequestID(id, call), Resolution: res}
			case op == 6 && rapid.Bool().Draw(rt, "exec"):
				// Start (or finish) a command under a tool call id.
				call := fmt.Sprintf("c%d", rapid.IntRange(0, calls).Draw(rt, "xcall"))
				if rapid.Bool().Draw(rt, "finish") {
					cmd = &turn.FinishExec{Finished: turn.ExecFinished{ToolCallID: call, ExitCode: rapid.IntRange(0, 2).Draw(rt, "code")}}
				} else {
					args, _ := json.Marshal(map[string]any{"cmd": []string{"ls", "a"}})
					cmd = &turn.StartExec{Meta: turn.Meta{Now: f.clock.Now()}, ToolCallID: call, TTL: time.Minute,
						Invocation: domain.Invocation{ToolName: "exec_command", Arguments: args}}
				}
			case op == 6:
				f.clock.Advance(16 * 60e9)
				cmd = &turn.ExpireApprovals{}
			default:
				cmd = &turn.EndTurn{Status: rapid.SampledFrom([]turn.Status{turn.StatusCompleted, turn.StatusFailed}).Draw(rt, "end")}
			}
			res, err := eng.Execute(ctx, id, cmd)
			if err == nil && len(res.Events) > 0 {
				f.sync(res.Position)
			}
		}
		f.sync(lastPos)
		for _, id := range turns {
			if !started[id] {
				continue
			}
			replayed, evs := replay(t, f, id)
			if len(evs) != len(live[id]) {
				rt.Fatalf("%s: %d events stored, %d appended", id, len(evs), len(live[id]))
			}
			for i := range evs {
				a, _ := json.Marshal(evs[i].Payload)
				b, _ := json.Marshal(live[id][i].Payload)
				if evs[i].ID != live[id][i].ID || evs[i].Hash != live[id][i].Hash || evs[i].Version != live[id][i].Version || string(a) != string(b) {
					rt.Fatalf("%s event %d differs:\n stored %s %s\n live   %s %s", id, i, evs[i].Type, a, live[id][i].Type, b)
				}
			}
			var liveState *turn.State
			if err := eng.View(ctx, id, func(s *turn.State) error { c := *s; liveState = &c; return nil }); err != nil {
				rt.Fatal(err)
			}
			if !reflect.DeepEqual(replayed, liveState) {
				rt.Fatalf("%s: replayed state differs from live state", id)
			}
		}
		rebuilt := projections.New()
		if err := rebuilt.Rebuild(ctx, f.store); err != nil {
			rt.Fatal(err)
		}
		a, _ := json.Marshal(rebuilt.Export())
		b, _ := json.Marshal(f.proj.Export())
		if string(a) != string(b) {
			rt.Fatalf("rebuilt read models differ from the incremental ones:\n rebuilt %s\n live    %s", a, b)
		}
	})
}

// TestConcurrentResponses: 64 goroutines over several engines (each with its
// own cache, as several instances would be) respond to one request with a
// mix of resolutions; exactly one resolution is stored, every caller with it
// succeeds and every other gets the conflict naming it.
func TestConcurrentResponses(t *testing.T) {
	f := newFixture(t)
	engines := []*engine.Engine{f.eng}
	for range 3 {
		engines = append(engines, engine.New(f.store, engine.Config{Kernel: kernel, Now: f.clock.Now}))
	}
	start(t, f.eng, "t1", domain.ModeSupervised)
	res := decide(t, f.eng, "t1", "c1", "make", "deploy")
	reqID := res.Approval.Request.RequestID
	for _, e := range engines[1:] { // warm the other caches at the old version
		if err := e.View(ctx, "t1", func(*turn.State) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	resolutions := []domain.Resolution{domain.ResolutionAllowOnce, domain.ResolutionAllowForTurn, domain.ResolutionDeny, domain.ResolutionCancelled}
	type answer struct {
		want domain.Resolution
		got  *turn.Approval
		err  error
	}
	answers := make([]answer, 64)
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			want := resolutions[i%len(resolutions)]
			r, err := engines[i%len(engines)].Execute(ctx, "t1", &turn.RespondApproval{RequestID: reqID, Resolution: want})
			answers[i] = answer{want: want, got: r.Approval, err: err}
		}()
	}
	close(gate)
	wg.Wait()
	_, evs := replay(t, f, "t1")
	var resolved []*turn.ApprovalResolved
	for _, e := range evs {
		if p, ok := e.Payload.(*turn.ApprovalResolved); ok {
			resolved = append(resolved, p)
		}
	}
	if len(resolved) != 1 {
		t.Fatalf("%d approval_resolved events, want exactly 1", len(resolved))
	}
	winner := resolved[0].Resolution
	for i, a := range answers {
		var already *turn.AlreadyResolvedError
		switch {
		case a.want == winner && (a.err != nil || a.got == nil || a.got.Resolution != winner):
			t.Errorf("caller %d sent the winning %s and got %v", i, a.want, a.err)
		case a.want != winner && (!errors.As(a.err, &already) || already.Stored != winner):
			t.Errorf("caller %d sent %s and got %v, want already resolved as %s", i, a.want, a.err, winner)
		}
	}
}

// TestStaleCacheCatchesUp: two engines on one store; each command on a
// cache that another engine made stale is caught up by the append's
// wrong-expected-version and retried.
func TestStaleCacheCatchesUp(t *testing.T) {
	f := newFixture(t)
	other := engine.New(f.store, engine.Config{Kernel: kernel, Now: f.clock.Now})
	start(t, f.eng, "t1", domain.ModeSupervised)
	r1 := decide(t, other, "t1", "c1", "ls")
	r2 := decide(t, f.eng, "t1", "c2", "ls", "-l") // f.eng's cache is at v2
	if r1.Turn.Version != 3 || r2.Turn.Version != 4 {
		t.Fatalf("versions %d, %d", r1.Turn.Version, r2.Turn.Version)
	}
	// A retry through the stale engine of a call decided by the other one
	// is answered with the stored decision and appends nothing: the same
	// deterministic event ids at the same expected version are the store's
	// idempotent retry.
	r3 := decide(t, other, "t1", "c2", "ls", "-l")
	if r3.Turn.Version != 4 || r3.Approval == nil || r3.Approval.Request.RequestID != r2.Approval.Request.RequestID || r3.Decision != r2.Decision {
		t.Fatalf("replay through the other engine: %+v", r3)
	}
	if _, evs := replay(t, f, "t1"); len(evs) != 5 {
		t.Fatalf("%d events stored, want 5", len(evs))
	}
	if _, err := other.Execute(ctx, "t1", &turn.RespondApproval{RequestID: r2.Approval.Request.RequestID, Resolution: domain.ResolutionDeny}); err != nil {
		t.Fatal(err)
	}
	_, err := f.eng.Execute(ctx, "t1", &turn.RespondApproval{RequestID: r2.Approval.Request.RequestID, Resolution: domain.ResolutionAllowOnce})
	var already *turn.AlreadyResolvedError
	if !errors.As(err, &already) || already.Stored != domain.ResolutionDeny {
		t.Fatalf("stale engine must find the stored resolution: %v", err)
	}
}

// TestRejectedCommandAppendsNothing: every refusal leaves the stream as it was.
func TestRejectedCommandAppendsNothing(t *testing.T) {
	f := newFixture(t)
	start(t, f.eng, "t1", domain.ModeSupervised)
	bad := []turn.Command{
		&turn.EvaluateTool{ToolCallID: "", Invocation: domain.Invocation{ToolName: "read_file", Arguments: json.RawMessage(`{"path":"x"}`)}},
		&turn.EvaluateTool{ToolCallID: "c1", Invocation: domain.Invocation{ToolName: "read_file", Arguments: json.RawMessage(`{"path":""}`)}},
		&turn.EvaluateTool{ToolCallID: "c1", Invocation: domain.Invocation{ToolName: "exec_command", Arguments: json.RawMessage(`[1,2]`)}},
		&turn.RespondApproval{RequestID: "nope", Resolution: domain.ResolutionAllowOnce},
		&turn.RespondApproval{RequestID: "nope", Resolution: "maybe"},
		&turn.EndTurn{Status: "paused"},
		&turn.StartTurn{TurnID: "t1", Profile: &domain.ProfileRequest{Mode: "yolo"}},
	}
	for _, c := range bad {
		if _, err := f.eng.Execute(ctx, "t1", c); err == nil {
			t.Errorf("%T accepted", c)
		}
	}
	if _, evs := replay(t, f, "t1"); len(evs) != 3 {
		t.Fatalf("%d events after rejected commands, want 3", len(evs))
	}
	if _, err := f.eng.Execute(ctx, "missing", &turn.EvaluateTool{ToolCallID: "c", Invocation: domain.Invocation{ToolName: "read_file", Arguments: json.RawMessage(`{"path":"x"}`)}}); !errors.Is(err, turn.ErrNotFound) {
		t.Fatalf("decision on an unknown turn: %v", err)
	}
}

// TestRestartKeepsEverything: a closed and reopened store gives back every
// turn, pending approval and grant, and the engine carries on.
func TestRestartKeepsEverything(t *testing.T) {
	f := newFixture(t)
	start(t, f.eng, "t1", domain.ModeSupervised)
	r := decide(t, f.eng, "t1", "c1", "make")
	if _, err := f.eng.Execute(ctx, "t1", &turn.RespondApproval{RequestID: r.Approval.Request.RequestID, Resolution: domain.ResolutionAllowForTurn}); err != nil {
		t.Fatal(err)
	}
	pending := decide(t, f.eng, "t1", "c2", "make", "install")
	f.sync(pending.Position)
	before, _ := json.Marshal(f.proj.Export())
	f.close()
	f.open()
	after, _ := json.Marshal(f.proj.Export())
	if string(before) != string(after) {
		t.Fatalf("read models differ after a restart")
	}
	if got := decide(t, f.eng, "t1", "c3", "make"); got.Decision.Reason != domain.ReasonCachedApproval {
		t.Fatalf("grant lost across restart: %+v", got.Decision)
	}
}

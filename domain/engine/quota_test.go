package engine_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
)

// TestOpenRequestQuota: an agent that asks faster than people answer fills
// its turn's quota of open approval requests, and the next new ask, by a
// decision or by /exec, is a QuotaError that appends nothing. At the limit,
// a call that does not ask is still decided, a repeat of an asked call is
// still answered, and another turn still asks; once a person answers one
// request, the refused call asks.
func TestOpenRequestQuota(t *testing.T) {
	f := newFixture(t)
	r := &procRunner{path: "/usr/bin:/bin"}
	eng := engine.New(f.store, engine.Config{Kernel: kernel, Now: f.clock.Now, Runner: r, Hint: projHint{f.proj}, MaxOpenRequests: 3})
	root := t.TempDir()
	startIn(t, eng, "t", "", domain.ModeSupervised, root)
	startIn(t, eng, "other", "", domain.ModeSupervised, root)
	ask := func(turnID, call string) (engine.Result, error) {
		args, _ := json.Marshal(map[string]any{"cmd": []string{"make", call}})
		return eng.Execute(ctx, turnID, &turn.EvaluateTool{ToolCallID: call, Invocation: domain.Invocation{ToolName: "exec_command", Arguments: args}})
	}
	for i := range 3 {
		if res, err := ask("t", fmt.Sprint("c", i)); err != nil || res.Decision.Behavior != domain.BehaviorAsk {
			t.Fatalf("ask %d under the quota: %+v %v", i, res.Decision, err)
		}
	}
	version := func() int64 {
		var v int64
		if err := eng.View(ctx, "t", func(s *turn.State) error { v = s.Version; return nil }); err != nil {
			t.Fatal(err)
		}
		return v
	}
	before := version()
	_, err := ask("t", "c3")
	var quota *domain.QuotaError
	if !errors.As(err, &quota) || quota.Quota != domain.QuotaOpenRequests || quota.Limit != 3 || quota.Of != "t" {
		t.Fatalf("a fourth open request: %v", err)
	}
	_, err = eng.Exec(ctx, "t", &engine.Command{ToolCallID: "x1", Argv: []string{"/bin/true", "exec"}}, 0)
	if !errors.As(err, &quota) {
		t.Fatalf("a fourth open request through /exec: %v", err)
	}
	if v := version(); v != before {
		t.Fatalf("the refusals appended events: version %d → %d", before, v)
	}
	// Controls at the limit: a call that does not ask is decided, a repeat
	// of an asked call is answered, another turn asks.
	args, _ := json.Marshal(map[string]any{"path": root})
	if res, err := eng.Execute(ctx, "t", &turn.EvaluateTool{ToolCallID: "r1", Invocation: domain.Invocation{ToolName: "list_dir", Arguments: args}}); err != nil || res.Decision.Behavior != domain.BehaviorAllow {
		t.Fatalf("a read at the limit: %+v %v", res.Decision, err)
	}
	if res, err := ask("t", "c0"); err != nil || !res.Replayed || res.Decision.Behavior != domain.BehaviorAsk {
		t.Fatalf("a repeat of an asked call at the limit: %+v %v", res, err)
	}
	if res, err := ask("other", "c3"); err != nil || res.Decision.Behavior != domain.BehaviorAsk {
		t.Fatalf("another turn's ask: %+v %v", res.Decision, err)
	}
	respond(t, eng, "t", "c0", domain.ResolutionDeny)
	if res, err := ask("t", "c3"); err != nil || res.Decision.Behavior != domain.BehaviorAsk {
		t.Fatalf("the refused call once a request is answered: %+v %v", res.Decision, err)
	}
}

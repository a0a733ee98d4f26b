package engine_test

import (
	"encoding/json"
	"strings"
	"testing"

	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
)

// rootsChecker refuses any file outside /work/repo, as the sandbox's file
// checker would for a workspace-confined snapshot.
type rootsChecker struct{}

type refusal struct{ code, msg string }

func (r *refusal) Error() string       { return r.code + ": " + r.msg }
func (r *refusal) RefusalCode() string { return r.code }

func (rootsChecker) CheckFile(s *domain.TurnExecutionSecuritySnapshot, path string, op domain.Access) error {
	if !domain.PathWithin(path, "/work/repo") {
		return &refusal{"outside_allowed_roots", path + " is outside the roots"}
	}
	return nil
}

func (rootsChecker) CheckURL(*domain.TurnExecutionSecuritySnapshot, string) error { return nil }

func TestResourceRefusalRecordsSandboxDenial(t *testing.T) {
	f := newFixture(t)
	eng := engine.New(f.store, engine.Config{Kernel: kernel, Now: f.clock.Now, Checker: rootsChecker{}})
	start(t, eng, "t1", domain.ModeAutoAcceptEdits)
	patch := domain.Invocation{ToolName: "apply_patch", Arguments: json.RawMessage(`{"patch":"*** Update File: /etc/passwd\n"}`)}
	res, err := eng.Execute(ctx, "t1", &turn.EvaluateTool{ToolCallID: "c1", Invocation: patch})
	if err != nil {
		t.Fatal(err)
	}
	if res.Decision.Behavior != domain.BehaviorDeny || res.Decision.Reason != domain.ReasonSandboxDenied || len(res.Events) != 1 {
		t.Fatalf("got %+v", res)
	}
	d := res.Events[0].Payload.(*turn.DecisionDenied)
	if d.Refusal != "outside_allowed_roots" {
		t.Fatalf("refusal %q", d.Refusal)
	}
	again, err := eng.Execute(ctx, "t1", &turn.EvaluateTool{ToolCallID: "c1", Invocation: patch})
	if err != nil || !again.Replayed || again.Decision.Reason != domain.ReasonSandboxDenied {
		t.Fatalf("retry: %+v %v", again, err)
	}
	ok, err := eng.Execute(ctx, "t1", &turn.EvaluateTool{ToolCallID: "c2", Invocation: domain.Invocation{ToolName: "apply_patch", Arguments: json.RawMessage(`{"patch":"*** Update File: src/a.go\n"}`)}})
	if err != nil || ok.Decision.Behavior != domain.BehaviorAllow {
		t.Fatalf("inside the roots: %+v %v", ok, err)
	}
	f.sync(ok.Position)
	rows := f.proj.Timeline("t1")
	if len(rows) < 2 || rows[1].Kind != "sandbox" || !strings.Contains(rows[1].Detail, "outside_allowed_roots") {
		t.Fatalf("timeline: %+v", rows)
	}
}

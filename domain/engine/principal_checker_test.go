package engine_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"turnstile/adapters/logstore"
	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
	"turnstile/sandbox"
)

var _ engine.PrincipalScoped = sandbox.DecisionChecker{}

// scopedChecker is the production checker, noting whom the engine scopes
// it to for each call.
type scopedChecker struct {
	sandbox.DecisionChecker
	mu    *sync.Mutex
	asked *[]string
}

func (c scopedChecker) ForPrincipal(name string) interface {
	CheckFile(s *domain.TurnExecutionSecuritySnapshot, path string, op domain.Access) error
	CheckURL(s *domain.TurnExecutionSecuritySnapshot, rawURL string) error
} {
	c.mu.Lock()
	*c.asked = append(*c.asked, name)
	c.mu.Unlock()
	return c.DecisionChecker.ForPrincipal(name)
}

// TestDecisionCheckerScopedToTheCallsPrincipal: each call's resource
// checks run with the checker scoped to the principal who asked
// (engine.PrincipalScoped), so that the decision scans' slot goes to each
// principal in turn (TestAttack18ScanSlotByPrincipal); each principal's
// read is still judged (allowed here).
func TestDecisionCheckerScopedToTheCallsPrincipal(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "src", "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := logstore.Open(filepath.Join(t.TempDir(), "events"), logstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	eng := engine.New(st, engine.Config{Kernel: kernel,
		Checker: scopedChecker{DecisionChecker: sandbox.DecisionChecker{Timeout: time.Second}, mu: &mu, asked: &asked}})
	if _, err := eng.Execute(ctx, "t1", &turn.StartTurn{TurnID: "t1", WorkspaceID: "ws", ThreadID: "th",
		Profile: &domain.ProfileRequest{Mode: domain.ModeSupervised}, Inputs: turn.Inputs{WorkspaceRoot: root}}); err != nil {
		t.Fatal(err)
	}
	for i, who := range []domain.Actor{{Name: "agent", Role: domain.RoleRuntime}, {Name: "ci", Role: domain.RoleRuntime}} {
		args, _ := json.Marshal(map[string]string{"path": "src/main.go"})
		res, err := eng.Execute(ctx, "t1", &turn.EvaluateTool{Meta: turn.Meta{Actor: who}, ToolCallID: "c" + who.Name,
			Invocation: domain.Invocation{ToolName: "read_file", Arguments: args}})
		if err != nil || res.Decision.Behavior != domain.BehaviorAllow {
			t.Fatalf("%s's read of src/main.go: %v %+v", who.Name, err, res.Decision)
		}
		mu.Lock()
		got := append([]string(nil), asked...)
		mu.Unlock()
		if len(got) != i+1 || got[i] != "runtime:"+who.Name {
			t.Errorf("after %s's call the checker was scoped to %q, want its last to be runtime:%s", who.Name, got, who.Name)
		}
	}
}

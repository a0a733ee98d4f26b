package domain_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"turnstile/domain"
	"turnstile/sandbox"
)

// BenchmarkDecision is one decision as the engine makes it on a new tool
// call (engine.checkResources, then Evaluate): classification with every
// path resolved and checked by the checker production installs
// (sandbox.DecisionChecker: canonical paths on the real filesystem,
// symlinks, roots, sensitive paths), the URL check when there is one, and
// the evaluation against 1,000 allow_for_turn grants. The workspace is a
// real directory. Compare it with BenchmarkEvaluateGrantHit, the last step
// alone.
func BenchmarkDecision(b *testing.B) {
	root := b.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "src"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "src", "main.go"), []byte("package main\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	s, err := domain.ResolveSnapshot(domain.SnapshotInputs{
		Profile: domain.ResolveProfile(&domain.ProfileRequest{Mode: domain.ModeSupervised}, domain.SourceComposer),
		Cwd:     root, WorkspaceRoot: root, ExecutionBackend: domain.BackendNative,
		Kernel: domain.KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true},
	})
	if err != nil {
		b.Fatal(err)
	}
	checker := sandbox.DecisionChecker{Timeout: time.Second}
	decide := func(inv domain.Invocation, grants domain.GrantSet) (domain.Decision, error) {
		a, err := domain.ClassifyResolved(inv, s.Sandbox.Cwd, nil, func(p string, op domain.Access, tree bool) (string, error) {
			return checker.ResolveFile(&s, p, op, tree)
		})
		if err != nil {
			return domain.Decision{}, err
		}
		if a.URL != nil {
			if err := checker.CheckURL(&s, a.URL.String()); err != nil {
				return domain.Decision{}, err
			}
		}
		return domain.Evaluate(&s, &a, grants), nil
	}
	grants := domain.GrantSet{}
	for i := range 999 {
		inv := domain.Invocation{ToolName: "exec_command", Arguments: json.RawMessage(fmt.Sprintf(`{"cmd":["make","t%d"]}`, i))}
		a, err := domain.Classify(inv, root, nil)
		if err != nil {
			b.Fatal(err)
		}
		grants[domain.GrantFor(domain.ModeSupervised, &a)] = struct{}{}
	}
	exec := domain.Invocation{ToolName: "exec_command", Arguments: json.RawMessage(`{"cmd":["go","test","./..."],"workdir":"src"}`)}
	a, err := domain.Classify(exec, root, nil)
	if err != nil {
		b.Fatal(err)
	}
	grants[domain.GrantFor(domain.ModeSupervised, &a)] = struct{}{}

	for _, c := range []struct {
		name  string
		inv   domain.Invocation
		want  domain.Behavior
		grant bool
	}{
		{"read_file", domain.Invocation{ToolName: "read_file", Arguments: json.RawMessage(`{"path":"src/main.go"}`)}, domain.BehaviorAllow, false},
		{"exec_command_granted", exec, domain.BehaviorAllow, true},
		// write_file is not a built-in tool: it asks as
		// unknown_action_default and no path is checked.
		{"write_file_ask", domain.Invocation{ToolName: "write_file", Arguments: json.RawMessage(`{"path":"src/new.go","content":"package main\n"}`)}, domain.BehaviorAsk, false},
		// A checked write: apply_patch adding a new file in the workspace
		// (the path is resolved through its nearest existing ancestor).
		{"apply_patch_ask", domain.Invocation{ToolName: "apply_patch", Arguments: json.RawMessage(`{"patch":"*** Begin Patch\n*** Add File: src/new.go\n+package main\n*** End Patch"}`)}, domain.BehaviorAsk, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				d, err := decide(c.inv, grants)
				if err != nil {
					b.Fatal(err)
				}
				if d.Behavior != c.want || d.Cached != c.grant {
					b.Fatalf("decision %+v", d)
				}
			}
		})
	}
}

// TestDecisionBenchmarkRefuses is the control for BenchmarkDecision's
// checker: the same decision path refuses a read through a symlink that
// leads out of the workspace, so the benchmark's allows are not the checker
// doing nothing.
func TestDecisionBenchmarkRefuses(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "plain"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := domain.ResolveSnapshot(domain.SnapshotInputs{
		Profile: domain.ResolveProfile(&domain.ProfileRequest{Mode: domain.ModeSupervised}, domain.SourceComposer),
		Cwd:     root, WorkspaceRoot: root, ExecutionBackend: domain.BackendNative,
		Kernel: domain.KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	checker := sandbox.DecisionChecker{Timeout: time.Second}
	classify := func(path string) error {
		inv := domain.Invocation{ToolName: "read_file", Arguments: json.RawMessage(fmt.Sprintf(`{"path":%q}`, path))}
		_, err := domain.ClassifyResolved(inv, root, nil, func(p string, op domain.Access, tree bool) (string, error) {
			return checker.ResolveFile(&s, p, op, tree)
		})
		return err
	}
	if err := classify("plain"); err != nil {
		t.Fatalf("a plain file in the workspace: %v", err)
	}
	var r sandbox.CodedRefusal
	if err := classify("link"); !errors.As(err, &r) {
		t.Fatalf("a symlink out of the workspace: %v, want a refusal", err)
	}
}

package domain

import (
	"encoding/json"
	"testing"
)

// repoExecDecider is the exec-patch attack tests' judge: a full_access turn
// in /work/repo whose allowed_paths is /work/repo alone, deciding an
// exec_command of cmd as the engine would (classified, then evaluated); a
// command the classifier refuses is a deny by its error.
func repoExecDecider(t *testing.T) func(cmd string) (Decision, Action, error) {
	t.Helper()
	s, err := ResolveSnapshot(SnapshotInputs{
		Profile: ResolveProfile(&ProfileRequest{Mode: ModeFullAccess, AllowedPaths: []string{"/work/repo"}}, SourceComposer),
		Cwd:     "/work/repo", WorkspaceRoot: "/work/repo", ExecutionBackend: BackendNative,
		Kernel: KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	return func(cmd string) (Decision, Action, error) {
		raw, _ := json.Marshal(map[string]any{"cmd": cmd})
		a, err := Classify(Invocation{ToolName: "exec_command", Arguments: raw}, s.Sandbox.Cwd, nil)
		if err != nil {
			return Decision{Behavior: BehaviorDeny, DecidedBy: err.Error()}, a, err
		}
		return Evaluate(&s, &a, nil), a, nil
	}
}

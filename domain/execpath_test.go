package domain

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestSearchPathIsThePolicys: relative entries never count (a bare name
// never resolves in the working directory), and a policy that drops PATH
// falls back to the system default.
func TestSearchPathIsThePolicys(t *testing.T) {
	inherit := EnvironmentPolicy{Inherit: true}
	if got := SearchPath(&inherit, "bin:/opt/x/bin::.:/usr/bin/"); !slices.Equal(got, []string{"/opt/x/bin", "/usr/bin"}) {
		t.Errorf("SearchPath = %v", got)
	}
	none := EnvironmentPolicy{}
	if got := SearchPath(&none, "/opt/x/bin"); strings.Join(got, ":") != DefaultSearchPath {
		t.Errorf("PATH denied by the policy: %v", got)
	}
	if got := SearchPath(&inherit, ""); strings.Join(got, ":") != DefaultSearchPath {
		t.Errorf("no server PATH: %v", got)
	}
}

// TestExecScopeBindsContent: the executable, every environment value and
// stdin change the scope hash, while neither values nor stdin appear in the
// scope or the details; the approver sees the executable, the names and the
// size. Control: the same content gives the same hash in any key order.
func TestExecScopeBindsContent(t *testing.T) {
	classify := func(args map[string]any) Action {
		t.Helper()
		raw, _ := json.Marshal(args)
		a, err := Classify(Invocation{ToolName: "exec_command", Arguments: raw}, "/w", nil)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	base := map[string]any{"argv": []string{"sh", "-s"}, "executable": "/bin/sh", "env": map[string]string{"A": "secret-value-1"}, "stdin": "echo hi"}
	a := classify(base)
	for key, v := range map[string]any{"executable": "/w/evil/sh", "env": map[string]string{"A": "secret-value-2"}, "stdin": "rm -rf /"} {
		changed := map[string]any{}
		for k, x := range base {
			changed[k] = x
		}
		changed[key] = v
		if classify(changed).ScopeHash == a.ScopeHash {
			t.Errorf("changing %s keeps the scope hash", key)
		}
	}
	same := classify(map[string]any{"stdin": "echo hi", "env": map[string]string{"A": "secret-value-1"}, "executable": "/bin/sh", "argv": []string{"sh", "-s"}})
	if same.ScopeHash != a.ScopeHash {
		t.Error("the same content hashes differently")
	}
	shown, _ := json.Marshal(struct {
		S Scope
		D []Detail
	}{a.Scope, a.Details})
	if strings.Contains(string(shown), "secret-value-1") || strings.Contains(string(shown), "echo hi") {
		t.Errorf("a value or stdin in clear: %s", shown)
	}
	for _, want := range []string{`"Executable","value":"/bin/sh"`, `"Environment","value":"A"`, `"Standard input","value":"7 bytes"`} {
		if !strings.Contains(string(shown), want) {
			t.Errorf("the approver does not see %s: %s", want, shown)
		}
	}
}

// TestExecShowsTheEnvironmentThatChoosesWhatRuns: a request shows the value
// of PATH, HOME and the variables like them (the thirty-fourth review: a
// PATH naming the agent's directory ran its ls under "Run /bin/sh -c ls",
// and a HOME in the workspace ran its git config's fsmonitor), redacted as
// a command is; another variable's value, and one whose name marks a
// secret, are not shown. A value shown is shown whole: a longer one is
// refused (the thirty-seventh review: a PATH's deciding entry past a cut).
func TestExecShowsTheEnvironmentThatChoosesWhatRuns(t *testing.T) {
	env := map[string]any{"PATH": "/w/.bin:/usr/bin", "HOME": "/w/h", "A": "secret-value-1", "GIT_SSH_COMMAND": "ssh -i x", "PYTHONPATH": "/w/lib",
		"GIT_PASSWORD": "pw-123", "SECRET_HOME": "/w/s", "KEY_HOME": "/home/u/.ssh/id_ed25519"}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	got := envDetail(keys, env, nil)
	for _, want := range []string{`PATH="/w/.bin:/usr/bin"`, `HOME="/w/h"`, `GIT_SSH_COMMAND="ssh -i x"`, `PYTHONPATH="/w/lib"`, "A, ", "GIT_PASSWORD, ", ", SECRET_HOME"} {
		if !strings.Contains(got, want) {
			t.Errorf("the environment shown lacks %q: %s", want, got)
		}
	}
	for _, not := range []string{"secret-value-1", "pw-123", "/w/s", "id_ed25519"} {
		if strings.Contains(got, not) {
			t.Errorf("the environment shown holds %q: %s", not, got)
		}
	}
	for _, long := range []map[string]any{{"PATH": strings.Repeat("/x", MaxEnvironmentValue/2) + "/y"}, {"A": strings.Repeat("x", MaxEnvironmentValue+1)}} {
		raw, _ := json.Marshal(map[string]any{"argv": []string{"ls"}, "executable": "/bin/ls", "env": long})
		_, err := Classify(Invocation{ToolName: "exec_command", Arguments: raw}, "/w", nil)
		if _, shown := long["PATH"]; shown != (err != nil) {
			t.Errorf("a value of %d bytes (shown: %v): %v", MaxEnvironmentValue+1, shown, err)
		}
	}
}

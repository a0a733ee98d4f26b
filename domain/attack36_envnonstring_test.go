package domain

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAttack36EnvNonStringValueHidesPath: b86d9ce promises the value of
// every variable a restricted mode passes (PATH first) is shown. envDetail
// shows a value only when it is a JSON string, while env_sha256 binds
// fmt.Sprint(value). A decision request (POST /v1/turns/{id}/decisions,
// which the runtime credential may send with any arguments) for
// exec_command with "env": {"PATH": ["/tmp:/w/.bin:"]} shows "PATH" alone,
// and its scope is the scope of the exec of the same command with the
// string PATH "[/tmp:/w/.bin:]" (fmt.Sprint of the array): an
// allow_for_turn given to the first (same tool, same scope_hash) lets the
// second run unasked, with /w/.bin, the agent's directory, in its PATH.
func TestAttack36EnvNonStringValueHidesPath(t *testing.T) {
	classify := func(env any) Action {
		t.Helper()
		raw, _ := json.Marshal(map[string]any{"argv": []string{"/bin/sh", "-c", "ls"}, "executable": "/bin/sh", "env": env})
		a, err := Classify(Invocation{ToolName: "exec_command", Arguments: raw}, "/w", nil)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	shown := func(a Action) string {
		for _, d := range a.Details {
			if d.Label == "Environment" {
				return d.Value
			}
		}
		return ""
	}
	// What exec sends (POST /exec takes env as strings only).
	run := classify(map[string]string{"PATH": "[/tmp:/w/.bin:]"})
	if got := shown(run); !strings.Contains(got, `PATH="[/tmp:/w/.bin:]"`) {
		t.Fatalf("control: the exec's request does not show its PATH: %q", got)
	}
	// What the agent has approved first, through the decision endpoint:
	// fixed, a value that is not a string is refused.
	raw, _ := json.Marshal(map[string]any{"argv": []string{"/bin/sh", "-c", "ls"}, "executable": "/bin/sh", "env": map[string]any{"PATH": []string{"/tmp:/w/.bin:"}}})
	if asked, err := Classify(Invocation{ToolName: "exec_command", Arguments: raw}, "/w", nil); err == nil {
		t.Errorf("a request whose PATH is an array is classified, shown as %q (scope equal to the exec's with the string: %v)", shown(asked), asked.ScopeHash == run.ScopeHash)
	}
}

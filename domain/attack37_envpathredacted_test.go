package domain

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAttack37EnvPathEntryRedacted: the PATH a request shows is "redacted as
// a command is". A directory of the agent's, relative to the cwd, named like
// a GitHub token (ghp_…) and placed first in PATH is shown as
// "PATH=[redacted]:/usr/bin:/bin": the approver cannot tell which directory
// /bin/sh -c ls takes its ls from (redaction's own rule is "where it writes,
// what it runs: left in view"), while env_sha256 binds it and the command
// runs the agent's ls.
func TestAttack37EnvPathEntryRedacted(t *testing.T) {
	shown := func(path string) string {
		t.Helper()
		raw, _ := json.Marshal(map[string]any{"argv": []string{"/bin/sh", "-c", "ls"}, "executable": "/bin/sh", "env": map[string]string{"PATH": path}})
		a, err := Classify(Invocation{ToolName: "exec_command", Arguments: raw}, "/w", nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range a.Details {
			if d.Label == "Environment" {
				return d.Value
			}
		}
		return ""
	}
	// Control: an ordinary relative directory first in PATH is shown.
	if got := shown("tools:/usr/bin:/bin"); !strings.Contains(got, `PATH="tools:`) {
		t.Fatalf("control: %q", got)
	}
	const dir = "ghp_abcdefghijklmnopqrstuvwxyz0123456789AB"
	if got := shown(dir + ":/usr/bin:/bin"); !strings.Contains(got, dir) {
		t.Errorf("the PATH directory that picks the program is hidden: %q", got)
	}
}

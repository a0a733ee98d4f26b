package domain

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestAttack14ExecPatchDetectorCost: the detector of an exec_command
// Codex applies as a patch looked for a "<<" on the rest of the line after
// each place the program's name stands, a scan to the line's end for each:
// one exec_command of 128 KB ("applypatch " 11,800 times on one line, with
// or without a here-document at its end) held its decision 6 to 9 s of
// the server's CPU on the review machine, on every call, which the agent
// makes at will. The scan is now one pass over the script. The control: the
// same here-document form of a few names is still a patch Codex applies,
// judged as writes.
func TestAttack14ExecPatchDetectorCost(t *testing.T) {
	classify := func(cmd string) (Action, time.Duration, error) {
		raw, _ := json.Marshal(map[string]any{"cmd": cmd})
		t0 := time.Now()
		a, err := Classify(Invocation{ToolName: "exec_command", Arguments: raw}, "/w", nil)
		return a, time.Since(t0), err
	}
	patch := "<<EOF\n*** Begin Patch\n*** Add File: x\n+y\n*** End Patch\nEOF\n"
	for _, cmd := range []string{
		strings.Repeat("applypatch ", 11800) + "\n",
		strings.Repeat("apply_patch", 11800) + " " + patch,
	} {
		// Decided or refused (the program named twice before its
		// here-document is refused since the fifty-ninth review), in time.
		if _, took, err := classify(cmd); took > 2*time.Second {
			t.Errorf("exec_command of %d bytes naming the program 11,800 times: %v to decide (%v)", len(cmd), took, err)
		}
	}
	// control
	a, _, err := classify("cd sub && X=1 apply_patch >/dev/null " + patch)
	if err != nil || a.Also != ActionFileWrite || len(a.Files) != 2 {
		t.Errorf("control: %+v %v", a.Files, err)
	}
}

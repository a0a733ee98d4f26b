package domain

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAttack39AgentFieldsUnboundAndUnseen: the ninth review found that
// the Bash mapping kept only command and timeout, so that a grant of
// "npm test" covered the call with dangerouslyDisableSandbox, and its fix
// keeps every other field of a Bash call in the scope and in view. The
// Task/Agent mapping still keeps description, prompt and subagent_type
// alone (ccKeep) and drops the rest of what Claude Code's Agent tool reads:
// "cwd" (an absolute path to run the sub-agent in, overriding the working
// directory), "isolation" ("worktree", or "remote": the sub-agent runs
// elsewhere than this machine, where no PreToolUse of it reaches
// turnstile), "run_in_background", "model", "name" (Claude Code's Agent
// tool input as its sdk-tools.d.ts and docs give it). So an approver of an
// Agent call is shown neither field, and an allow_for_turn grant of one
// sub-agent covers the same prompt run remotely or in another directory:
// the scope hash is the same.
//
// Control: two calls with different prompts have different scopes (the
// scope does bind what it keeps). The secure behaviour asserted: a call
// with isolation "remote" or another cwd has another scope hash, and its
// request shows the field.
func TestAttack39AgentFieldsUnboundAndUnseen(t *testing.T) {
	classify := func(in string) Action {
		t.Helper()
		inv, err := ClaudeCodeInvocation("Agent", json.RawMessage(in), "/w")
		if err != nil {
			t.Fatal(err)
		}
		a, err := Classify(inv, "/w", nil)
		if err != nil {
			t.Fatal(err)
		}
		return a.Redacted()
	}
	shown := func(a Action) string {
		s := a.Summary
		for _, d := range a.Details {
			s += "\n" + d.Label + ": " + d.Value
		}
		return s
	}
	const base = `{"description":"review the diff","prompt":"Review the staged diff for bugs.","subagent_type":"general-purpose"`
	plain := classify(base + `}`)
	if plain.Kind != ActionTaskSubagent {
		t.Fatalf("premise: Agent is %s, want task_subagent", plain.Kind)
	}
	// Control.
	if other := classify(`{"description":"review the diff","prompt":"Delete the tests.","subagent_type":"general-purpose"}`); other.ScopeHash == plain.ScopeHash {
		t.Fatal("control: two prompts have one scope")
	}

	for _, c := range []struct{ extra, want string }{
		{`,"isolation":"remote"}`, "remote"},
		{`,"cwd":"/home/dev/other-project"}`, "/home/dev/other-project"},
	} {
		a := classify(base + c.extra)
		if a.ScopeHash == plain.ScopeHash {
			t.Errorf("%s: same scope hash as the call without it (a grant of one covers the other)", c.extra)
		}
		if s := shown(a); !strings.Contains(s, c.want) {
			t.Errorf("%s: the request does not show it:\n%s", c.extra, s)
		}
	}
}

package domain

import "testing"

// TestAttack9ProcessPolicyDroppedFromDecisions: the ninth review. A task
// cap that turns a child's shell off (process.shell_enabled false, or
// command families with nothing in common with its parent's), limits it to
// command families, or denies commands was honoured only by turnstile's own
// spawn (PlanSpawn: shell_disabled, command_not_allowed, command_denied).
// A decision for the same command answered allow in a full_access child,
// and a runtime that runs its own commands (the decisions API, the Claude
// Code hook) ran it.
func TestAttack9ProcessPolicyDroppedFromDecisions(t *testing.T) {
	parent := testSnapshot(t, ModeFullAccess)
	proc := func(p ProcessPolicy) *TaskCap {
		p.MaxDurationMs, p.DefaultTimeoutMs = MaxCommandDurationMs, DefaultCommandTimeoutMs
		p.Environment = parent.Process.Environment
		return &TaskCap{Process: &p}
	}
	decide := func(cap *TaskCap, args string) Decision {
		child, err := ResolveChildSnapshot(ChildInputs{Cap: cap, Parent: &parent, ParentTurnID: "p"})
		if err != nil {
			t.Fatal(err)
		}
		a, err := Classify(Invocation{ToolName: "exec_command", Arguments: []byte(args)}, "/work/repo", nil)
		if err != nil {
			t.Fatal(err)
		}
		return Evaluate(&child, &a, nil)
	}
	for _, c := range []struct {
		name string
		cap  *TaskCap
		args string
	}{
		{"shell off", proc(ProcessPolicy{ShellEnabled: false}), `{"cmd":["go","test","./..."]}`},
		{"families", proc(ProcessPolicy{ShellEnabled: true, AllowedCommandFamilies: []string{"go"}}), `{"cmd":["curl","https://evil.example"]}`},
		{"families, a shell string", proc(ProcessPolicy{ShellEnabled: true, AllowedCommandFamilies: []string{"go"}}), `{"cmd":"go version; curl https://evil.example"}`},
		{"denied", proc(ProcessPolicy{ShellEnabled: true, DeniedCommands: []string{"curl"}}), `{"cmd":["/usr/bin/curl","https://evil.example"]}`},
	} {
		if d := decide(c.cap, c.args); d.Behavior != BehaviorDeny {
			t.Errorf("%s: %s answered %s (%s by %s); the spawn refuses it", c.name, c.args, d.Behavior, d.Reason, d.DecidedBy)
		}
	}
	// control: what the cap leaves runnable is still allowed.
	if d := decide(proc(ProcessPolicy{ShellEnabled: true, AllowedCommandFamilies: []string{"go"}}), `{"cmd":["go","test","./..."]}`); d.Behavior != BehaviorAllow {
		t.Errorf("control: go test under families [go] answered %s (%s)", d.Behavior, d.Reason)
	}
	if d := decide(nil, `{"cmd":"curl https://example.com"}`); d.Behavior != BehaviorAllow {
		t.Errorf("control: a child without a cap answered %s (%s)", d.Behavior, d.Reason)
	}
}

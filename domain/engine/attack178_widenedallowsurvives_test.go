package engine_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
)

// TestAttack178_WidenedAllowOnceSurvivesNarrowingBack (review 178, medium):
// a widening resolves the open requests its table now allows as
// allow_once (reason permissions_changed), so that a runtime waiting on
// them unblocks. No person answered them: the wider policy did, exactly as
// it allows a new call outright. A narrowing back before such a call runs
// must then hold it as it holds a call the wider policy allowed outright
// ("an approved (or policy-allowed) call that has not run is decided
// again under the snapshot in force when it runs: ... a stricter mode
// revokes it"). revoked() takes any resolved request for a person's
// answer, judged by the snapshot version and the mode the request was
// opened under (the narrower mode it has again), so the call runs.
//
// The agent, which holds the runtime credential and sends /exec itself,
// chooses when to send the call again: it leaves its pending /exec calls
// (a command that rewrites the workspace, in auto_accept_edits where every
// command asks) unanswered, an admin widens the turn to full_access for a
// moment and narrows it back to auto_accept_edits, and then the agent sends
// them again: they run, unasked, under the narrowed turn.
//
// Controls, in the same turn and the same changes: a call the full_access
// table allowed outright (decided, not run) is revoked after the narrowing
// ("it now needs approval"); a call a person answered allow_once before the
// widening still runs after it (a person's answer stands); the agent's call
// asked after the narrowing asks.
func TestAttack178_WidenedAllowOnceSurvivesNarrowingBack(t *testing.T) {
	_, eng, r, root := execFixture(t)
	id := "t178-widen"
	startIn(t, eng, id, "", domain.ModeAutoAcceptEdits, root)
	marker := func(name string) string { return filepath.Join(root, name) }
	cmd := func(call, file string) engine.Command {
		return engine.Command{ToolCallID: call, Argv: []string{"/bin/sh", "-c", "echo agent > " + marker(file)}}
	}
	change := func(mode domain.Mode) {
		t.Helper()
		if _, err := eng.Execute(ctx, id, &turn.ChangeProfile{Profile: &domain.ProfileRequest{Mode: mode}}); err != nil {
			t.Fatal(err)
		}
	}
	decideCmd := func(call, text string) engine.Result {
		t.Helper()
		args, _ := json.Marshal(map[string]any{"cmd": text})
		res, err := eng.Execute(ctx, id, &turn.EvaluateTool{ToolCallID: call, Invocation: domain.Invocation{ToolName: "exec_command", Arguments: args}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	// The agent's call, and a call a person answers (control), both ask.
	x, z := cmd("x", "x.out"), cmd("z", "z.out")
	if res := mustExec(t, eng, id, x); res.Step != turn.ExecPending {
		t.Fatalf("the agent's command in auto_accept_edits: %+v, want pending", res.Step)
	}
	if res := mustExec(t, eng, id, z); res.Step != turn.ExecPending {
		t.Fatalf("control command: %+v, want pending", res.Step)
	}
	respond(t, eng, id, "z", domain.ResolutionAllowOnce) // a person's answer
	// The same on /decisions, where a CLI runtime (Claude Code's Bash,
	// Codex) runs the command itself, outside the kernel sandbox.
	if d := decideCmd("d", "rm -rf src").Decision; d.Behavior != domain.BehaviorAsk {
		t.Fatalf("the agent's decision in auto_accept_edits: %s, want ask", d.Behavior)
	}

	// An admin widens the turn for a moment: the pending call is allowed
	// once by the change, not by a person.
	change(domain.ModeFullAccess)
	var xr *turn.Approval
	if err := eng.View(ctx, id, func(s *turn.State) error {
		if q := s.Approvals[turn.RequestID(id, "x")]; q != nil {
			c := *q
			xr = &c
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if xr == nil || xr.Status != turn.RequestResolved || xr.Resolution != domain.ResolutionAllowOnce || xr.ResolvedReason != domain.ReasonPermissionsChanged {
		t.Fatalf("the widening did not resolve the pending call allow_once (permissions_changed): %+v", xr)
	}
	// Control: a call the full_access table allows outright, not run yet.
	if d := decideCmd("y", "echo y").Decision; d.Behavior != domain.BehaviorAllow {
		t.Fatalf("control: a command under full_access is %s, want allow", d.Behavior)
	}

	// ...and narrows it back.
	change(domain.ModeAutoAcceptEdits)

	// Control: the call the wider table allowed is revoked.
	if d := decideCmd("y", "echo y").Decision; d.Behavior != domain.BehaviorDeny || d.DecidedBy != turn.ReasonProfileChanged {
		t.Fatalf("control: the full_access-allowed call after the narrowing is %s (%s), want deny (permissions_changed)", d.Behavior, d.DecidedBy)
	}
	// Control: a new call asks.
	if d := decideCmd("n", "echo n").Decision; d.Behavior != domain.BehaviorAsk {
		t.Fatalf("control: a new command after the narrowing is %s, want ask", d.Behavior)
	}
	// Control: the person's allow_once still runs.
	if res := mustExec(t, eng, id, z); !res.Ran {
		t.Fatalf("control: the call a person allowed once did not run: %+v (%s)", res.Decision, res.Message)
	}

	// The agent sends its calls again, under auto_accept_edits, answered
	// by no one.
	d := decideCmd("d", "rm -rf src").Decision
	if d.Behavior == domain.BehaviorAllow {
		t.Errorf("the agent's decision after the narrowing back is allow (%s, decided_by %s): a CLI runtime runs rm -rf src unasked", d.Reason, d.DecidedBy)
	}
	res := mustExec(t, eng, id, x)
	if _, err := os.Stat(marker("x.out")); res.Ran || err == nil {
		t.Errorf("the agent's command ran after the narrowing back (ran %v, %s, decided_by %s, runs %v): its only allow came from the full_access snapshot the turn no longer has, as did the revoked call's",
			res.Ran, res.Decision.Reason, res.Decision.DecidedBy, r.runs())
	}
}

package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestAttack27BothWaysMismatchSkipsResourceChecks: a path argument that
// Codex resolves lexically (apply_patch's file names, exec_command's
// workdir, grep_files' path) is resolved both ways, and the classifier
// refuses one whose ".." leads elsewhere after its links are followed than
// when it is applied first (domain.pathBothWays, a *FieldError, since the
// twelfth review). But the engine's resource check (checkResources) treats
// any classification error that is not a sandbox refusal as "bad input,
// Decide reports it", and hands the call on unclassified; Decide then
// classifies it with no resolver (domain.Classify), where pathBothWays
// refuses nothing, and decides on the lexical paths with the policy alone:
// no root, symlink, protected-path or sensitive-path check at all.
//
// The agent (runtime credential, auto_accept_edits) sends one apply_patch
// whose first file is "lnk/../x" (lnk a link to a directory inside the
// workspace: both readings are writable, but differ) and whose second is
// outside every root (/etc/cron.d/…): the first name's mismatch stops the
// resolved classification before the second is checked, and the call is
// allowed, policy_allows_action, without anyone being asked. A Codex-style
// runtime applies such a patch itself, outside the kernel sandbox.
//
// The same hole reopens the ninth review's workdir attack: after a person
// allows `rm -rf *` for the turn in the workspace, {"cmd":"rm -rf *",
// "workdir":"lnk/.."} is allowed from that grant (cached_approval), while a
// runtime that follows links runs it in lnk's target's parent.
//
// Controls: the second file alone is denied (sandbox_denied), and the
// first alone should be the 400 the classifier was written to give.
func TestAttack27BothWaysMismatchSkipsResourceChecks(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	if err := os.MkdirAll(filepath.Join(root, "sub", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "sub", "deep"), filepath.Join(root, "lnk")); err != nil {
		t.Fatal(err)
	}
	s.startTurn("bw", "ws", "auto_accept_edits", root)
	outside := "/etc/cron.d/turnstile-attack27"

	// Control: a write outside the roots is refused before anyone is asked.
	out := map[string]any{"patch": "*** Begin Patch\n*** Add File: " + outside + "\n+* * * * * root id\n*** End Patch\n"}
	if d := s.decide("bw", "ctl-1", "apply_patch", out); d.Decision != "deny" || d.Reason != "sandbox_denied" {
		t.Fatalf("control: apply_patch of %s in auto_accept_edits: %+v, want deny sandbox_denied", outside, d)
	}

	// The mismatching name alone: the classifier's refusal (a 400 naming
	// the two readings) is what the request should get.
	lone := map[string]any{"patch": "*** Begin Patch\n*** Add File: lnk/../x.txt\n+x\n*** End Patch\n"}
	status, body := s.Request("POST", "/v1/turns/bw/decisions", map[string]any{"tool_call_id": "lone", "tool_name": "apply_patch", "arguments": lone})
	if status == http.StatusOK {
		var d decisionAnswer
		json.Unmarshal(body, &d)
		t.Errorf("apply_patch of lnk/../x.txt (%s/sub/x.txt after the link, %s/x.txt lexically): %s %s; want the 400 domain.pathBothWays gives", root, root, d.Decision, d.Reason)
	}

	// The attack: the mismatching name first, the outside one second.
	both := map[string]any{"patch": "*** Begin Patch\n*** Add File: lnk/../x.txt\n+x\n*** Add File: " + outside + "\n+* * * * * root id\n*** End Patch\n"}
	status, body = s.Request("POST", "/v1/turns/bw/decisions", map[string]any{"tool_call_id": "both", "tool_name": "apply_patch", "arguments": both})
	if status == http.StatusOK {
		var d decisionAnswer
		json.Unmarshal(body, &d)
		if d.Decision == "allow" {
			t.Errorf("apply_patch writing lnk/../x.txt and %s in auto_accept_edits: allow %s (decided_by %s), with no resource check; want a refusal (the second file alone is sandbox_denied)", outside, d.Reason, d.DecidedBy)
		}
	}

	// The workdir variant: a grant of `rm -rf *` in the workspace covers
	// the same command with workdir lnk/.. (the kernel: sub).
	s.startTurn("bw2", "ws", "supervised", root)
	rm := s.decide("bw2", "rm-1", "exec_command", map[string]any{"cmd": "rm -rf *"})
	if rm.Request == nil {
		t.Fatalf("supervised rm -rf *: %+v, want ask", rm)
	}
	s.respond(rm.Request.RequestID, "allow_for_turn")
	if d := s.decide("bw2", "rm-2", "exec_command", map[string]any{"cmd": "rm -rf *"}); d.Decision != "allow" || !d.Cached {
		t.Fatalf("control: the granted command again: %+v, want allow cached", d)
	}
	status, body = s.Request("POST", "/v1/turns/bw2/decisions", map[string]any{"tool_call_id": "rm-3", "tool_name": "exec_command",
		"arguments": map[string]any{"cmd": "rm -rf *", "workdir": "lnk/.."}})
	if status == http.StatusOK {
		var d decisionAnswer
		json.Unmarshal(body, &d)
		if d.Decision == "allow" {
			t.Errorf("rm -rf * with workdir lnk/.. (the kernel runs it in %s/sub): allow %s cached=%v, from the grant for the workspace; want the 400 (or an ask)", root, d.Reason, d.Cached)
		}
	}

	// And in full_access, where the data directory and token files are the
	// one thing denied to every turn's decisions (README, "Start here"): a
	// patch that rewrites the server's admin token is allowed the same way.
	s.startTurn("bw3", "ws", "full_access", root)
	token := filepath.Join(s.Data, "token")
	tok := map[string]any{"patch": "*** Begin Patch\n*** Update File: " + token + "\n@@\n-x\n+y\n*** End Patch\n"}
	if d := s.decide("bw3", "tok-1", "apply_patch", tok); d.Decision != "deny" {
		t.Fatalf("control: full_access apply_patch of the admin token %s: %+v, want deny", token, d)
	}
	tok2 := map[string]any{"patch": "*** Begin Patch\n*** Add File: lnk/../x.txt\n+x\n*** Update File: " + token + "\n@@\n-x\n+y\n*** End Patch\n"}
	status, body = s.Request("POST", "/v1/turns/bw3/decisions", map[string]any{"tool_call_id": "tok-2", "tool_name": "apply_patch", "arguments": tok2})
	if status == http.StatusOK {
		var d decisionAnswer
		json.Unmarshal(body, &d)
		if d.Decision == "allow" {
			t.Errorf("full_access apply_patch of lnk/../x.txt and the server's admin token %s: allow %s; want deny (sensitive_path)", token, d.Reason)
		}
	}
}

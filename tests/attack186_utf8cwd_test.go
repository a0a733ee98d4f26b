package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// utf8CwdWorkspace makes a workspace with two directories whose names
// differ only in a byte that is not UTF-8 ("\xff" and "\xfe"), links da and
// db to them, and a turn in auto_accept_edits (commands ask) started by a
// runtime credential; it returns the runtime's and an approver's clients,
// the workspace and the two directories.
func utf8CwdWorkspace(t *testing.T, turnID string) (runtime, approver *Server, root, a, b string) {
	t.Helper()
	s := StartServer(t, "")
	root = workspace(t)
	a, b = filepath.Join(root, "\xff"), filepath.Join(root, "\xfe")
	for dir, link := range map[string]string{a: "da", b: "db"} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Base(dir), filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	runtime = roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	approver = roAs(s, roCreate(t, s, "alice", "approver", "ws"))
	runtime.startTurn(turnID, "ws", "auto_accept_edits", root)
	return runtime, approver, root, a, b
}

// TestAttack186InvalidUTF8CwdApproval: an approval binds the working
// directory of the command (README: "the same tool_call_id with other
// content (argv, cwd, …) is a 409 tool_call_reused"). The working
// directory is resolved through its links to a path on disk, which may hold
// bytes that are not UTF-8; the scope's JSON, and the request the person
// sees, write each such byte as U+FFFD, so two directories whose names
// differ only there have one scope. Attack: the person approves (once)
// `touch ran-here` in da (the directory "\xff", shown as "…/\ufffd"); the
// agent sends the same tool call id with cwd db (the directory "\xfe"): it
// must be a 409, nothing run. Controls: the same resend naming another
// directory of UTF-8 name (src) is a 409; the identical resend runs, in da.
func TestAttack186InvalidUTF8CwdApproval(t *testing.T) {
	t.Parallel()
	runtime, approver, _, a, b := utf8CwdWorkspace(t, "u8once")
	call := func(cwd string) map[string]any {
		return map[string]any{"tool_call_id": "c1", "argv": []string{"touch", "ran-here"}, "cwd": cwd, "timeout_ms": 20000}
	}
	st, first := runtime.exec("u8once", "", call("da"))
	if st != http.StatusAccepted || first.Request == nil {
		t.Fatalf("first: %d %+v", st, first)
	}
	approver.respond(first.Request.RequestID, "allow_once")

	// Control: another directory (UTF-8 name) under the approved id.
	st, raw := runtime.Request("POST", "/v1/turns/u8once/exec", call("src"))
	wantError(t, st, raw, http.StatusConflict, "tool_call_reused")

	// The attack: the other directory whose name differs in a non-UTF-8 byte.
	st, raw = runtime.Request("POST", "/v1/turns/u8once/exec", call("db"))
	if exists(filepath.Join(b, "ran-here")) {
		t.Errorf("the command approved for %q ran in %q under the same tool call id (%d %s)", a, b, st, raw)
	} else if st != http.StatusConflict {
		t.Errorf("resend with cwd db: %d %s, want 409 tool_call_reused", st, raw)
	}

	// Control: the identical resend runs where it was approved (unless the
	// attack above already consumed the approval).
	if !exists(filepath.Join(b, "ran-here")) {
		st, run := runtime.exec("u8once", "", call("da"))
		if st != http.StatusOK || !run.Ran || !exists(filepath.Join(a, "ran-here")) {
			t.Fatalf("control: the identical resend: %d %+v", st, run)
		}
	}
}

// TestAttack186InvalidUTF8CwdGrant: allow_for_turn allows "every later
// call of the same tool whose scope is identical; any difference asks
// again". Attack: the person allows `touch ran-here` in da ("\xff") for the
// turn; the same command in db ("\xfe") must ask again, yet it is the same
// scope hash and runs from the grant (cached_approval). Controls: the same
// command in da again is allowed from the grant; in src it asks.
func TestAttack186InvalidUTF8CwdGrant(t *testing.T) {
	t.Parallel()
	runtime, approver, _, a, b := utf8CwdWorkspace(t, "u8turn")
	call := func(id, cwd string) map[string]any {
		return map[string]any{"tool_call_id": id, "argv": []string{"touch", "ran-here"}, "cwd": cwd, "timeout_ms": 20000}
	}
	st, first := runtime.exec("u8turn", "", call("g1", "da"))
	if st != http.StatusAccepted || first.Request == nil {
		t.Fatalf("first: %d %+v", st, first)
	}
	approver.respond(first.Request.RequestID, "allow_for_turn")
	if st, run := runtime.exec("u8turn", "", call("g1", "da")); st != http.StatusOK || !run.Ran {
		t.Fatalf("approved call: %d %+v", st, run)
	}
	if err := os.Remove(filepath.Join(a, "ran-here")); err != nil {
		t.Fatal(err)
	}

	// Control: another directory of UTF-8 name asks.
	if st, other := runtime.exec("u8turn", "", call("g2", "src")); st != http.StatusAccepted || other.Decision != "ask" {
		t.Fatalf("control: the command in src: %d %+v, want it to ask", st, other)
	}
	// Control: the granted scope again is a cached approval.
	if st, again := runtime.exec("u8turn", "", call("g3", "da")); st != http.StatusOK || !again.Ran || !again.Cached || !exists(filepath.Join(a, "ran-here")) {
		t.Fatalf("control: the granted scope again: %d %+v", st, again)
	}

	// The attack.
	st, evil := runtime.exec("u8turn", "", call("g4", "db"))
	if exists(filepath.Join(b, "ran-here")) || evil.Ran {
		t.Errorf("the grant for %q ran the command in %q without asking: %d decision %s reason %s cached %v scope %s (first %s)",
			a, b, st, evil.Decision, evil.Reason, evil.Cached, evil.ScopeHash, first.ScopeHash)
	} else if evil.Decision != "ask" {
		t.Errorf("the command in db: %d %+v, want it to ask", st, evil)
	}
}

// TestAttack186InvalidUTF8WorkdirDecision: the same on the decision path,
// where the runtime runs the command itself (Codex's exec_command with a
// workdir): the person allows `git clean -fdx` in workdir da (the
// directory "\xff") for the turn; the same command with workdir db (the
// directory "\xfe") must ask again, yet it is allowed from the grant.
// Controls: workdir da again is a cached approval; workdir src asks.
func TestAttack186InvalidUTF8WorkdirDecision(t *testing.T) {
	t.Parallel()
	runtime, approver, _, a, b := utf8CwdWorkspace(t, "u8dec")
	args := func(workdir string) map[string]any {
		return map[string]any{"cmd": []string{"git", "clean", "-fdx"}, "workdir": workdir}
	}
	first := runtime.decide("u8dec", "d1", "exec_command", args("da"))
	if first.Decision != "ask" || first.Request == nil {
		t.Fatalf("first: %+v", first)
	}
	approver.respond(first.Request.RequestID, "allow_for_turn")

	if other := runtime.decide("u8dec", "d2", "exec_command", args("src")); other.Decision != "ask" {
		t.Fatalf("control: workdir src: %+v, want ask", other)
	}
	if again := runtime.decide("u8dec", "d3", "exec_command", args("da")); again.Decision != "allow" || !again.Cached {
		t.Fatalf("control: workdir da again: %+v, want a cached approval", again)
	}
	if evil := runtime.decide("u8dec", "d4", "exec_command", args("db")); evil.Decision != "ask" {
		t.Errorf("the grant for workdir %q allowed the command in %q: decision %s reason %s cached %v scope %s (granted %s)",
			a, b, evil.Decision, evil.Reason, evil.Cached, evil.ScopeHash, first.ScopeHash)
	}
}

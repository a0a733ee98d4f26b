package tests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// changePermissions posts a mid-turn change and returns the status and body.
func (s *Server) changePermissions(turnID string, profile map[string]any) (int, []byte) {
	return s.Do("POST", "/v1/turns/"+turnID+"/permissions", map[string]any{"permission_profile": profile})
}

// execInBackgroundQuery is execInBackground with a query (e.g. ?wait=30s).
func execInBackgroundQuery(s *Server, turnID, query string, body map[string]any) <-chan decisionAnswer {
	ch := make(chan decisionAnswer, 1)
	go func() {
		var d decisionAnswer
		if status, raw := s.Do("POST", "/v1/turns/"+turnID+"/exec"+query, body); status == http.StatusOK {
			_ = json.Unmarshal(raw, &d)
		} else {
			d.Message = fmt.Sprintf("HTTP %d: %s", status, raw)
		}
		ch <- d
	}()
	return ch
}

func pendingApprovals(s *Server, turnID string) int {
	var t turnAnswer
	s.JSON("GET", "/v1/turns/"+turnID, nil, http.StatusOK, &t)
	return t.Turn.PendingApprovals
}

// TestMidTurnWidenUnblocksWaitingExec: a supervised turn whose exec waits
// (?wait=120s) on its approval request is raised to full_access; the change
// resolves the request allow_once (by the principal who changed it, reason
// permissions_changed) in the same append, so the waiting exec returns and
// runs; re-sending the call answers allow.
func TestMidTurnWidenUnblocksWaitingExec(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("widen", "ws", "supervised", root)
	out := filepath.Join(root, "ran")
	body := map[string]any{"tool_call_id": "run", "argv": []string{"sh", "-c", "echo ran > " + out}}
	// The longest wait there is: returned before the select gives up,
	// the exec was unblocked by the change, not by its timer.
	answer := execInBackgroundQuery(s, "widen", "?wait=120s", body)
	pollUntil(t, "the exec to open its approval request", func() bool { return pendingApprovals(s, "widen") == 1 })
	if exists(out) {
		t.Fatal("the command ran before it was approved")
	}
	status, raw := s.changePermissions("widen", map[string]any{"mode": "full_access"})
	if status != http.StatusOK {
		t.Fatalf("raise to full_access: %d %s", status, raw)
	}
	var changed turnAnswer
	json.Unmarshal(raw, &changed)
	if changed.Turn.Profile.Mode != "full_access" || changed.Turn.PendingApprovals != 0 {
		t.Fatalf("the change's answer: %+v", changed.Turn)
	}
	var d decisionAnswer
	select {
	case d = <-answer:
	case <-time.After(60 * time.Second):
		t.Fatal("the waiting exec did not return after the widening change (it waits for its 120 s timer)")
	}
	if !d.Ran || d.Result == nil || d.Result.ExitCode != 0 || !exists(out) {
		t.Fatalf("the waiting exec after widening: %+v", d)
	}
	var req struct {
		Resolution string `json:"resolution"`
		ResolvedBy struct {
			Name string `json:"name"`
		} `json:"resolved_by"`
	}
	s.JSON("GET", "/v1/approvals/"+d.Request.RequestID, nil, http.StatusOK, &req)
	if req.Resolution != "allow_once" || req.ResolvedBy.Name == "" || req.ResolvedBy.Name == "system" {
		t.Fatalf("the request after widening: %+v, want allow_once by the changer", req)
	}
	// The same exec again never runs twice; its decision is allow.
	status, again := s.exec("widen", "", body)
	if status != http.StatusConflict || again.Decision != "allow" || again.Ran {
		t.Fatalf("re-sent exec: %d %+v, want allow", status, again)
	}
	_, evs := s.Request("GET", "/v1/turns/widen/events", nil)
	if !strings.Contains(string(evs), `"reason":"permissions_changed"`) {
		t.Fatalf("the resolution does not name the permission change: %s", evs)
	}
}

// TestMidTurnWidenResolvesOnlyWhatItAllows: raising supervised to
// auto_accept_edits allows the pending edit (re-sent, it answers allow,
// permissions_changed) and leaves the pending command, which still asks,
// open (the control: the change resolves by the new snapshot, not all).
func TestMidTurnWidenResolvesOnlyWhatItAllows(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("partial", "ws", "supervised", root)
	edit := patch("a.txt")
	if d := s.decide("partial", "edit", "apply_patch", edit); d.Decision != "ask" {
		t.Fatalf("edit under supervised: %+v", d)
	}
	cmd := map[string]any{"cmd": "rm -rf /tmp/x"}
	if d := s.decide("partial", "cmd", "exec_command", cmd); d.Decision != "ask" {
		t.Fatalf("command under supervised: %+v", d)
	}
	if status, raw := s.changePermissions("partial", map[string]any{"mode": "auto_accept_edits"}); status != http.StatusOK {
		t.Fatalf("raise: %d %s", status, raw)
	}
	if d := s.decide("partial", "edit", "apply_patch", edit); d.Decision != "allow" || d.Reason != "permissions_changed" {
		t.Fatalf("re-sent edit after widening: %+v, want allow (permissions_changed)", d)
	}
	if d := s.decide("partial", "cmd", "exec_command", cmd); d.Decision != "ask" {
		t.Fatalf("re-sent command after widening to auto_accept_edits: %+v, want ask", d)
	}
	if n := pendingApprovals(s, "partial"); n != 1 {
		t.Fatalf("pending approvals after the change: %d, want 1 (the command)", n)
	}
}

// TestMidTurnChangeToProfile: a mid-turn change takes a named profile under
// the operator's constraints: one in the list applies (its rules decide at
// once); one outside is refused naming the list, and changes nothing; the
// required deny stays.
func TestMidTurnChangeToProfile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "profiles.toml")
	os.WriteFile(file, []byte(servedProfiles), 0o644)
	cons := filepath.Join(dir, "constraints.toml")
	os.WriteFile(cons, []byte("allowed_profiles = [\"dev\", \":read-only\", \":workspace\"]\nrequired_deny = [\":workspace_roots/docs\"]\n"), 0o644)
	s := StartServer(t, "", "--profiles", file, "--constraints", cons)
	root := profileWorkspace(t)
	if status, body := startProfileTurn(s, "cp", root, map[string]any{"profile": ":read-only"}); status != http.StatusCreated {
		t.Fatalf("start: %d %s", status, body)
	}
	if d := s.decide("cp", "k1", "read_file", map[string]any{"path": "secret/key"}); d.Decision != "allow" {
		t.Fatalf("secret/key under :read-only: %+v", d)
	}
	status, body := s.changePermissions("cp", map[string]any{"profile": "envdeny"})
	if status != http.StatusBadRequest || !strings.Contains(string(body), "dev") || !strings.Contains(string(body), "allowed") {
		t.Fatalf("a profile outside the operator's list: %d %s", status, body)
	}
	if status, body := s.changePermissions("cp", map[string]any{"mode": "full_access", "profile": "dev"}); status != http.StatusBadRequest {
		t.Fatalf("mode and profile: %d %s", status, body)
	}
	if d := s.decide("cp", "k2", "read_file", map[string]any{"path": "secret/key"}); d.Decision != "allow" {
		t.Fatalf("a refused change changed the turn: %+v", d)
	}
	status, body = s.changePermissions("cp", map[string]any{"profile": "dev"})
	if status != http.StatusOK {
		t.Fatalf("change to dev: %d %s", status, body)
	}
	var got struct {
		SecuritySnapshot struct {
			PermissionProfile struct{ Profile string } `json:"permission_profile"`
		} `json:"security_snapshot"`
		Prompt string `json:"permissions_prompt"`
	}
	json.Unmarshal(body, &got)
	if got.SecuritySnapshot.PermissionProfile.Profile != "dev" || !strings.Contains(got.Prompt, "Permission profile: dev") || !strings.Contains(got.Prompt, "changed during this turn") {
		t.Fatalf("snapshot and prompt after the change: %s", body)
	}
	if d := s.decide("cp", "k3", "read_file", map[string]any{"path": "secret/key"}); d.Decision != "deny" {
		t.Fatalf("secret/key after changing to dev (deny): %+v", d)
	}
	if d := s.decide("cp", "g1", "read_file", map[string]any{"path": "docs/guide.md"}); d.Decision != "deny" {
		t.Fatalf("the required deny after the change: %+v", d)
	}
	if d := s.decide("cp", "w1", "apply_patch", patch("web/new.txt")); d.Decision != "allow" {
		t.Fatalf("a write dev allows after the change: %+v", d)
	}
}

// lines counts the lines of a file (0 when it does not exist).
func lines(path string) int {
	b, _ := os.ReadFile(path)
	return strings.Count(string(b), "\n")
}

// runDaemonApproved starts, in an auto_accept_edits turn, an approved
// command that starts a setsid daemon (named by token) and waits; it
// returns when the daemon runs.
func runDaemonApproved(t *testing.T, s *Server, id, root, token string) <-chan decisionAnswer {
	t.Helper()
	s.startTurn(id, "ws", "auto_accept_edits", root)
	body := map[string]any{"tool_call_id": "run", "argv": daemonScript(root, token), "timeout_ms": 120000}
	status, first := s.exec(id, "", body)
	if status != http.StatusAccepted || first.Request == nil {
		t.Fatalf("exec in auto_accept_edits: %d %+v, want 202 ask", status, first)
	}
	s.respond(first.Request.RequestID, "allow_once")
	answer := execInBackground(s, id, body)
	pollUntil(t, "the daemon to run", func() bool {
		return exists(filepath.Join(root, "started")) && len(hostProcessesWith(token)) > 0
	})
	return answer
}

// TestMidTurnNarrowKillsRunningCommand: a narrowing change (auto_accept_edits
// → supervised) kills the running command with every process it started (a
// setsid daemon included); the exec answer and the recorded result say why.
// The control: a widening change (→ full_access) leaves the same kind of
// command running — its daemon keeps ticking after the change — until the
// turn ends.
func TestMidTurnNarrowKillsRunningCommand(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")

	t.Run("narrow", func(t *testing.T) {
		root := workspace(t)
		token := fmt.Sprintf("turnstile-narrow-%d", time.Now().UnixNano())
		answer := runDaemonApproved(t, s, "narrow", root, token)
		status, raw := s.changePermissions("narrow", map[string]any{"mode": "supervised"})
		if status != http.StatusOK {
			t.Fatalf("narrow: %d %s", status, raw)
		}
		var changed struct {
			Turn struct {
				Version int64 `json:"version"`
			} `json:"turn"`
		}
		json.Unmarshal(raw, &changed)
		var d decisionAnswer
		select {
		case d = <-answer:
		case <-time.After(60 * time.Second):
			t.Fatal("the exec did not return after the narrowing change")
		}
		if !d.Ran || !strings.Contains(d.Message, "permissions changed (version") || d.Result == nil || d.Result.ExitCode == 0 {
			t.Fatalf("exec answer after narrowing: %+v %+v", d, d.Result)
		}
		pollUntil(t, "every process of the command to die", func() bool { return len(hostProcessesWith(token)) == 0 })
		_, evs := s.Request("GET", "/v1/turns/narrow/events", nil)
		if !strings.Contains(string(evs), `"stopped":"permissions changed (version`) {
			t.Fatalf("the recorded result does not say why it stopped: %s", evs)
		}
		var tr turnAnswer
		s.JSON("GET", "/v1/turns/narrow", nil, http.StatusOK, &tr)
		if tr.Turn.Status != "in_progress" || tr.Turn.Profile.Mode != "supervised" {
			t.Fatalf("the turn after the narrowing: %+v", tr.Turn)
		}
	})

	t.Run("widen", func(t *testing.T) {
		root := workspace(t)
		token := fmt.Sprintf("turnstile-widen-%d", time.Now().UnixNano())
		answer := runDaemonApproved(t, s, "widen-run", root, token)
		if status, raw := s.changePermissions("widen-run", map[string]any{"mode": "full_access"}); status != http.StatusOK {
			t.Fatalf("widen: %d %s", status, raw)
		}
		ticks := filepath.Join(root, "ticks")
		at := lines(ticks)
		pollUntil(t, "the daemon to keep ticking after the widening", func() bool { return lines(ticks) > at+5 })
		select {
		case d := <-answer:
			t.Fatalf("a widening change stopped the command: %+v", d)
		default:
		}
		if n := len(hostProcessesWith(token)); n == 0 {
			t.Fatal("the daemon died after a widening change")
		}
		s.JSON("POST", "/v1/turns/widen-run/complete", nil, http.StatusOK, nil)
		d := <-answer
		if strings.Contains(d.Message, "permissions changed") || !strings.Contains(d.Message, "turn ended") {
			t.Fatalf("the command after widening and the end: %+v", d)
		}
		pollUntil(t, "every process of the command to die", func() bool { return len(hostProcessesWith(token)) == 0 })
	})
}

// TestMidTurnNarrowOnOtherInstanceKillsCommand: two instances on one
// store; B runs a command, A narrows the turn's permissions; B kills the
// command and its daemon (B learns of the change through its read models).
func TestMidTurnNarrowOnOtherInstanceKillsCommand(t *testing.T) {
	t.Parallel()
	p := miStartPair(t)
	token, answer := daemonOnB(t, p, "xn")
	miCall(t, p.A, "POST", "/v1/turns/xn/permissions", map[string]any{"permission_profile": map[string]any{"mode": "auto_accept_edits"}}, http.StatusOK, nil)
	d := awaitExec(t, answer, "B's exec did not return after A narrowed the turn")
	if !d.Ran || !strings.Contains(d.Message, "permissions changed (version") {
		t.Fatalf("B's exec answer: %+v", d)
	}
	pollUntil(t, "every process of B's command to die", func() bool { return len(hostProcessesWith(token)) == 0 })
}

// TestMidTurnChangeShownAtOnce: the moment a change is acknowledged, the
// turn's read model, its prompt section and the SSE stream show the
// effective permissions and the version they came from; the control is the
// same turn before the change (the start's snapshot, no change named).
func TestMidTurnChangeShownAtOnce(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	st := s.subscribe("turn_id=shown", "")
	defer st.Close()
	s.startTurn("shown", "ws", "supervised", root)
	type view struct {
		Turn struct {
			Version         int64 `json:"version"`
			SnapshotVersion int64 `json:"snapshot_version"`
			Profile         struct {
				Mode string `json:"mode"`
			} `json:"permission_profile"`
		} `json:"turn"`
		Prompt string `json:"permissions_prompt"`
	}
	var before view
	s.JSON("GET", "/v1/turns/shown", nil, http.StatusOK, &before)
	if before.Turn.Profile.Mode != "supervised" || before.Turn.SnapshotVersion != 2 || strings.Contains(before.Prompt, "changed") || !strings.Contains(before.Prompt, "supervised") {
		t.Fatalf("before the change: %+v", before)
	}
	for _, c := range []struct{ mode, wantPrompt string }{{"auto_accept_edits", "auto_accept_edits"}, {"full_access", "full_access"}} {
		var ack view
		s.JSON("POST", "/v1/turns/shown/permissions", map[string]any{"permission_profile": map[string]any{"mode": c.mode}}, http.StatusOK, &ack)
		var got view
		s.JSON("GET", "/v1/turns/shown", nil, http.StatusOK, &got)
		want := fmt.Sprintf("turn version %d", ack.Turn.SnapshotVersion)
		for name, v := range map[string]view{"ack": ack, "read model": got} {
			if v.Turn.Profile.Mode != c.mode || v.Turn.SnapshotVersion != ack.Turn.SnapshotVersion || v.Turn.SnapshotVersion <= 2 ||
				!strings.Contains(v.Prompt, want) || !strings.Contains(v.Prompt, c.wantPrompt) {
				t.Fatalf("%s after the change to %s: %+v (want %q in the prompt)", name, c.mode, v, want)
			}
		}
		for {
			e := st.Next()
			if e.Params["kind"] != "profile_changed" {
				continue
			}
			if e.Params["profile_mode"] != c.mode || e.Params["snapshot_version"] != float64(ack.Turn.SnapshotVersion) {
				t.Fatalf("SSE profile_changed: %v", e.Params)
			}
			break
		}
	}
}

package tests

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ccCase is what a recorded PreToolUse payload must be answered with in a
// supervised project: the decision, the action kind it was classified as,
// and for an ask the summary shown in Claude Code's prompt.
type ccCase struct {
	payload, decision, kind, summary string
}

func ccCases(ws string) []ccCase {
	return []ccCase{
		{"pre_read", "allow", "file_read", ""},
		{"pre_glob", "allow", "file_read", ""},
		{"pre_grep", "allow", "file_read", ""},
		{"pre_ls", "allow", "file_read", ""},
		{"pre_bash", "ask", "shell_command", "Run go test ./..."},
		{"pre_write", "ask", "file_write", "Edit 1 file(s): " + ws + "/src/new.go"},
		{"pre_edit", "ask", "file_write", "Edit 1 file(s): " + ws + "/src/main.go"},
		{"pre_multiedit", "ask", "file_write", "Edit 1 file(s): " + ws + "/src/main.go"},
		{"pre_notebookedit", "ask", "file_write", "Edit 1 file(s): " + ws + "/analysis.ipynb"},
		{"pre_webfetch", "ask", "network", "GET https://go.dev/doc/effective_go"},
		{"pre_websearch", "ask", "network", "Search the web"},
		{"pre_task", "ask", "task_subagent", "Run a sub-agent task (task_create)"},
		{"pre_mcp", "ask", "mcp_write_or_unknown", "Call the MCP tool search_issues on github"},
		{"pre_unknown", "ask", "unknown", "Run the unclassified tool claude_code.SlashCommand"},
		{"pre_todowrite", "allow", "internal", ""},
	}
}

// TestClaudeCodeHookToolMapping runs every recorded PreToolUse payload
// through the built binary as a command hook and over HTTP, and checks the
// exact answer, the exit code, and the action kind recorded.
func TestClaudeCodeHookToolMapping(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	s := ccServer(t, ws, "supervised", nil)
	for _, transport := range []string{"command", "http"} {
		session := "sess-map-" + transport
		turnID := ccTurn(session, 1)
		send := func(p []byte) string {
			if transport == "command" {
				return s.hook(p)
			}
			return s.hookHTTP(p)
		}
		if got := send(ccPayload(t, "user_prompt_submit", session, ws)); got != "{}\n" {
			t.Fatalf("%s UserPromptSubmit answered %q", transport, got)
		}
		for _, c := range ccCases(ws) {
			p := ccPayload(t, c.payload, session, ws)
			var in struct {
				ToolUseID string `json:"tool_use_id"`
			}
			_ = json.Unmarshal(p, &in)
			got := send(p)
			want := preAnswer("allow", "turnstile allowed this call (policy_allows_action)")
			if c.decision == "ask" {
				want = preAnswer("ask", fmt.Sprintf("turnstile: %s (approval request %s)", c.summary, requestIDOf(t, s, turnID, in.ToolUseID)))
			}
			if got != want {
				t.Errorf("%s %s:\n got %s\nwant %s", transport, c.payload, got, want)
			}
			if k := actionKindOf(t, s, turnID, in.ToolUseID); k != c.kind {
				t.Errorf("%s %s: action kind %q, want %q", transport, c.payload, k, c.kind)
			}
		}
		// Outside the workspace: refused by the file check, with the reason
		// the model sees.
		outside := t.TempDir()
		p := ccEdit(t, ccPayload(t, "pre_read", session, ws), map[string]any{"tool_use_id": "toolu_outside",
			"tool_input": map[string]any{"file_path": outside + "/notes.txt"}})
		want := preAnswer("deny", "turnstile denied this Read call (sandbox_denied: outside_allowed_roots). Do not retry it; continue with an allowed alternative or ask the user.")
		if got := send(p); got != want {
			t.Errorf("%s read outside:\n got %s\nwant %s", transport, got, want)
		}
		for _, ev := range []string{"session_start", "stop", "session_end"} {
			if got := send(ccPayload(t, ev, session, ws)); got != "{}\n" {
				t.Errorf("%s %s answered %q", transport, ev, got)
			}
		}
		if st := s.turn(turnID).Turn.Status; st != "completed" {
			t.Errorf("%s: turn %s is %s after Stop", transport, turnID, st)
		}
	}
}

// requestIDOf is the approval request a tool call opened.
func requestIDOf(t *testing.T, s *Server, turnID, toolUseID string) string {
	t.Helper()
	var out struct {
		Approvals []approvalView `json:"approvals"`
	}
	s.JSON("GET", "/v1/approvals?status=all&turn_id="+turnID, nil, http.StatusOK, &out)
	for _, a := range out.Approvals {
		if a.ToolCallID == toolUseID {
			return a.Request.RequestID
		}
	}
	t.Fatalf("no approval request for %s in %s", toolUseID, turnID)
	return ""
}

func actionKindOf(t *testing.T, s *Server, turnID, toolUseID string) string {
	t.Helper()
	for _, r := range s.auditRows(turnID) {
		if r.ToolCallID == toolUseID && (r.Kind == "decision_allowed" || r.Kind == "decision_denied" || r.Kind == "approval_requested") {
			return r.ActionKind
		}
	}
	t.Fatalf("no decision for %s in %s", toolUseID, turnID)
	return ""
}

// TestClaudeCodeHookWholeSession drives a session through the command hook:
// prompt → tools → stop, then a second prompt; each agent turn is a turn,
// an allow_for_turn grant ends with it, and a call asked in Claude Code's
// own prompt that ran is recorded as the hook's allow_once.
func TestClaudeCodeHookWholeSession(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	s := ccServer(t, ws, "supervised", nil)
	const session = "sess-whole"
	t1, t2 := ccTurn(session, 1), ccTurn(session, 2)
	s.hook(ccPayload(t, "session_start", session, ws))
	s.hook(ccPayload(t, "user_prompt_submit", session, ws))
	s.hook(ccPayload(t, "pre_read", session, ws))
	s.hook(ccPayload(t, "post_read", session, ws))
	// Asked in Claude Code's prompt; the person allows it there; it runs.
	bash := ccPayload(t, "pre_bash", session, ws)
	if got := s.hook(bash); !strings.Contains(got, `"permissionDecision":"ask"`) {
		t.Fatalf("Bash: %s", got)
	}
	// A client header naming someone else does not change who resolved it.
	s.hookHTTP(ccPayload(t, "post_bash", session, ws), "X-Turnstile-Actor", "alice")
	// A second Bash, answered allow_for_turn through the API: a third,
	// identical command is then allowed from the grant.
	bash2 := ccEdit(t, bash, map[string]any{"tool_use_id": "toolu_bash2"})
	s.hook(bash2)
	s.respond(requestIDOf(t, s, t1, "toolu_bash2"), "allow_for_turn")
	bash3 := ccEdit(t, bash, map[string]any{"tool_use_id": "toolu_bash3"})
	if got, want := s.hook(bash3), preAnswer("allow", "turnstile allowed this call (cached_approval)"); got != want {
		t.Fatalf("Bash after allow_for_turn:\n got %s\nwant %s", got, want)
	}
	s.hook(ccPayload(t, "stop", session, ws))

	want := []string{
		"turn.started by admin:admin", "permission.profile_selected by admin:admin", "permission.security_snapshot_resolved by admin:admin",
		"permission.decision_allowed by admin:admin", "tool.completed by admin:admin", // Read
		"permission.approval_requested by admin:admin", "permission.approval_resolved by admin:admin", // Bash, allowed at Claude Code's prompt
		"tool.completed by admin:admin",
		"permission.approval_requested by admin:admin", "permission.approval_resolved by admin:admin", // bash2, allow_for_turn
		"permission.decision_allowed by admin:admin", // bash3 from the grant
		"turn.completed by admin:admin",
	}
	if got := s.eventTypes(t1); !slices.Equal(got, want) {
		t.Fatalf("events of %s:\n got %q\nwant %q", t1, got, want)
	}
	var resolvedOnce bool
	for _, r := range s.auditRows(t1) {
		if r.Kind == "approval_resolved" && r.ToolCallID == "toolu_01Bash" {
			resolvedOnce = r.Decision == "allow_once" && r.Actor == (roActor{"admin", "admin"})
		}
	}
	if !resolvedOnce {
		t.Errorf("the Bash allowed at Claude Code's prompt is not an allow_once by the hook: %+v", s.auditRows(t1))
	}
	tl := s.timelineKinds(t1)
	if len(tl) == 0 || tl[0] != "prompt: Prompt" || !slices.Contains(tl, "tool_ran: Ran: Run go test ./...") || tl[len(tl)-1] != "turn_ended: Turn completed" {
		t.Errorf("timeline of %s: %q", t1, tl)
	}

	// The next prompt is the next turn: the grant ended with the first.
	prompt2 := ccEdit(t, ccPayload(t, "user_prompt_submit", session, ws), map[string]any{"prompt": "again"})
	s.hook(prompt2)
	bash4 := ccEdit(t, bash, map[string]any{"tool_use_id": "toolu_bash4"})
	if got, want := s.hook(bash4), preAnswer("ask", fmt.Sprintf("turnstile: Run go test ./... (approval request %s)", requestIDOf(t, s, t2, "toolu_bash4"))); got != want {
		t.Fatalf("the same Bash in the next turn:\n got %s\nwant %s", got, want)
	}
	if st := s.turn(t1).Turn.Status; st != "completed" {
		t.Errorf("turn 1 is %s", st)
	}
	// SessionEnd completes the open turn and cancels what it still asks.
	s.hook(ccPayload(t, "session_end", session, ws))
	if tr := s.turn(t2).Turn; tr.Status != "completed" || tr.PendingApprovals != 0 {
		t.Errorf("turn 2 after SessionEnd: %+v", tr)
	}
	if last := s.eventTypes(t2); last[len(last)-2] != "permission.approval_resolved by admin:admin" {
		t.Errorf("turn 2's open request was not cancelled at SessionEnd: %q", last)
	}
}

// TestClaudeCodeHookMidSession: a PreToolUse with no open turn (the hook was
// installed mid-session) starts one, and the session's turns survive a
// restart (the mapping lives in the store).
func TestClaudeCodeHookMidSession(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	s := ccServer(t, ws, "auto_accept_edits", nil)
	const session = "sess-mid"
	want := preAnswer("allow", "turnstile allowed this call (policy_allows_action)")
	if got := s.hook(ccPayload(t, "pre_write", session, ws)); got != want {
		t.Fatalf("Write with no turn:\n got %s\nwant %s", got, want)
	}
	t1 := ccTurn(session, 1)
	if tr := s.turn(t1).Turn; tr.Status != "in_progress" || tr.Profile.Mode != "auto_accept_edits" {
		t.Fatalf("turn started by PreToolUse: %+v", tr)
	}
	s.Restart()
	s.hook(ccPayload(t, "pre_edit", session, ws))
	if _, raw := s.Request("GET", "/v1/turns/"+ccTurn(session, 2), nil); !strings.Contains(string(raw), "not_found") {
		t.Fatalf("a restart started a second turn: %s", raw)
	}
	if got := actionKindOf(t, s, t1, "toolu_07Edit"); got != "file_write" {
		t.Fatalf("Edit after restart went elsewhere (%q)", got)
	}
	s.hook(ccPayload(t, "stop", session, ws))
	s.hook(ccPayload(t, "user_prompt_submit", session, ws))
	if st := s.turn(ccTurn(session, 2)).Turn.Status; st != "in_progress" {
		t.Fatalf("turn 2 after restart: %s", st)
	}
	// A prompt while turn 2 is open (no Stop came: the person interrupted
	// it) interrupts it and starts turn 3.
	s.hook(ccPayload(t, "user_prompt_submit", session, ws))
	if st := s.turn(ccTurn(session, 2)).Turn.Status; st != "interrupted" {
		t.Fatalf("turn 2 after a second prompt: %s", st)
	}
	if st := s.turn(ccTurn(session, 3)).Turn.Status; st != "in_progress" {
		t.Fatalf("turn 3: %s", st)
	}
	// The session wanders out of the project: its open turn is still used
	// and ended there, but no turn starts outside.
	outside := t.TempDir()
	if got := s.hook(ccEdit(t, ccPayload(t, "pre_read", session, ws), map[string]any{"cwd": outside, "tool_use_id": "toolu_out"})); !strings.Contains(got, `"allow"`) {
		t.Fatalf("Read in the open turn from outside the project: %s", got)
	}
	s.hook(ccEdit(t, ccPayload(t, "stop", session, ws), map[string]any{"cwd": outside}))
	if st := s.turn(ccTurn(session, 3)).Turn.Status; st != "completed" {
		t.Fatalf("turn 3 after a Stop from outside the project: %s", st)
	}
	_, errOut, code := hookCommand(t, s.URL, s.Token, ccEdit(t, ccPayload(t, "user_prompt_submit", session, ws), map[string]any{"cwd": outside}))
	if code != 2 || !strings.Contains(errOut, "is under no project configured") {
		t.Fatalf("a prompt outside every project: exit %d %s", code, errOut)
	}
	if status, _ := s.Request("GET", "/v1/turns/"+ccTurn(session, 4), nil); status != http.StatusNotFound {
		t.Fatalf("a turn started outside the project (%d)", status)
	}
	// A new session outside every project: its calls are denied, saying why.
	got := s.hook(ccEdit(t, ccPayload(t, "pre_read", "sess-elsewhere", ws), map[string]any{"cwd": outside}))
	if want := preAnswer("deny", fmt.Sprintf("turnstile refused this call: cwd %q: is under no project configured for Claude Code (serve --claude-code-config)", outside)); got != want {
		t.Fatalf("a call outside every project:\n got %s\nwant %s", got, want)
	}
}

// TestClaudeCodeHookUnreachable: the command hook fails closed where it can
// block (exit 2, the reason on stderr) and does not block a Stop (exit 2
// there would keep the agent going).
func TestClaudeCodeHookUnreachable(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	dead := "http://127.0.0.1:1"
	for _, c := range []struct {
		payload string
		code    int
	}{{"pre_bash", 2}, {"pre_read", 2}, {"user_prompt_submit", 2}, {"post_bash", 1}, {"stop", 1}, {"subagent_stop", 1}, {"session_end", 1}} {
		out, errOut, code := hookCommand(t, dead, "a-token-that-does-not-matter", ccPayload(t, c.payload, "sess-dead", ws))
		if code != c.code || out != "" || !strings.Contains(errOut, "turnstile server at "+dead+" cannot be reached") {
			t.Errorf("%s with the server down: exit %d, stdout %q, stderr %q; want exit %d", c.payload, code, out, errOut, c.code)
		}
	}
	// A server that accepts and never answers is blocked before Claude
	// Code's own timeout (which would let the tool run).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, never answered
		}
	}()
	cmd := exec.Command(bin, "hook", "claude-code", "--server", "http://"+ln.Addr().String(), "--server-key", testKey, "--deadline", "1s")
	cmd.Env = append(os.Environ(), "TURNSTILE_TOKEN=whatever-token-123")
	cmd.Stdin = strings.NewReader(string(ccPayload(t, "pre_bash", "sess-hang", ws)))
	var hangErr strings.Builder
	cmd.Stderr = &hangErr
	if err := cmd.Run(); err == nil || cmd.ProcessState.ExitCode() != 2 || !strings.Contains(hangErr.String(), "did not answer within 1s") {
		t.Errorf("a server that never answers: %v %q", err, hangErr.String())
	}
	// Control: the same payload against a live server answers (exit 0), and
	// a wrong token's PreToolUse is denied (the server answers it 200 deny,
	// as an http hook needs).
	s := ccServer(t, ws, "supervised", nil)
	if out, errOut, code := hookCommand(t, s.URL, s.Token, ccPayload(t, "pre_read", "sess-live", ws)); code != 0 || !strings.Contains(out, `"allow"`) {
		t.Errorf("live server: exit %d %q %q", code, out, errOut)
	}
	if out, errOut, code := hookCommand(t, s.URL, "wrong-token-wrong-token", ccPayload(t, "pre_read", "sess-live", ws)); code != 0 || !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "bearer token") {
		t.Errorf("wrong token: exit %d %q %q", code, out, errOut)
	}
	// Garbage on stdin is blocked too.
	if _, errOut, code := hookCommand(t, s.URL, s.Token, []byte("not json")); code != 2 || !strings.Contains(errOut, "not JSON") {
		t.Errorf("garbage: exit %d %q", code, errOut)
	}
}

// TestClaudeCodeHookInstall merges the hook entries into a settings.json
// that has other settings and hooks, backs it up, and adds nothing when run
// again; --print writes nothing.
func TestClaudeCodeHookInstall(t *testing.T) {
	t.Parallel()
	proj := t.TempDir()
	settings := filepath.Join(proj, ".claude", "settings.json")
	if out, errOut, code := runCLI(t, "hook", "install", "claude-code", "--project", proj, "--print", "--server", "http://127.0.0.1:8740", "--server-key", testKey); code != 0 ||
		!strings.Contains(out, `"command": "`+bin+` hook claude-code --deadline 55s --server http://127.0.0.1:8740 --server-key `+testKey+`"`) || !strings.Contains(out, `"matcher": "*"`) {
		t.Fatalf("--print: %d %s %s", code, out, errOut)
	}
	if _, err := os.Stat(settings); !os.IsNotExist(err) {
		t.Fatalf("--print wrote %s", settings)
	}
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	before := `{"model": "opus", "permissions": {"allow": ["Bash(go test:*)"]}, "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./lint.sh", "timeout": 5}]}]}}`
	if err := os.WriteFile(settings, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	install := func(extra ...string) string {
		out, errOut, code := runCLI(t, append([]string{"hook", "install", "claude-code", "--project", proj, "--server", "http://127.0.0.1:8740", "--server-key", testKey}, extra...)...)
		if code != 0 {
			t.Fatalf("install: %d %s %s", code, out, errOut)
		}
		return out
	}
	install()
	backups, _ := filepath.Glob(settings + ".bak-*")
	if len(backups) != 1 {
		t.Fatalf("backups: %v", backups)
	}
	if b, _ := os.ReadFile(backups[0]); string(b) != before {
		t.Fatalf("backup holds %s", b)
	}
	var got struct {
		Model       string         `json:"model"`
		Permissions map[string]any `json:"permissions"`
		Hooks       map[string][]struct {
			Matcher string           `json:"matcher"`
			Hooks   []map[string]any `json:"hooks"`
		} `json:"hooks"`
	}
	read := func() {
		raw, err := os.ReadFile(settings)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
	}
	read()
	if got.Model != "opus" || got.Permissions == nil || len(got.Hooks["PreToolUse"]) != 2 || got.Hooks["PreToolUse"][0].Hooks[0]["command"] != "./lint.sh" {
		t.Fatalf("merge lost what was there: %+v", got)
	}
	for _, ev := range []string{"UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SubagentStop", "SessionEnd"} {
		gs := got.Hooks[ev]
		if len(gs) == 0 || gs[len(gs)-1].Hooks[0]["type"] != "command" || !strings.HasSuffix(gs[len(gs)-1].Hooks[0]["command"].(string), "hook claude-code --deadline 55s --server http://127.0.0.1:8740 --server-key "+testKey) {
			t.Errorf("%s: %+v", ev, gs)
		}
	}
	if out := install(); !strings.Contains(out, "nothing changed") {
		t.Fatalf("second install: %s", out)
	}
	if b, _ := filepath.Glob(settings + ".bak-*"); len(b) != 1 {
		t.Fatalf("an idempotent install made a backup: %v", b)
	}
	// Switching to the http hook replaces turnstile's entries, not the others.
	install("--http", "http://127.0.0.1:8740")
	read()
	pre := got.Hooks["PreToolUse"]
	if len(pre) != 2 || pre[0].Hooks[0]["command"] != "./lint.sh" || pre[1].Hooks[0]["type"] != "http" || pre[1].Hooks[0]["url"] != "http://127.0.0.1:8740/v1/hooks/claude-code" {
		t.Fatalf("after --http: %+v", pre)
	}
	// --user writes ~/.claude/settings.json, creating it.
	home := t.TempDir()
	cmd := exec.Command(bin, "hook", "install", "claude-code", "--user", "--server-key", testKey)
	cmd.Env = append(os.Environ(), "HOME="+home)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("--user: %v %s", err, out)
	}
	if raw, err := os.ReadFile(filepath.Join(home, ".claude", "settings.json")); err != nil || !strings.Contains(string(raw), "hook claude-code") {
		t.Fatalf("--user wrote %s (%v)", raw, err)
	}
}

// TestClaudeCodeReservedTurnIDs: a client cannot start a turn in the hook's
// id space (it would decide which turn a session's next call lands in).
func TestClaudeCodeReservedTurnIDs(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	s := ccServer(t, ws, "supervised", nil)
	forged := ccTurn("sess-victim", 1)
	status, body := s.Request("POST", "/v1/turns", map[string]any{"turn_id": forged, "workspace_id": "ws", "thread_id": "th", "workspace_root": ws,
		"permission_profile": map[string]any{"mode": "full_access"}})
	wantError(t, status, body, http.StatusBadRequest, "invalid_field")
	s.callError("turn/start", map[string]any{"turn_id": forged, "workspace_id": "ws", "thread_id": "th"}, -32602)
	// Control: the same request with an ordinary id starts a turn (in
	// the project's workspace: another's is refused over its root).
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "ordinary-1", "workspace_id": "ws-cc", "thread_id": "th", "workspace_root": ws,
		"permission_profile": map[string]any{"mode": "full_access"}}, http.StatusCreated, nil)
	// The victim's session still gets its own supervised turn.
	if got := s.hook(ccPayload(t, "pre_bash", "sess-victim", ws)); !strings.Contains(got, `"ask"`) {
		t.Fatalf("victim's Bash: %s", got)
	}
}

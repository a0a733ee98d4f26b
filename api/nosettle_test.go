package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"turnstile/api"
	"turnstile/domain"
	"turnstile/domain/eventcodec"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
)

// call sends a request with a deadline that only stops a hung test (it is
// no timing assertion: a command that waited for the held-back read models
// would wait for ProjectionWait, an hour here) and returns the status,
// headers and body.
func (s *gated) call(method, path string, body any) (int, http.Header, []byte) {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			s.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, s.url+path, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v (did the command wait for the read models?)", method, path, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, out
}

// positionIn reads a command answer's position (the JSON-RPC result's when
// the answer is one).
func positionIn(t *testing.T, what string, b []byte) eventstore.Position {
	t.Helper()
	var v struct {
		Position string `json:"position"`
		Result   struct {
			Position string `json:"position"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v: %s", what, err, b)
	}
	if v.Position == "" {
		v.Position = v.Result.Position
	}
	p, err := eventstore.ParsePosition(v.Position)
	if err != nil {
		t.Fatalf("%s: no position in the answer: %s", what, b)
	}
	return p
}

// TestCommandsAnswerWithoutTheReadModels: with the read models held back
// at the start of the log (they apply nothing) and ProjectionWait an hour,
// every command — start, decide, respond, change the profile, end, the
// JSON-RPC methods and the Claude Code hook — answers with the position of
// its last event, each later than the one before. A read without ?after=
// may not see them (the read models hold nothing: the control that the
// hold works); the same read with ?after= waits, and once the read models
// are let through, sees the turn as the commands left it.
func TestCommandsAnswerWithoutTheReadModels(t *testing.T) {
	ws := t.TempDir()
	s := startGatedWith(t, func(c *api.Config) {
		c.ProjectionWait, c.AfterWait = time.Hour, time.Minute
		c.ClaudeCode = &domain.ClaudeCodeConfig{Projects: []domain.ClaudeCodeProject{{Root: ws, WorkspaceID: "w", Mode: domain.ModeFullAccess}}}
		if err := c.ClaudeCode.Validate(); err != nil {
			t.Fatal(err)
		}
	})
	var last eventstore.Position
	later := func(what string, st, want int, b []byte) eventstore.Position {
		t.Helper()
		if st != want {
			t.Fatalf("%s: %d %s", what, st, b)
		}
		p := positionIn(t, what, b)
		if !last.Less(p) {
			t.Fatalf("%s: position %s, not after the previous command's %s", what, p, last)
		}
		if got := s.proj.Position(); got != eventstore.Start {
			t.Fatalf("%s: the read models applied up to %s: they were not held back", what, got)
		}
		last = p
		return p
	}
	st, _, b := s.call("POST", "/v1/turns", map[string]any{"turn_id": "t", "workspace_id": "ws", "workspace_root": s.root,
		"permission_profile": map[string]string{"mode": "supervised"}})
	later("start", st, http.StatusCreated, b)
	if st, _, b := s.call("GET", "/v1/turns/t", nil); st != http.StatusNotFound {
		t.Fatalf("a read without after= saw a turn the read models do not hold yet: %d %s", st, b)
	}
	st, _, b = s.call("POST", "/v1/turns/t/decisions", map[string]any{"tool_call_id": "c1", "tool_name": "exec_command", "arguments": map[string]any{"cmd": "make"}})
	later("decide", st, http.StatusOK, b)
	var d api.DecisionResponse
	if err := json.Unmarshal(b, &d); err != nil || d.Decision != "ask" || d.Request == nil {
		t.Fatalf("decide: want ask with a request: %s", b)
	}
	reqID := d.Request.RequestID
	// The respond finds the turn through the engine, not the read model.
	st, _, b = s.call("POST", "/v1/approvals/"+reqID+"/respond", map[string]any{"resolution": "allow_once"})
	resolved := later("respond", st, http.StatusOK, b)
	st, _, b = s.call("POST", "/v1/turns/t/permissions", map[string]any{"permission_profile": map[string]string{"mode": "auto_accept_edits"}})
	later("change permissions", st, http.StatusOK, b)
	st, _, b = s.call("POST", "/rpc", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "turn/start", "params": map[string]any{"turn_id": "r", "workspace_id": "ws", "workspace_root": s.root}})
	later("rpc turn/start", st, http.StatusOK, b)
	st, _, b = s.call("POST", "/rpc", map[string]any{"jsonrpc": "2.0", "id": 2, "method": "turn/cancel", "params": map[string]any{"turn_id": "r"}})
	later("rpc turn/cancel", st, http.StatusOK, b)
	st, h, b := s.call("POST", "/v1/hooks/claude-code", map[string]any{"session_id": "sess", "cwd": ws, "hook_event_name": "PreToolUse",
		"tool_name": "Read", "tool_input": map[string]any{"file_path": ws + "/f"}, "tool_use_id": "toolu_1"})
	if st != http.StatusOK || !strings.Contains(string(b), `"permissionDecision":"allow"`) {
		t.Fatalf("hook: %d %s", st, b)
	}
	later("hook", st, http.StatusOK, []byte(`{"position":"`+h.Get(api.PositionHeader)+`"}`))
	st, _, b = s.call("POST", "/v1/turns/t/complete", nil)
	done := later("complete", st, http.StatusOK, b)

	// Read-your-writes: each read waits for its position, then sees it.
	type read struct {
		path, want string
	}
	got := make(chan string, 2)
	for _, r := range []read{
		{"/v1/turns/t?after=" + done.String(), `"status":"completed"`},
		{"/v1/approvals/" + reqID + "?after=" + resolved.String(), `"resolution":"allow_once"`},
	} {
		go func() {
			st, _, b := s.call("GET", r.path, nil)
			if st != http.StatusOK || !strings.Contains(string(b), r.want) {
				t.Errorf("GET %s: %d %s (want %s)", r.path, st, b, r.want)
			}
			got <- r.path
		}()
	}
	// The reads wait while the read models are held back (a 504 after
	// AfterWait otherwise, which the read above reports).
	s.g.open(last)
	<-got
	<-got
}

// TestHeldHookWaitsForItsRequest: a hook held on an approval request (ask =
// hold) is the one command answer that waits for the read models — it
// watches the request there — and it does so within its hold: the request
// resolved while the read models are held back is seen once they are let
// through, and the hook answers allow. The control: a held hook whose
// request nobody answers, with the read models still held back, answers
// "no answer" within its hold rather than failing.
func TestHeldHookWaitsForItsRequest(t *testing.T) {
	ws := t.TempDir()
	s := startGatedWith(t, func(c *api.Config) {
		c.ClaudeCode = &domain.ClaudeCodeConfig{Ask: domain.ClaudeCodeAskHold, HoldWait: 5 * time.Minute,
			Projects: []domain.ClaudeCodeProject{{Root: ws, WorkspaceID: "w", Mode: domain.ModeSupervised}}}
		if err := c.ClaudeCode.Validate(); err != nil {
			t.Fatal(err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sub, err := s.store.Subscribe(ctx, eventstore.Start, "turn-")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	answer := make(chan string, 1)
	go func() {
		st, h, b := s.call("POST", "/v1/hooks/claude-code", map[string]any{"session_id": "sess", "cwd": ws, "hook_event_name": "PreToolUse",
			"tool_name": "Bash", "tool_input": map[string]any{"command": "make"}, "tool_use_id": "toolu_1"})
		if h.Get(api.PositionHeader) == "" {
			t.Errorf("the held hook's answer has no %s header", api.PositionHeader)
		}
		answer <- strconv.Itoa(st) + " " + string(b)
	}()
	// The request, as the store has it (an observed event, not a guess at
	// when the hook got there).
	var reqID, turnID string
	for reqID == "" {
		m, err := sub.Recv(ctx)
		if err != nil {
			t.Fatalf("waiting for the hook's approval request: %v", err)
		}
		if m.Event == nil {
			continue
		}
		e, err := eventcodec.DecodeUnhashed(m.Event)
		if err != nil {
			t.Fatal(err)
		}
		if q, ok := e.Payload.(*turn.ApprovalRequested); ok {
			reqID, turnID = q.Request.RequestID, e.TurnID
		}
	}
	st, _, b := s.call("POST", "/v1/approvals/"+reqID+"/respond", map[string]any{"resolution": "allow_once", "turn_id": turnID})
	if st != http.StatusOK {
		t.Fatalf("respond: %d %s", st, b)
	}
	if s.proj.Position() != eventstore.Start {
		t.Fatal("the read models were not held back")
	}
	select {
	case a := <-answer:
		t.Fatalf("the held hook answered before the read models had its request: %s", a)
	default:
	}
	s.g.open(positionIn(t, "respond", b))
	if a := <-answer; !strings.HasPrefix(a, "200 ") || !strings.Contains(a, `"permissionDecision":"allow"`) {
		t.Fatalf("held hook, request allowed: %s", a)
	}
}

// TestHeldHookUnansweredWhileReadModelsLag: the control of the above — the
// read models held back past the hold, nobody answering: the hook answers
// deny ("no answer") at the end of its hold, not an error.
func TestHeldHookUnansweredWhileReadModelsLag(t *testing.T) {
	ws := t.TempDir()
	s := startGatedWith(t, func(c *api.Config) {
		c.ClaudeCode = &domain.ClaudeCodeConfig{Ask: domain.ClaudeCodeAskHold, HoldWait: 200 * time.Millisecond,
			Projects: []domain.ClaudeCodeProject{{Root: ws, WorkspaceID: "w", Mode: domain.ModeSupervised}}}
		if err := c.ClaudeCode.Validate(); err != nil {
			t.Fatal(err)
		}
	})
	// The session's turn is started first: a PreToolUse is answered
	// within its hold_wait from its arrival, and the first writes to this
	// store while its read models are held back take longer than that.
	if st, _, b := s.call("POST", "/v1/hooks/claude-code", map[string]any{"session_id": "sess", "cwd": ws, "hook_event_name": "UserPromptSubmit", "prompt": "build it"}); st != http.StatusOK {
		t.Fatalf("UserPromptSubmit: %d %s", st, b)
	}
	st, h, b := s.call("POST", "/v1/hooks/claude-code", map[string]any{"session_id": "sess", "cwd": ws, "hook_event_name": "PreToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "make"}, "tool_use_id": "toolu_1"})
	if st != http.StatusOK || !strings.Contains(string(b), `"permissionDecision":"deny"`) || !strings.Contains(string(b), "no answer") {
		t.Fatalf("held hook, read models behind, nobody answering: %d %s", st, b)
	}
	if h.Get(api.PositionHeader) == "" || s.proj.Position() != eventstore.Start {
		t.Fatalf("position header %q, read models at %s", h.Get(api.PositionHeader), s.proj.Position())
	}
}

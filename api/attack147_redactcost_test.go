package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"turnstile/adapters/boltstore"
	"turnstile/api"
	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/projections"
)

// TestAttack147_PreToolUseCostPastHoldWait (review 147, medium): a shell
// command's redaction costs time quadratic in its length when it holds
// many secret-named options or assignments ("--api-key=x " repeated,
// "token=x ", "A_TOKEN=x ", worse with an expansion after each,
// "--api-key=x $T "): domain.redactGated → replaceClipped calls
// programWord/commandStart (and exposedVars, namedAgain) from each match
// back over the text before it, so one Bash command of 130 KB (within
// the argument cap, 131,071 bytes) costs 8 s of the server's CPU here
// ("--api-key=x "), over a minute ("--api-key=x $T "), each time it is
// classified (Scope.shown → redactArgv), and an exec_command of seven
// such argv entries (one 1 MiB body) several minutes. The
// work reads no context: a Claude Code PreToolUse of such a Bash command
// is answered long after "hold_wait and a second of its arrival"
// (README, "Claude Code as a client"), i.e. after Claude Code's hook
// timeout, at which an http hook's call runs unchecked (a command hook's
// is blocked at its --deadline); and one runtime credential, sending its
// 256 requests in flight so, holds every core of the server for hours.
//
// Controls: a short Bash command, and one of the same length whose words
// name no secret, are answered at once.
func TestAttack147_PreToolUseCostPastHoldWait(t *testing.T) {
	ws := t.TempDir()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "events.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	const holdWait = 2 * time.Second
	cfg := &domain.ClaudeCodeConfig{Projects: []domain.ClaudeCodeProject{{Root: ws, WorkspaceID: "w", Mode: domain.ModeFullAccess}}, HoldWait: holdWait}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	proj := projections.New()
	srv := api.New(api.Config{Engine: engine.New(st, engine.Config{}), Projector: proj, Store: st, Token: "hook-test-token-0123456789", ClaudeCode: cfg})
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() { done <- proj.Follow(ctx, st, func() { srv.SetReady(); close(ready) }) }()
	<-ready
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { srv.Drain(); hs.Close(); cancel(); <-done })

	// pre sends one PreToolUse of a Bash command and returns the answer
	// and how long it took.
	pre := func(id, command string) (int, string, time.Duration) {
		b, _ := json.Marshal(map[string]any{"session_id": "s147", "cwd": ws, "hook_event_name": "PreToolUse", "permission_mode": "default",
			"tool_name": "Bash", "tool_input": map[string]any{"command": command}, "tool_use_id": id})
		req, _ := http.NewRequest("POST", hs.URL+"/v1/hooks/claude-code", bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer hook-test-token-0123456789")
		start := time.Now()
		resp, err := (&http.Client{Timeout: 5 * time.Minute}).Do(req)
		if err != nil {
			return 0, err.Error(), time.Since(start)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(out), time.Since(start)
	}
	// A PreToolUse is answered within hold_wait and a second of its
	// arrival; a little more for a loaded test machine.
	bound := holdWait + time.Second + 3*time.Second*raceScale
	const size = 130_000
	for _, c := range []struct{ name, command string }{
		{"control: short", "ls -la"},
		{"control: long, no secret names", "echo " + strings.Repeat("--verbose=x ", size/12)},
		{"secret-named options", "echo " + strings.Repeat("--api-key=x ", size/12)},
		{"secret-named options and expansions", "echo " + strings.Repeat("--api-key=x $T ", size/15)},
	} {
		status, body, took := pre("toolu_"+strings.ReplaceAll(c.name, " ", "_")[:12]+time.Now().Format("150405.000"), c.command)
		if status != http.StatusOK || !strings.Contains(body, `"permissionDecision"`) {
			t.Errorf("%s: %d %.300s", c.name, status, body)
			continue
		}
		if took > bound {
			t.Errorf("%s (%d bytes): answered after %v, past hold_wait and a second (%v): Claude Code's hook timeout runs an http hook's call unchecked first", c.name, len(c.command), took.Round(time.Millisecond), holdWait+time.Second)
		} else {
			t.Logf("%s (%d bytes): answered in %v", c.name, len(c.command), took.Round(time.Millisecond))
		}
		if strings.HasPrefix(c.name, "control") && took > bound {
			t.Fatalf("the control is slow too: the machine, not the command")
		}
	}
}

// TestAttack147_CostlyDecisionHoldsAnotherTurn (review 147, medium, the
// same cause): the classification and its redaction run in the engine's
// load hook (checkResources), under the turn's lock, and a runtime
// credential may decide tool calls in any turn of its workspaces, another
// principal's included. One decision of such a command in a person's turn
// holds that turn for as long as it costs: the person's answer to a
// request of the turn, their decisions, their end of the turn, all wait
// and fail (503 store_unavailable once the command timeout passes; a
// Claude Code hook of that session is answered deny), and the agent sends
// another when it ends.
//
// Controls: the same person's decision in another turn meanwhile is
// answered at once (the machine is not what is slow), and the answer to
// the request is taken at once before the agent's decision.
func TestAttack147_CostlyDecisionHoldsAnotherTurn(t *testing.T) {
	s := startInProcess(t)
	agent := s.credential("agent147", "runtime")
	root := t.TempDir()
	for _, id := range []string{"victim", "other"} {
		if st, b := s.do("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws", "workspace_root": root,
			"permission_profile": map[string]any{"mode": "supervised"}}); st != http.StatusCreated {
			t.Fatalf("start %s: %d %s", id, st, b)
		}
	}
	ask := func(turnID, call string) string {
		t.Helper()
		st, b := s.do("POST", "/v1/turns/"+turnID+"/decisions", map[string]any{"tool_call_id": call, "tool_name": "exec_command", "arguments": map[string]any{"cmd": "ls"}})
		var d struct {
			Request struct {
				RequestID string `json:"request_id"`
			} `json:"request"`
		}
		if st != http.StatusOK || json.Unmarshal(b, &d) != nil || d.Request.RequestID == "" {
			t.Fatalf("ask in %s: %d %s", turnID, st, b)
		}
		return d.Request.RequestID
	}
	respond := func(id string) (int, time.Duration) {
		start := time.Now()
		st, _ := s.do("POST", "/v1/approvals/"+id+"/respond", map[string]any{"resolution": "allow_once"})
		return st, time.Since(start)
	}
	// Control: an answer before the agent's decision is taken at once.
	if st, took := respond(ask("victim", "p-0")); st != http.StatusOK || took > 3*time.Second {
		t.Fatalf("control: the person's answer before: %d in %v", st, took)
	}
	req := ask("victim", "p-1")

	heavy := "echo " + strings.Repeat("--api-key=x $T ", (64<<10)/15)
	done := make(chan time.Duration, 1)
	go func() {
		b, _ := json.Marshal(map[string]any{"tool_call_id": "agent-heavy", "tool_name": "exec_command", "arguments": map[string]any{"cmd": heavy}})
		r, _ := http.NewRequest("POST", s.url+"/v1/turns/victim/decisions", bytes.NewReader(b))
		r.Header.Set("Authorization", "Bearer "+agent)
		start := time.Now()
		if resp, err := http.DefaultClient.Do(r); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		done <- time.Since(start)
	}()
	// (No wait for the agent's decision to take the turn: the answer
	// below is bounded whether it comes during the decision or after.)
	// Control: the person's decision in another turn meanwhile.
	start := time.Now()
	if st, b := s.do("POST", "/v1/turns/other/decisions", map[string]any{"tool_call_id": "o-1", "tool_name": "read_file", "arguments": map[string]any{"path": root}}); st != http.StatusOK {
		t.Fatalf("control: a decision in another turn: %d %s", st, b)
	}
	if took := time.Since(start); took > 3*time.Second*raceScale {
		t.Fatalf("control: a decision in another turn took %v: the machine, not the turn, is slow", took)
	}
	st, took := respond(req)
	heavyTook := <-done
	t.Logf("the agent's decision took %v", heavyTook.Round(time.Millisecond))
	if st != http.StatusOK || took > 3*time.Second*raceScale {
		t.Fatalf("the person's answer to a request of their turn, while the agent's decision of a %d-byte command held it: %d after %v (want 200 at once)", len(heavy), st, took.Round(time.Millisecond))
	}
}

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
	bound := holdWait + time.Second + 3*time.Second
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

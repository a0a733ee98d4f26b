package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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

// TestAttack193_DistinctExpansionsCostPastHoldWait (review 193, medium):
// the plain check (parsePlain) asks, of every plain expansion $NAME,
// whether the text sets NAME (plainCheck.setsIn → setsName), remembered
// by name since the hundred-and-forty-seventh review, so that a text of
// thousands of expansions of ONE name reads the text once. Each DISTINCT
// name still reads the whole text (setsName searches it from its start,
// and past the name's expansion to its end), and since the
// hundred-and-ninety-first review a nested shell's script is judged
// within the texts around it: its check reads its own script per name,
// and each level of sh -c '…' around it once more. A command of n
// distinct expansions costs n readings of the text per level: quadratic.
// One Bash command that hides one secret-named value (so that the plain
// check runs) and expands 16,000 distinct names in a nested script,
//
//	API_TOKEN=x; sh -c 'sh -c "echo $v00000 $v00001 …"'   (130,896 bytes, within the argument cap)
//
// costs about ten seconds of the server's CPU here (the same text not
// nested, four and a half), and a Claude Code PreToolUse of it is
// answered long past hold_wait and a second (README, "Claude Code as a
// client"), when Claude Code's hook timeout has run an http hook's call
// unchecked (as TestAttack147_PreToolUseCostPastHoldWait); each level of
// nesting adds a reading of the text per name.
//
// Controls: the same commands with one name expanded 16,000 times, and
// the distinct names with nothing hidden, are answered at once.
func TestAttack193_DistinctExpansionsCostPastHoldWait(t *testing.T) {
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

	pre := func(id, command string) (int, string, time.Duration) {
		b, _ := json.Marshal(map[string]any{"session_id": "s193", "cwd": ws, "hook_event_name": "PreToolUse", "permission_mode": "default",
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
	// A command of n expansions, "$v00000 $v00001 …" (distinct) or of one
	// name n times, between pre and post, 130,900 bytes long.
	const size = 130_900
	expansions := func(pre, post string, distinct bool) string {
		var b strings.Builder
		b.WriteString(pre)
		for i := 0; b.Len() < size-len(post)-8; i++ {
			if distinct {
				fmt.Fprintf(&b, " $v%05d", i)
			} else {
				b.WriteString(" $v00001")
			}
		}
		return b.String() + post
	}
	const hide = "API_TOKEN=wr1tesHereQ9x7Lm; "
	nestedPre, nestedPost := hide+`sh -c 'sh -c "echo`, `"'`
	bound := holdWait + time.Second + 3*time.Second*raceScale
	for i, c := range []struct{ name, command string }{
		{"control: one name", expansions(hide+"echo", "", false)},
		{"control: one name, nested", expansions(nestedPre, nestedPost, false)},
		{"control: nothing hidden", expansions("echo", "", true)},
		{"distinct names", expansions(hide+"echo", "", true)},
		{"distinct names, nested", expansions(nestedPre, nestedPost, true)},
	} {
		status, body, took := pre(fmt.Sprintf("toolu_193_%d_%s", i, time.Now().Format("150405.000")), c.command)
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

package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack23HookTokenFromClaudeSettingsEnv: the twenty-second review's
// fix makes the command hook take its server from its command line only,
// since the env block of a project's .claude/settings.json (one Bash
// command of the agent's) fills the hook's environment. The credential it
// speaks as still comes from there: TURNSTILE_TOKEN wins over the
// --token-file hook install wrote into the command. An agent that holds
// another credential (the runtime's) sets TURNSTILE_TOKEN in that env
// block, and every later hook event is sent as that principal, not the one
// the person installed: who started the session's turns, who the carried
// narrowings are compared with (by.Name == the hook's), whether the hook
// may answer its own asks (OpApprovalRespond), whose quota is charged.
// Wanted: a --token-file on the command line is the token (the
// environment is read only when none is given). Control: without
// TURNSTILE_TOKEN the pinned file's token is sent.
func TestAttack23HookTokenFromClaudeSettingsEnv(t *testing.T) {
	const pinned = "tsk_pinnedpinnedpin_0123456789abcdef0123456789abcdef"
	const agents = "tsk_agentagentagent_fedcba9876543210fedcba9876543210"
	seen := make(chan string, 2)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h, key := proving(t, ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		seen <- strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		io.WriteString(w, "{}")
	}))
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	file := filepath.Join(t.TempDir(), "hook-token")
	if err := os.WriteFile(file, []byte(pinned+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func() string {
		t.Helper()
		var out, errb bytes.Buffer
		ev := `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_input":{"command":"true"}}`
		if rc := hookClaudeCode([]string{"--server", "http://" + ln.Addr().String(), "--token-file", file, "--server-key", key, "--deadline", "10s"}, strings.NewReader(ev), &out, &errb); rc != 0 {
			t.Fatalf("hook: %d %s", rc, errb.String())
		}
		return <-seen
	}
	t.Setenv("TURNSTILE_TOKEN", "")
	if got := run(); got != pinned {
		t.Fatalf("control: the hook with --token-file sent %q", got)
	}
	t.Setenv("TURNSTILE_TOKEN", agents) // the env block of .claude/settings.json
	if got := run(); got != pinned {
		t.Errorf("the hook installed with --token-file sent the token of TURNSTILE_TOKEN from its environment (%q), not the pinned file's", got)
	}
}

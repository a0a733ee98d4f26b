package tests

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Helpers of the Claude Code hook tests: recorded payloads (written from
// REFERENCE §11) with the session and workspace filled in, the command hook
// as a subprocess, the http hook as a POST, and the derived turn ids.

// ccProject gives the workspace the file the recorded payloads read,
// src/main.go (a read of a missing file is missing_path, REFERENCE §5).
func ccProject(t *testing.T, ws string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(ws, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "src", "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ccServer starts a server whose Claude Code hook has one project over ws.
func ccServer(t *testing.T, ws, mode string, extra map[string]any, flags ...string) *Server {
	t.Helper()
	ccProject(t, ws)
	cfg := map[string]any{"projects": []any{map[string]any{"root": ws, "workspace_id": "ws-cc", "mode": mode}}}
	for k, v := range extra {
		cfg[k] = v
	}
	path := filepath.Join(t.TempDir(), "claude-code.json")
	raw, _ := json.Marshal(cfg)
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return StartServer(t, "", append([]string{"--claude-code-config", path}, flags...)...)
}

// ccPayload is a recorded payload with @SESSION@ and @WORKSPACE@ filled in.
func ccPayload(t testing.TB, name, session, ws string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "claude-code", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	raw = bytes.ReplaceAll(raw, []byte("@SESSION@"), []byte(session))
	return bytes.ReplaceAll(raw, []byte("@WORKSPACE@"), []byte(ws))
}

// ccEdit returns payload with top-level fields replaced (nil deletes).
func ccEdit(t testing.TB, payload []byte, fields map[string]any) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(payload, &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range fields {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	out, _ := json.Marshal(m)
	return out
}

// hookCommand runs `turnstile hook claude-code` with payload on stdin
// against server (a URL), with token in its environment.
func hookCommand(t testing.TB, server, token string, payload []byte) (stdout, stderr string, code int) {
	t.Helper()
	args := []string{"hook", "claude-code", "--server", server}
	if key := keyFor(nil, args); key != "" {
		args = append(args, "--server-key", key) // as hook install writes it
	}
	cmd := exec.Command(bin, args...)
	env := []string{}
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "TURNSTILE_TOKEN=") && !strings.HasPrefix(e, "TURNSTILE_URL=") {
			env = append(env, e)
		}
	}
	cmd.Env = append(env, "TURNSTILE_TOKEN="+token)
	cmd.Stdin = bytes.NewReader(payload)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return o.String(), e.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), 0
}

// hook sends payload through the command hook and checks it exits 0.
func (s *Server) hook(payload []byte) string {
	s.t.Helper()
	out, errOut, code := hookCommand(s.t, s.URL, s.Token, payload)
	if code != 0 {
		s.t.Fatalf("hook exited %d: %s\n%s", code, errOut, out)
	}
	return out
}

// hookHTTP posts payload to the http hook endpoint and checks the status.
func (s *Server) hookHTTP(payload []byte, header ...string) string {
	s.t.Helper()
	status, body := s.Request("POST", "/v1/hooks/claude-code", payload, header...)
	if status != http.StatusOK {
		s.t.Fatalf("http hook: %d %s", status, body)
	}
	return string(body)
}

// ccTurn is the turn id the server derives for turn n of a session.
func ccTurn(session string, n int) string {
	sum := sha256.Sum256([]byte(session))
	return "claude-code:" + hex.EncodeToString(sum[:])[:24] + ":" + strconv.Itoa(n)
}

// ccChild is the child turn id of a Task call.
func ccChild(parent, toolUseID string) string {
	sum := sha256.Sum256([]byte(toolUseID))
	return parent + ":task:" + hex.EncodeToString(sum[:])[:16]
}

// preAnswer is the exact PreToolUse answer.
func preAnswer(decision, reason string) string {
	b, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": "PreToolUse", "permissionDecision": decision, "permissionDecisionReason": reason}})
	return string(b) + "\n"
}

// eventTypes lists a turn's event types with their actors.
func (s *Server) eventTypes(turnID string) []string {
	s.t.Helper()
	status, raw := s.Request("GET", "/v1/turns/"+turnID+"/events", nil)
	if status != http.StatusOK {
		s.t.Fatalf("events of %s: %d %s", turnID, status, raw)
	}
	var out struct {
		Events []struct {
			Type  string  `json:"type"`
			Actor roActor `json:"actor"`
		} `json:"events"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		s.t.Fatal(err)
	}
	var types []string
	for _, e := range out.Events {
		types = append(types, e.Type+" by "+e.Actor.Role+":"+e.Actor.Name)
	}
	return types
}

// auditRow is the part of an audit row the hook tests read.
type auditRow struct {
	Kind       string  `json:"kind"`
	ToolCallID string  `json:"tool_call_id"`
	ToolName   string  `json:"tool_name"`
	ActionKind string  `json:"action_kind"`
	Decision   string  `json:"decision"`
	Reason     string  `json:"reason"`
	Cached     bool    `json:"cached"`
	Actor      roActor `json:"actor"`
}

func (s *Server) auditRows(turnID string) []auditRow {
	s.t.Helper()
	var out struct {
		Rows []auditRow `json:"rows"`
	}
	s.JSON("GET", "/v1/turns/"+turnID+"/audit", nil, http.StatusOK, &out)
	return out.Rows
}

// timelineKinds lists a turn's timeline rows as "kind: title".
func (s *Server) timelineKinds(turnID string) []string {
	s.t.Helper()
	var out struct {
		Rows []struct {
			Kind   string `json:"kind"`
			Title  string `json:"title"`
			Detail string `json:"detail"`
		} `json:"rows"`
	}
	s.JSON("GET", "/v1/turns/"+turnID+"/timeline", nil, http.StatusOK, &out)
	var kinds []string
	for _, r := range out.Rows {
		kinds = append(kinds, r.Kind+": "+r.Title)
	}
	return kinds
}

// writeProfiles writes a profiles file (TOML) in a temporary directory and
// returns its path, for serve --profiles.
func writeProfiles(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// ccProfileServer starts a server with the profiles file text and a Claude
// Code configuration of one project over ws (ccProject) that selects
// profile, with the configuration's other keys from extra.
func ccProfileServer(t *testing.T, ws, text, profile string, extra map[string]any) *Server {
	t.Helper()
	ccProject(t, ws)
	cfg := map[string]any{"projects": []any{map[string]any{"root": ws, "workspace_id": "ws-cc", "profile": profile}}}
	for k, v := range extra {
		cfg[k] = v
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cc := filepath.Join(t.TempDir(), "claude-code.json")
	if err := os.WriteFile(cc, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return StartServer(t, "", "--profiles", writeProfiles(t, text), "--claude-code-config", cc)
}

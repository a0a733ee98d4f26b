package tests

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/websocket"
)

// TestRequestBodiesHeldAreBounded: every request body is read whole into
// memory (a Claude Code PostToolUse may take 16 MiB), and the agent holds a
// credential and may open connections at will, so enough bodies sent at
// once had the server killed for its memory, and an http hook then lets
// every call run. The bodies held at once are bounded (--max-body-memory):
// past it a request is refused, a PreToolUse with a deny. Controls: the
// same PreToolUse is allowed once the body holding the budget is done, and
// the held bytes go back to zero.
func TestRequestBodiesHeldAreBounded(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	ccProject(t, ws)
	cfg := filepath.Join(t.TempDir(), "claude-code.json")
	raw, _ := json.Marshal(map[string]any{"projects": []any{map[string]any{"root": ws, "workspace_id": "ws-cc", "mode": "full_access"}}})
	if err := os.WriteFile(cfg, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--claude-code-config", cfg, "--max-body-memory", "2500000")
	const session = "sess-budget"
	s.hookHTTP(ccPayload(t, "user_prompt_submit", session, ws))
	held := func() int64 {
		_, body := s.Request("GET", "/metrics", nil)
		for _, line := range strings.Split(string(body), "\n") {
			if v, ok := strings.CutPrefix(line, "turnstile_request_body_bytes_held "); ok {
				n, _ := strconv.ParseFloat(v, 64)
				return int64(n)
			}
		}
		return -1
	}
	write := func(id string) []byte {
		return ccEdit(t, ccPayload(t, "pre_write", session, ws), map[string]any{"tool_use_id": id,
			"tool_input": map[string]any{"file_path": filepath.Join(ws, "w.txt"), "content": strings.Repeat("y", 600_000)}})
	}

	// Bodies kept sending, 1,000,000 bytes each, then nothing: one
	// credential holds at most half the budget, so two send them.
	var pws []*io.PipeWriter
	var dones []chan int
	for i, tok := range []string{s.Token, roCreate(t, s, "slow-sender", "runtime")} {
		pr, pw := io.Pipe()
		req, err := http.NewRequest("POST", s.URL+"/v1/hooks/claude-code", pr)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+tok)
		done := make(chan int, 1)
		go func() {
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				done <- -1
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			done <- resp.StatusCode
		}()
		prefix := fmt.Sprintf(`{"session_id":%q,"cwd":%q,"hook_event_name":"PostToolUse","tool_name":"Read","tool_use_id":"toolu_slow%d","tool_input":{"file_path":"a"},"tool_response":"`, session, ws, i)
		if _, err := io.WriteString(pw, prefix+strings.Repeat("x", 1_000_000-len(prefix))); err != nil {
			t.Fatal(err)
		}
		pws, dones = append(pws, pw), append(dones, done)
	}
	pollUntil(t, "the server holding the slow bodies", func() bool { return held() >= 2_000_000 })

	// A third credential, within its share, is past the whole budget.
	status, body := roAs(s, roCreate(t, s, "third", "runtime")).Request("POST", "/v1/hooks/claude-code", write("toolu_busy"))
	if status != http.StatusOK || !strings.Contains(string(body), `"permissionDecision":"deny"`) || !strings.Contains(string(body), "as many request bodies as it may") {
		t.Fatalf("a PreToolUse past the body budget: %d %s", status, body)
	}
	status, body = s.Request("POST", "/v1/turns", map[string]any{"turn_id": "budget-1", "workspace_id": "ws", "thread_id": "th",
		"workspace_root": ws, "permission_profile": map[string]any{"mode": "supervised"}, "pad": strings.Repeat("z", 600_000)})
	wantError(t, status, body, http.StatusServiceUnavailable, "server_busy")

	for i, pw := range pws {
		io.WriteString(pw, `"}`)
		pw.Close()
		<-dones[i]
	}
	pollUntil(t, "the held bytes released", func() bool { return held() == 0 })
	if got := s.hookHTTP(write("toolu_after")); !strings.Contains(got, `"permissionDecision":"allow"`) {
		t.Fatalf("control: the same PreToolUse once the budget is free: %s", got)
	}
}

// TestAttack15WebSocketFramesOutsideBodyBudget: the JSON-RPC WebSocket
// reads each message whole into memory too (up to MaxBodyBytes a frame),
// but its frames were read after the connection was hijacked, past the
// body budget: the agent, holding a runtime credential, could open as many
// sockets as it liked, each holding a frame it never finished, and have the
// server killed for its memory however --max-body-memory was set. A frame
// held counts against the budget until its message is answered. Controls:
// once the sockets close the held bytes go back to zero, and a call over a
// socket and the same PreToolUse are answered.
func TestAttack15WebSocketFramesOutsideBodyBudget(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	ccProject(t, ws)
	cfg := filepath.Join(t.TempDir(), "claude-code.json")
	raw, _ := json.Marshal(map[string]any{"projects": []any{map[string]any{"root": ws, "workspace_id": "ws-cc", "mode": "full_access"}}})
	if err := os.WriteFile(cfg, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--claude-code-config", cfg, "--max-body-memory", "2500000")
	const session = "sess-ws-budget"
	s.hookHTTP(ccPayload(t, "user_prompt_submit", session, ws))
	held := func() int64 {
		_, body := s.Request("GET", "/metrics", nil)
		for _, line := range strings.Split(string(body), "\n") {
			if v, ok := strings.CutPrefix(line, "turnstile_request_body_bytes_held "); ok {
				n, _ := strconv.ParseFloat(v, 64)
				return int64(n)
			}
		}
		return -1
	}
	write := func(id string) []byte {
		return ccEdit(t, ccPayload(t, "pre_write", session, ws), map[string]any{"tool_use_id": id,
			"tool_input": map[string]any{"file_path": filepath.Join(ws, "w.txt"), "content": strings.Repeat("y", 600_000)}})
	}
	// A socket that sends a text frame's header for 1,000,000 bytes and
	// 990,000 of them, then nothing.
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	slowFrame := func(token string) net.Conn {
		c, err := net.Dial("tcp", u.Host)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		fmt.Fprintf(c, "GET /rpc HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer %s\r\n\r\n", u.Host, token)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
			t.Fatalf("the upgrade: %v %v", resp, err)
		}
		hdr := []byte{0x81, 0x80 | 127, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4}
		binary.BigEndian.PutUint64(hdr[2:10], 1_000_000)
		if _, err := c.Write(append(hdr, bytes.Repeat([]byte{'x'}, 990_000)...)); err != nil {
			t.Fatal(err)
		}
		return c
	}
	// Two credentials: one holds at most half the budget.
	a, b := slowFrame(s.Token), slowFrame(roCreate(t, s, "ws-sender", "runtime"))
	pollUntil(t, "the server counting the two frames it holds", func() bool { return held() >= 1_980_000 })
	status, body := s.Request("POST", "/v1/hooks/claude-code", write("toolu_busy"))
	if status != http.StatusOK || !strings.Contains(string(body), `"permissionDecision":"deny"`) || !strings.Contains(string(body), "max-body-memory") {
		t.Fatalf("a PreToolUse past the body budget held by two sockets: %d %s", status, body)
	}

	a.Close()
	b.Close()
	pollUntil(t, "the held bytes released", func() bool { return held() == 0 })
	conn, err := dialRPC(t, s, s.Token, "")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := websocket.JSON.Send(conn, map[string]any{"jsonrpc": "2.0", "id": 7, "method": "turn/start", "params": map[string]any{"turn_id": "ws-budget-1", "thread_id": "th", "workspace_id": "ws-cc",
		"workspace_root": ws, "permission_profile": map[string]any{"mode": "supervised"}, "input": []any{map[string]any{"type": "text", "text": strings.Repeat("z", 600_000)}}}}); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	for m["id"] == nil {
		m = nil
		if err := websocket.JSON.Receive(conn, &m); err != nil {
			t.Fatal(err)
		}
	}
	if m["error"] != nil {
		t.Fatalf("control: a call over a socket: %v", m)
	}
	if got := s.hookHTTP(write("toolu_after")); !strings.Contains(got, `"permissionDecision":"allow"`) {
		t.Fatalf("control: the same PreToolUse once the budget is free: %s", got)
	}
	pollUntil(t, "the held bytes released after the call", func() bool { return held() == 0 })
}

// TestAttack15BodyBudgetTakenByOneCredential: the body budget was one pool
// for every credential, so the agent, holding a runtime credential and
// opening connections at will, kept it full with bodies it never finished,
// and every other credential's request with a body was refused 503 for as
// long as it went on: an approver's answers, an admin's turns, another
// runtime's hooks (denied). One credential holds at most half the budget.
// Controls: the agent's own first slow body is held, and the other
// credential's request is answered while it is.
func TestAttack15BodyBudgetTakenByOneCredential(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	ccProject(t, ws)
	cfg := filepath.Join(t.TempDir(), "claude-code.json")
	raw, _ := json.Marshal(map[string]any{"projects": []any{map[string]any{"root": ws, "workspace_id": "ws-cc", "mode": "full_access"}}})
	if err := os.WriteFile(cfg, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--claude-code-config", cfg, "--max-body-memory", "2500000")
	rt := roAs(s, roCreate(t, s, "agent", "runtime"))
	const session = "sess-budget-share"
	rt.hookHTTP(ccPayload(t, "user_prompt_submit", session, ws))
	held := func() int64 {
		_, body := s.Request("GET", "/metrics", nil)
		for _, line := range strings.Split(string(body), "\n") {
			if v, ok := strings.CutPrefix(line, "turnstile_request_body_bytes_held "); ok {
				n, _ := strconv.ParseFloat(v, 64)
				return int64(n)
			}
		}
		return -1
	}
	// slow sends 1,100,000 bytes of a PostToolUse as the agent and nothing
	// more; its answer's status arrives on the channel.
	slow := func(id string) (*io.PipeWriter, chan int) {
		pr, pw := io.Pipe()
		t.Cleanup(func() { pw.Close() })
		req, err := http.NewRequest("POST", s.URL+"/v1/hooks/claude-code", pr)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+rt.Token)
		done := make(chan int, 1)
		go func() {
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				done <- -1
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			done <- resp.StatusCode
		}()
		prefix := fmt.Sprintf(`{"session_id":%q,"cwd":%q,"hook_event_name":"PostToolUse","tool_name":"Read","tool_use_id":%q,"tool_input":{"file_path":"a"},"tool_response":"`, session, ws, id)
		go io.WriteString(pw, prefix+strings.Repeat("x", 1_100_000-len(prefix)))
		return pw, done
	}
	pwA, doneA := slow("toolu_a")
	pollUntil(t, "the server holding the agent's first slow body", func() bool { return held() >= 1_100_000 })
	_, doneB := slow("toolu_b")
	var answeredB bool
	pollUntil(t, "the agent's second slow body held or refused", func() bool {
		select {
		case <-doneB:
			answeredB = true
			return true
		default:
			return held() >= 2_200_000
		}
	})
	write := ccEdit(t, ccPayload(t, "pre_write", "sess-budget-other", ws), map[string]any{"tool_use_id": "toolu_other",
		"tool_input": map[string]any{"file_path": filepath.Join(ws, "w.txt"), "content": strings.Repeat("y", 600_000)}})
	s.hookHTTP(ccPayload(t, "user_prompt_submit", "sess-budget-other", ws))
	if got := s.hookHTTP(write); !strings.Contains(got, `"permissionDecision":"allow"`) {
		t.Fatalf("another credential's PreToolUse while the agent sends slow bodies (its second answered: %v): %.300s", answeredB, got)
	}
	io.WriteString(pwA, `"}`)
	pwA.Close()
	if st := <-doneA; st != http.StatusOK {
		t.Fatalf("control: the agent's first body, within its share: %d", st)
	}
	pollUntil(t, "the held bytes released", func() bool { return held() == 0 })
}

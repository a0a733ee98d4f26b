package tests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// execRaw posts an exec request and decodes the answer as a map.
func (s *Server) execRaw(turnID string, body map[string]any) (int, map[string]any) {
	s.t.Helper()
	status, raw := s.Request("POST", "/v1/turns/"+turnID+"/exec", body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		s.t.Fatalf("exec answer %s: %v", raw, err)
	}
	return status, out
}

// runApproved sends an exec, approves its request once, and sends it again.
func (s *Server) runApproved(turnID string, body map[string]any) map[string]any {
	s.t.Helper()
	status, first := s.execRaw(turnID, body)
	req, _ := first["request"].(map[string]any)
	if status != http.StatusAccepted || req == nil {
		s.t.Fatalf("exec %v: %d %v, want 202 with a request", body, status, first)
	}
	s.respond(req["request_id"].(string), "allow_once")
	status, out := s.execRaw(turnID, body)
	if status != http.StatusOK || out["ran"] != true {
		s.t.Fatalf("exec %v after approval: %d %v", body, status, out)
	}
	return out
}

// TestExecReportsDroppedEnv runs a command with variables the restricted
// allow-list drops (FOO, a secret-looking name, turnstile's own) and one it
// keeps (LANG): the answer names exactly the dropped ones, and the command
// saw exactly the kept one.
func TestExecReportsDroppedEnv(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	s.startTurn("env", "ws", "supervised", workspace(t))
	out := s.runApproved("env", map[string]any{"tool_call_id": "e1", "argv": []string{"/bin/sh", "-c", `echo "FOO=$FOO LANG=$LANG K=$MY_API_KEY T=$TURNSTILE_X"`},
		"env": map[string]string{"FOO": "bar", "LANG": "C.UTF-8", "MY_API_KEY": "k", "TURNSTILE_X": "y"}})
	res, _ := out["result"].(map[string]any)
	if got := fmt.Sprint(res["stdout"]); got != "FOO= LANG=C.UTF-8 K= T=\n" {
		t.Fatalf("the command saw %q", got)
	}
	if got := fmt.Sprint(out["dropped_env"]); got != "[FOO MY_API_KEY TURNSTILE_X]" {
		t.Fatalf("dropped_env = %s, want [FOO MY_API_KEY TURNSTILE_X]: %v", got, out)
	}
	// Control: nothing dropped, no dropped_env.
	out = s.runApproved("env", map[string]any{"tool_call_id": "e2", "argv": []string{"/bin/sh", "-c", `echo "LANG=$LANG"`},
		"env": map[string]string{"LANG": "C.UTF-8"}})
	if _, ok := out["dropped_env"]; ok {
		t.Fatalf("dropped_env with nothing dropped: %v", out)
	}
}

// TestExecAcceptsCmdLikeDecisions sends exec the command under the
// decision endpoint's name, cmd, as an argv array and as a shell string;
// both run, the same as argv; argv and cmd together are refused, naming cmd.
func TestExecAcceptsCmdLikeDecisions(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	s.startTurn("cmd", "ws", "supervised", workspace(t))
	for i, c := range []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"cmd": []string{"cat", "a.txt"}}, "hello\n"},
		{map[string]any{"cmd": "cat a.txt | tr a-z A-Z"}, "HELLO\n"},
		{map[string]any{"argv": []string{"cat", "a.txt"}}, "hello\n"},
	} {
		c.body["tool_call_id"] = fmt.Sprintf("c%d", i)
		out := s.runApproved("cmd", c.body)
		if res, _ := out["result"].(map[string]any); fmt.Sprint(res["stdout"]) != c.want {
			t.Fatalf("%v: %v", c.body, out)
		}
	}
	status, body := s.Request("POST", "/v1/turns/cmd/exec", map[string]any{"tool_call_id": "both", "argv": []string{"ls"}, "cmd": []string{"ls"}})
	e := wantError(t, status, body, 400, "invalid_field")
	if !strings.Contains(e.Message, "cmd") {
		t.Fatalf("argv and cmd: %s", body)
	}
	status, body = s.Request("POST", "/v1/turns/cmd/exec", map[string]any{"tool_call_id": "num", "cmd": 42})
	wantError(t, status, body, 400, "invalid_field")
}

// TestApprovalRequestSaysWhatForThisTurnCovers checks the request's plain
// words against what a grant does: the same call is allowed again, a call
// differing only in its working directory still asks, as the words say.
func TestApprovalRequestSaysWhatForThisTurnCovers(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("ftt", "ws", "supervised", root)
	status, raw := s.Request("POST", "/v1/turns/ftt/decisions", map[string]any{"tool_call_id": "c1", "tool_name": "exec_command", "arguments": map[string]any{"cmd": "make test"}})
	var d struct {
		Request struct {
			RequestID   string `json:"request_id"`
			ForThisTurn string `json:"for_this_turn"`
		} `json:"request"`
	}
	if status != 200 || json.Unmarshal(raw, &d) != nil {
		t.Fatalf("decide: %d %s", status, raw)
	}
	words := d.Request.ForThisTurn
	for _, want := range []string{"until turn ftt ends", "exec_command", "working directory", "command line", "any other call still asks", "Run make test"} {
		if !strings.Contains(words, want) {
			t.Fatalf("for_this_turn lacks %q: %q", want, words)
		}
	}
	var a struct {
		Request struct {
			ForThisTurn string `json:"for_this_turn"`
		} `json:"request"`
	}
	s.JSON("GET", "/v1/approvals/"+d.Request.RequestID, nil, 200, &a)
	if a.Request.ForThisTurn != words {
		t.Fatalf("the approval view says %q, the decision %q", a.Request.ForThisTurn, words)
	}
	s.respond(d.Request.RequestID, "allow_for_turn")
	if got := s.decide("ftt", "c2", "exec_command", map[string]any{"cmd": "make test"}); got.Decision != "allow" {
		t.Fatalf("the same call after allow_for_turn: %+v", got)
	}
	// Another working directory the turn may read (one it may not is
	// refused at the decision, as the spawn refuses it).
	sub := filepath.Join(root, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := s.decide("ftt", "c3", "exec_command", map[string]any{"cmd": "make test", "workdir": sub}); got.Decision != "ask" {
		t.Fatalf("another working directory after allow_for_turn: %+v", got)
	}
}

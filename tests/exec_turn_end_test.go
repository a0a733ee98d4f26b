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

// hostProcessesWith returns the pids of host processes whose command line
// holds token (a pid written inside a PID namespace means nothing here).
func hostProcessesWith(token string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		raw, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.Contains(string(raw), token) {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// A zombie is dead; only its parent has not reaped it yet.
		if f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])); len(f) > 0 && (f[0] == "Z" || f[0] == "X") {
			continue
		}
		out = append(out, e.Name())
	}
	return out
}

// daemonScript starts a setsid daemon (named by token in its argv) that
// keeps appending to ticks, writes started, and waits.
func daemonScript(root, token string) []string {
	ticks, started := filepath.Join(root, "ticks"), filepath.Join(root, "started")
	return []string{"sh", "-c", fmt.Sprintf(`setsid sh -c 'while :; do echo x >> %s; sleep 0.05; done; : %s' & echo ok > %s; sleep 300`, ticks, token, started)}
}

// execInBackground posts an exec that blocks while its command runs and
// delivers the answer on the returned channel.
func execInBackground(s *Server, turnID string, body map[string]any) <-chan decisionAnswer {
	ch := make(chan decisionAnswer, 1)
	go func() {
		var d decisionAnswer
		if status, raw := s.Do("POST", "/v1/turns/"+turnID+"/exec", body); status == http.StatusOK {
			_ = json.Unmarshal(raw, &d)
		} else {
			d.Message = fmt.Sprintf("HTTP %d: %s", status, raw)
		}
		ch <- d
	}()
	return ch
}

// TestTurnEndKillsRunningCommands: completing, interrupting or failing a
// turn kills the command it is running and every process the command
// started, a setsid daemon included (REFERENCE: access ends with the turn).
// The control: the same daemon outlives nothing while the turn is open — it
// is seen running before the end.
func TestTurnEndKillsRunningCommands(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	for _, c := range []struct{ mode, end string }{
		{"full_access", "complete"}, {"auto_accept_edits", "interrupt"}, {"auto_accept_edits", "fail"},
	} {
		t.Run(c.mode+"/"+c.end, func(t *testing.T) {
			root := workspace(t)
			id := "end-" + c.end + "-" + c.mode
			s.startTurn(id, "ws", c.mode, root)
			token := fmt.Sprintf("turnstile-daemon-%d", time.Now().UnixNano())
			body := map[string]any{"tool_call_id": "run", "argv": daemonScript(root, token), "timeout_ms": 120000}
			if c.mode != "full_access" {
				status, first := s.exec(id, "", body)
				if status != http.StatusAccepted || first.Request == nil {
					t.Fatalf("exec in %s: %d %+v, want 202 ask", c.mode, status, first)
				}
				s.respond(first.Request.RequestID, "allow_once")
			}
			answer := execInBackground(s, id, body)
			pollUntil(t, "the daemon to run", func() bool {
				return exists(filepath.Join(root, "started")) && len(hostProcessesWith(token)) > 0
			})
			if status, raw := s.Do("POST", "/v1/turns/"+id+"/"+c.end, nil); status != http.StatusOK {
				t.Fatalf("%s: %d %s", c.end, status, raw)
			}
			var d decisionAnswer
			select {
			case d = <-answer:
			case <-time.After(60 * time.Second):
				t.Fatal("the exec did not return after the turn ended")
			}
			if !d.Ran || !strings.Contains(d.Message, "turn ended") || d.Result == nil || d.Result.ExitCode == 0 {
				t.Fatalf("exec answer after %s: %+v %+v", c.end, d, d.Result)
			}
			pollUntil(t, "every process of the command to die", func() bool { return len(hostProcessesWith(token)) == 0 })
		})
	}
}

// TestTurnEndOnOtherInstanceKillsCommand: two instances on one store; B runs
// a command for a turn, A completes the turn; B kills the command and its
// daemon (B learns of the end through its read models).
func TestTurnEndOnOtherInstanceKillsCommand(t *testing.T) {
	t.Parallel()
	p := miStartPair(t)
	token, answer := daemonOnB(t, p, "xi")
	miCall(t, p.A, "POST", "/v1/turns/xi/complete", nil, http.StatusOK, nil)
	d := awaitExec(t, answer, "B's exec did not return after A completed the turn")
	if !d.Ran || !strings.Contains(d.Message, "turn ended") {
		t.Fatalf("B's exec answer: %+v", d)
	}
	pollUntil(t, "every process of B's command to die", func() bool { return len(hostProcessesWith(token)) == 0 })
}

// daemonOnB starts a full_access turn through A and, through B, a command
// that starts a setsid daemon; it returns once the daemon runs, with the
// daemon's argv token and the channel that gets B's exec answer.
func daemonOnB(t *testing.T, p *miPair, turnID string) (string, <-chan decisionAnswer) {
	t.Helper()
	root := workspace(t)
	miCall(t, p.A, "POST", "/v1/turns", map[string]any{"turn_id": turnID, "workspace_id": "w", "thread_id": "t", "workspace_root": root,
		"permission_profile": map[string]any{"mode": "full_access"}}, http.StatusCreated, nil)
	token := fmt.Sprintf("turnstile-daemon-%s-%d", turnID, time.Now().UnixNano())
	answer := execInBackground(p.B, turnID, map[string]any{"tool_call_id": "run", "argv": daemonScript(root, token), "timeout_ms": 120000})
	pollUntil(t, "the daemon to run on B", func() bool { return exists(filepath.Join(root, "started")) && len(hostProcessesWith(token)) > 0 })
	return token, answer
}

// awaitExec waits (bounded) for a background exec's answer.
func awaitExec(t *testing.T, answer <-chan decisionAnswer, failure string) decisionAnswer {
	t.Helper()
	select {
	case d := <-answer:
		return d
	case <-time.After(60 * time.Second):
		t.Fatal(failure)
	}
	return decisionAnswer{}
}

// TestServerKilledTakesItsCommandsAlong (issue 9.6): a server killed with
// SIGKILL (an OOM kill, a crash), which cannot end its turns, does not
// leave their sandboxed commands running with no timeout: each helper asked
// the kernel for a SIGKILL when the server's thread that started it ends
// (PR_SET_PDEATHSIG), and the command is the init of its PID namespace, so
// its setsid daemon goes too. The daemon is seen running before the kill.
func TestServerKilledTakesItsCommandsAlong(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("killed", "ws", "auto_accept_edits", root)
	token := fmt.Sprintf("turnstile-server-killed-%d", time.Now().UnixNano())
	body := map[string]any{"tool_call_id": "run", "argv": daemonScript(root, token), "timeout_ms": 120000}
	status, first := s.exec("killed", "", body)
	if status != http.StatusAccepted || first.Request == nil {
		t.Fatalf("exec: %d %+v, want 202 ask", status, first)
	}
	s.respond(first.Request.RequestID, "allow_once")
	execInBackground(s, "killed", body)
	pollUntil(t, "the daemon to run", func() bool {
		return exists(filepath.Join(root, "started")) && len(hostProcessesWith(token)) > 0
	})
	s.Kill()
	pollUntil(t, "every process of the command to die with the server", func() bool { return len(hostProcessesWith(token)) == 0 })
}

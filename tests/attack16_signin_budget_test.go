package tests

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestAttack16SignInBodiesOutsideEveryShare: one credential holds at most
// half of --max-body-memory, and requests no credential authenticates an
// eighth, but the console's sign-in (POST /ui/session, outside auth) read
// its body, up to 1 MiB, against the whole budget and no share. The agent,
// which needs no credential for it, sent sign-in bodies it never finished
// and held the whole budget: every credential's request with a body was
// refused meanwhile (another workspace's PreToolUse denied, an approver's
// answers 503). Controls: an approver signs in while the agent's bodies
// are open, and the other credential's PreToolUse is allowed.
func TestAttack16SignInBodiesOutsideEveryShare(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	ccProject(t, ws)
	cfg := filepath.Join(t.TempDir(), "claude-code.json")
	raw, _ := json.Marshal(map[string]any{"projects": []any{map[string]any{"root": ws, "workspace_id": "ws-cc", "mode": "full_access"}}})
	if err := os.WriteFile(cfg, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--claude-code-config", cfg, "--max-body-memory", "2500000")
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
	// slowSignIn sends 1,000,000 bytes of a sign-in and nothing more, with
	// no credential; its answer's status arrives on the channel.
	slowSignIn := func(i int) chan int {
		pr, pw := io.Pipe()
		t.Cleanup(func() { pw.Close() })
		req, err := http.NewRequest("POST", s.URL+"/ui/session", pr)
		if err != nil {
			t.Fatal(err)
		}
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
		go io.WriteString(pw, `{"token":"`+strings.Repeat("x", 1_000_000-10))
		return done
	}
	var answered []int
	for i := range 2 {
		done := slowSignIn(i)
		want := int64(i+1) * 990_000
		pollUntil(t, fmt.Sprintf("sign-in %d held or answered", i), func() bool {
			select {
			case st := <-done:
				answered = append(answered, st)
				return true
			default:
				return held() >= want
			}
		})
	}
	approver := roCreate(t, s, "person", "approver")
	req, _ := http.NewRequest("POST", s.URL+"/ui/session", strings.NewReader(fmt.Sprintf(`{"token":%q}`, approver)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("control: an approver's sign-in while the agent's sign-in bodies are open: %d", resp.StatusCode)
	}
	const session = "sess-signin-budget"
	s.hookHTTP(ccPayload(t, "user_prompt_submit", session, ws))
	write := ccEdit(t, ccPayload(t, "pre_write", session, ws), map[string]any{"tool_use_id": "toolu_other",
		"tool_input": map[string]any{"file_path": filepath.Join(ws, "w.txt"), "content": strings.Repeat("y", 600_000)}})
	if got := s.hookHTTP(write); !strings.Contains(got, `"permissionDecision":"allow"`) {
		t.Errorf("a credential's PreToolUse while sign-in bodies no credential sent are open (answered: %v): %.300s", answered, got)
	}
}

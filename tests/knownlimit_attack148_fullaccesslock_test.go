//go:build knownlimits

package tests

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// TestAttack148_FullAccessHoldsRootLock (hundred-and-forty-eighth review,
// low: the README's "Another local user can still make a lock file there
// and hold it; the agent cannot" does not hold for a full_access command).
// The roots' lock files live in /dev/shm/turnstile-roots, denied to every
// restricted turn but not to full_access, which sees the host's /dev/shm
// and is root over its files: it opens the lock file of another turn's
// workspace (named by the path's SHA-256, which anyone can compute) and
// flocks it for as long as it runs, and again at its next command, so
// every restricted command over that workspace (the person's turns too)
// waits for it.
//
// Control: the same restricted command runs at once when the full_access
// command holds the lock of another path.
func TestAttack148_FullAccessHoldsRootLock(t *testing.T) {
	s := StartServer(t, "")
	victim, other, faRoot := workspace(t), workspace(t), workspace(t)
	lockOf := func(p string) string {
		sum := sha256.Sum256([]byte(p))
		return "/dev/shm/turnstile-roots/" + hex.EncodeToString(sum[:20])
	}
	t.Cleanup(func() { os.Remove(lockOf(other)) }) // made by the full_access command for the control
	s.startTurn("fa-a148k", "ws", "full_access", faRoot)
	s.startTurn("ae-a148k", "ws", "auto_accept_edits", victim)
	// The lock files exist once a command ran over the roots.
	s.execApproved("ae-a148k", "c0", map[string]any{"cmd": "true", "cwd": victim})
	run := func(call string) (time.Duration, string) {
		body := map[string]any{"tool_call_id": call, "cmd": "echo RAN", "cwd": victim}
		st, first := s.exec("ae-a148k", "", body)
		if st != http.StatusAccepted || first.Request == nil {
			t.Fatalf("exec %s: %d %+v, want 202 ask", call, st, first)
		}
		s.respond(first.Request.RequestID, "allow_once")
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", s.URL+"/v1/turns/ae-a148k/exec", bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+s.Token)
		req.Header.Set("Content-Type", "application/json")
		t0 := time.Now()
		resp, err := (&http.Client{Timeout: 8 * time.Second}).Do(req)
		if err != nil {
			return time.Since(t0), err.Error()
		}
		defer resp.Body.Close()
		var out bytes.Buffer
		out.ReadFrom(resp.Body)
		return time.Since(t0), out.String()
	}
	for _, c := range []struct {
		name, lock string
		blocked    bool
	}{{"control-other-path", lockOf(other), false}, {"victim-workspace", lockOf(victim), true}} {
		hold := execInBackground(s, "fa-a148k", map[string]any{"tool_call_id": "hold-" + c.name, "timeout_ms": 30000,
			"argv": []string{"sh", "-c", ": >> " + c.lock + " && exec flock -x " + c.lock + " sh -c 'echo HELD; sleep 12'"}, "cwd": faRoot})
		time.Sleep(2 * time.Second) // the full_access command takes its lock
		took, got := run("c-" + c.name)
		h := <-hold
		if h.Result == nil || !strings.Contains(h.Result.Stdout, "HELD") {
			t.Fatalf("%s: premise: the full_access command did not hold %s: %+v", c.name, c.lock, h)
		}
		ran := strings.Contains(got, "RAN")
		t.Logf("%s: the restricted command after %s: %.200s", c.name, took.Round(time.Millisecond), got)
		switch {
		case !c.blocked && !ran:
			t.Fatalf("control: the restricted command did not run while another path's lock was held: %s", got)
		case c.blocked && !ran:
			t.Errorf("a full_access command held the lock file of another turn's workspace (%s) and the restricted command over it waited: %s", c.lock, got)
		}
	}
}

package tests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestAttack24ConcurrentExecsExhaustTheServer: nothing bounds how many
// commands one credential (or one turn) runs at once, and each running
// command holds some five of the server's descriptors (its request's
// connection, its stdout, stderr and status pipes, a pidfd), two goroutines,
// and up to 2 MiB of output buffered in the server (sandbox.MaxOutputBytes a
// stream) until it ends. The process bound (RLIMIT_NPROC, a quarter of
// pid_max, 8,192 here) is far above what the descriptor table holds, so an
// agent that posts execs of `sleep` in a loop fills the server's table: at
// its edge a command cannot start (sandbox_failed, "too many open files":
// the agent's own last ones here, any other credential's command that
// comes then alike), the store cannot open a segment, and a connection is
// accepted only as a descriptor frees, until the agent's commands end
// (their timeout, up to the 30 min cap, or the turn's end). Run under a server
// limited to 1,024 descriptors so that the agent needs few; the default
// limit only changes the count (and 4,000 commands holding 2 MiB of output
// each are 8 GB). Wanted: a bound on the commands a credential (and a
// turn) runs at once, well under the server's descriptor limit (past it an
// exec is refused 429 quota_exceeded, or waits for a slot), as the egress
// proxy bounds its connections.
// Control: the agent's first command runs, and another credential's
// command in its own turn runs while the agent holds what it may.
func TestAttack24ConcurrentExecsExhaustTheServer(t *testing.T) {
	wrapper := nofileBin(t, 1024)
	s := StartServerBin(t, wrapper, "")
	agent := roAs(s, s.credential("agent", "runtime"))
	other := roAs(s, s.credential("other", "runtime"))
	root := workspace(t)
	other.startTurn("honest", "ws-other", "full_access", workspace(t))
	// Eighty turns: a turn's commands are decided and recorded one at a
	// time (its lock), so the agent spreads them.
	const turns = 80
	for i := range turns {
		agent.startTurn(fmt.Sprintf("many-%d", i), "ws", "full_access", root)
	}
	// Control: one command runs.
	if st, d := agent.exec("many-0", "", map[string]any{"tool_call_id": "control", "argv": []string{"true"}}); st != http.StatusOK || !d.Ran {
		t.Fatalf("control: a command: %d %+v", st, d)
	}
	const n = 170
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n}}
	var wg sync.WaitGroup
	var mu sync.Mutex
	answers := map[string]int{} // the agent's answers by status and refusal
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A command refused (its turn's lock was busy for the command
			// bound: 503) is posted again, as the agent would.
			for try := range 3 {
				body := fmt.Sprintf(`{"tool_call_id":"hold-%d-%d","argv":["/bin/sh","-c","touch started.%d; exec sleep 600"],"timeout_ms":600000}`, i, try, i)
				req, _ := http.NewRequest("POST", s.URL+fmt.Sprintf("/v1/turns/many-%d/exec", i%turns), strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+agent.Token)
				resp, err := client.Do(req)
				if err != nil {
					return
				}
				var out struct {
					Refusal string         `json:"refusal"`
					Error   map[string]any `json:"error"`
				}
				json.NewDecoder(resp.Body).Decode(&out)
				resp.Body.Close()
				mu.Lock()
				answers[fmt.Sprint(resp.StatusCode, " ", out.Refusal, out.Error["code"])]++
				mu.Unlock()
				if resp.StatusCode != http.StatusServiceUnavailable {
					return
				}
			}
		}()
	}
	t.Cleanup(func() {
		// The turns ended, their commands die and their requests end; the
		// server is killed only then, with no spawn in flight (killed in
		// the middle of spawns it can leave copies of itself that hold its
		// output, and the harness's Kill would wait for them: see
		// TestAttack24KilledServerLeavesItsCopies).
		var ends sync.WaitGroup
		for i := range turns {
			ends.Go(func() { agent.Do("POST", fmt.Sprintf("/v1/turns/many-%d/interrupt", i), map[string]any{}) })
		}
		ends.Wait()
		client.CloseIdleConnections()
		wg.Wait()
	})
	// Wait until the agent's commands stop starting: every one has, or no
	// new one started while 40 more polls of the workspace went by.
	started := settledStarts(root, n)
	// Another credential's command, in its own turn, meanwhile.
	probe := &http.Client{Timeout: 10 * time.Second}
	req, _ := http.NewRequest("POST", s.URL+"/v1/turns/honest/exec", strings.NewReader(`{"tool_call_id":"c1","argv":["true"]}`))
	req.Header.Set("Authorization", "Bearer "+other.Token)
	var d decisionAnswer
	resp, err := probe.Do(req)
	if err == nil {
		json.NewDecoder(resp.Body).Decode(&d)
		resp.Body.Close()
	}
	mu.Lock()
	got := fmt.Sprint(answers)
	mu.Unlock()
	if started > 128 {
		t.Errorf("one runtime credential ran %d commands at once on a server of 1,024 descriptors (its answers meanwhile: %s); want a bound well under the server's limit", started, got)
	}
	if err != nil || resp.StatusCode != http.StatusOK || !d.Ran {
		msg := errOr(err, resp)
		if err == nil {
			msg += " " + d.Refusal + " " + d.Message
		}
		t.Errorf("while the agent ran %d commands, another credential's command in its own turn did not run: %.300s", started, msg)
	}
}

// settledStarts polls root until the agent's commands stop starting: n
// started.* markers (none when n is 0), or none new over 40 polls; it
// returns how many started.
func settledStarts(root string, n int) int {
	started, still := 0, 0
	for (n == 0 || started < n) && still < 40 {
		m, _ := filepath.Glob(filepath.Join(root, "started.*"))
		if len(m) == started {
			still++
		} else {
			started, still = len(m), 0
		}
		time.Sleep(50 * time.Millisecond) // polls the workspace
	}
	return started
}

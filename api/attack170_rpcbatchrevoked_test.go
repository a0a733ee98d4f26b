package api_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestAttack170_RPCBatchOutlivesRevocation (review 170): a revocation is
// "in force on the next request ... and on the connections already open
// with it within a second" (README, Who may do what). A JSON-RPC batch
// sent over POST /rpc is authenticated once, when its body has been read
// (reauthBody), and its calls then run one after the other with no further
// check: the agent, holding the runtime's credential, sends one batch of
// thousands of calls (up to 1 MiB), and when the admin revokes that
// credential the calls go on running, appending turns and ending others
// as the revoked principal, for as long as the batch lasts. A JSON-RPC
// WebSocket stops within the second; an /exec command is killed; the
// batch is not stopped. Control: before the revocation the same calls run
// (the batch's first ones), and a new request after it is refused 401.
// (A machine so fast that the whole batch runs within the second after
// the revocation cannot tell: the test then skips.)
func TestAttack170_RPCBatchOutlivesRevocation(t *testing.T) {
	s := startInProcess(t)
	agent := s.credential("agent170", "runtime")
	root := t.TempDir()

	// The admin follows the event stream, to revoke once the batch runs.
	evReq, _ := http.NewRequest("GET", s.url+"/v1/events?from=now", nil)
	evReq.Header.Set("Authorization", "Bearer "+s.token)
	evResp, err := http.DefaultClient.Do(evReq)
	if err != nil {
		t.Fatal(err)
	}
	defer evResp.Body.Close()
	if evResp.StatusCode != http.StatusOK {
		t.Fatalf("event stream: %d", evResp.StatusCode)
	}
	started := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(evResp.Body)
		sc.Buffer(make([]byte, 1<<20), 8<<20)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "data:") && strings.Contains(sc.Text(), `"rb170-0"`) {
				close(started)
				return
			}
		}
	}()

	const pairs = 1800
	var calls []map[string]any
	for i := range pairs {
		id := fmt.Sprintf("rb170-%d", i)
		calls = append(calls,
			map[string]any{"jsonrpc": "2.0", "id": 2 * i, "method": "turn/start", "params": map[string]any{
				"turn_id": id, "workspace_id": "ws170", "thread_id": "th", "permission_profile": map[string]string{"mode": "supervised"}, "workspace_root": root}},
			map[string]any{"jsonrpc": "2.0", "id": 2*i + 1, "method": "turn/cancel", "params": map[string]any{"turn_id": id}})
	}
	body, _ := json.Marshal(calls)
	if len(body) > 1<<20 {
		t.Fatalf("the batch is %d bytes, past POST /rpc's 1 MiB", len(body))
	}
	type answer struct {
		status int
		body   []byte
		err    error
	}
	done := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest("POST", s.url+"/rpc", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+agent)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		done <- answer{status: resp.StatusCode, body: b, err: err}
	}()

	var revokedAt time.Time
	select {
	case <-started:
	case a := <-done:
		t.Fatalf("the batch was answered before its first turn was seen: %d %v %.300s", a.status, a.err, a.body)
	}
	st, b := s.do("POST", "/v1/credentials/agent170/revoke", nil)
	var rv struct {
		RevokedAt time.Time `json:"revoked_at"`
	}
	if st != http.StatusOK || json.Unmarshal(b, &rv) != nil || rv.RevokedAt.IsZero() {
		t.Fatalf("revoke: %d %s", st, b)
	}
	revokedAt = rv.RevokedAt

	// Control: the revocation is in force for a new request.
	req, _ := http.NewRequest("GET", s.url+"/v1/turns/rb170-0", nil)
	req.Header.Set("Authorization", "Bearer "+agent)
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("control: a new request of the revoked credential: %d, want 401", resp.StatusCode)
		}
	}

	a := <-done
	if a.err != nil || a.status != http.StatusOK {
		t.Fatalf("batch: %d %v %.300s", a.status, a.err, a.body)
	}
	var results []struct {
		Result *struct {
			Turn struct {
				ID        string    `json:"id"`
				StartedAt time.Time `json:"started_at"`
				EndedAt   time.Time `json:"ended_at"`
			} `json:"turn"`
		} `json:"result"`
		Error *struct {
			Data struct {
				Code string `json:"code"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(a.body, &results); err != nil {
		t.Fatalf("batch answer: %v %.300s", err, a.body)
	}
	grace := revokedAt.Add(time.Second) // README: open connections within a second
	var before, after, refused, revokedRefusals int
	var lastAt time.Time
	for _, r := range results {
		if r.Result == nil {
			refused++
			if r.Error != nil && (r.Error.Data.Code == "credential_revoked" || r.Error.Data.Code == "unauthorized") {
				revokedRefusals++
			}
			continue
		}
		at := r.Result.Turn.StartedAt
		if !r.Result.Turn.EndedAt.IsZero() {
			at = r.Result.Turn.EndedAt
		}
		if at.After(lastAt) {
			lastAt = at
		}
		if at.After(grace) {
			after++
		} else {
			before++
		}
	}
	t.Logf("revoked at %s; %d calls ran before the grace ended, %d after, %d refused (%d for the revocation); last at %s", revokedAt.Format(time.RFC3339Nano), before, after, refused, revokedRefusals, lastAt.Format(time.RFC3339Nano))
	if before == 0 {
		t.Fatalf("control: no call of the batch ran while the credential was valid")
	}
	if after == 0 && revokedRefusals == 0 {
		// Every call ran within the grace: the batch was too short on
		// this machine to tell (the fix refuses the calls after it).
		t.Skipf("inconclusive: the whole batch ran within a second of the revocation")
	}
	if after > 0 {
		t.Errorf("%d calls of the revoked credential's batch ran (turns started and ended, as agent170) more than a second after its revocation, the last %s after it", after, lastAt.Sub(revokedAt).Round(time.Millisecond))
	}
}

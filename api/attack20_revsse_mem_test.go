package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"turnstile/api"
)

// TestRevSSEStuckCatchUpsHoldMemory: the agent's runtime credential starts
// (and ends) turns with prompts of 900 KiB, as attack 9 did; a subscriber
// (here a revoked auditor) opens four streams from=start and reads none.
// Each catch-up blocks in the write of its first page, which it holds
// twice (the page's encoded frames, up to 512 of every workspace, and the
// copy being written): 4 x 2 x 21 MiB, held for as long as the sockets stay
// open, its credential revoked, the ring long past. The control: the same
// streams, read, leave nothing behind.
func TestRevSSEStuckCatchUpsHoldMemory(t *testing.T) {
	s := startSSE(t, api.Config{SSEBuffer: 64, SSESlowGrace: 200 * time.Millisecond, SSEWriteTimeout: time.Second}, 8192)
	agent := s.credential("agent", "runtime")
	prompt := strings.Repeat("p", 900<<10)
	const turns = 24
	for i := range turns {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"turn/start","params":{"turn_id":"big-%d","workspace_id":"ws","workspace_root":%q,"input":[{"type":"text","text":%q}]}}`, i, i, s.root, prompt)
		req, _ := http.NewRequest("POST", s.url+"/rpc", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+agent)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Error json.RawMessage `json:"error"`
		}
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if err != nil || out.Error != nil {
			t.Fatalf("turn/start %d: %v %s", i, err, out.Error)
		}
	}
	heap := func() int64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	aud := s.as(s.credential("aud", "auditor"))
	before := heap()
	// The control: four streams that read it all, then close.
	for range 4 {
		c := aud.openSSE("from=start", "", 0)
		for got := 0; got < turns; {
			f, err := c.next()
			if err != nil {
				t.Fatal(err)
			}
			if f.event == "turn/started" {
				got++
			}
		}
		c.resp.Body.Close()
	}
	waitClients(t, s, 0)
	if grown := heap() - before; grown > 40<<20 {
		t.Fatalf("control: %d MiB held after four streams that read everything", grown>>20)
	}
	for range 4 {
		aud.openSSE("from=start", "", 4096) // never read
	}
	waitClients(t, s, 4)
	if st, b := s.do("POST", "/v1/credentials/aud/revoke", nil); st != http.StatusOK {
		t.Fatalf("revoke: %d %s", st, b)
	}
	s.decisions("o", 0, 300) // the ring (64) wraps
	waitClients(t, s, 0)     // the write timeout ends them
	grown := heap() - before
	t.Logf("heap grew by %d MiB; %v streams open", grown>>20, s.metric("turnstile_sse_clients"))
	if grown > 40<<20 {
		t.Fatalf("four stuck catch-ups of a revoked credential hold %d MiB (history: %d MiB of prompts), %v streams still open",
			grown>>20, turns*len(prompt)>>20, s.metric("turnstile_sse_clients"))
	}
}

// waitClients waits until n event streams are open (the deadline is a
// hang guard).
func waitClients(t *testing.T, s *sseServer, n float64) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); s.metric("turnstile_sse_clients") != n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%v event streams open, waiting for %v", s.metric("turnstile_sse_clients"), n)
		}
	}
}

package tests

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/net/websocket"
)

// busyCounter counts what an answer streams through it and the calls in
// it answered server_busy.
type busyCounter struct {
	n, busy int
	tail    []byte
}

func (c *busyCounter) Write(p []byte) (int, error) {
	c.n += len(p)
	buf := append(c.tail, p...)
	c.busy += bytes.Count(buf, []byte(`"server_busy"`)) - bytes.Count(c.tail, []byte(`"server_busy"`))
	c.tail = append([]byte(nil), buf[max(0, len(buf)-16):]...)
	return len(p), nil
}

// TestAttack16RPCBatchAnswersOutsideBudget: the request body budget bounds
// what the server holds of requests, so that the agent, holding a runtime
// credential, cannot have it killed for its memory (an http hook then lets
// every call run), but a JSON-RPC batch's answers were all held in memory
// until the last was made, and answered at once: 13,500 turn/get calls in
// 0.95 MiB asked for a turn's 35 KB each, and one such request made the
// server hold 471 MB (1.1 GB of memory at its peak, 8 s of CPU), past
// --max-body-memory by any setting, as many times as the agent sent it at
// once; over a WebSocket the same. A batch's answers now count against the
// request's budget: past its principal's share the calls left are answered
// server_busy, not run. Controls: a batch of 50 is answered whole, over
// HTTP and over the socket.
func TestAttack16RPCBatchAnswersOutsideBudget(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	s := StartServer(t, "", "--max-body-memory", "20000000")
	s.startTurn("batch-1", "ws", "auto_accept_edits", ws)
	rt := roAs(s, roCreate(t, s, "agent", "runtime"))
	batch := func(n int) []byte {
		var b bytes.Buffer
		b.WriteByte('[')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","method":"turn/get","params":{"turn_id":"batch-1"},"id":%d}`, i%10)
		}
		b.WriteByte(']')
		return b.Bytes()
	}
	post := func(body []byte) busyCounter {
		req, _ := http.NewRequest("POST", s.URL+"/rpc", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+rt.Token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var c busyCounter
		if _, err := io.Copy(&c, resp.Body); err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("a batch: %d", resp.StatusCode)
		}
		return c
	}
	if c := post(batch(50)); c.busy != 0 || c.n < 50*10_000 {
		t.Fatalf("control: a batch of 50 turn/get: %d bytes, %d busy", c.n, c.busy)
	}
	big := batch(13_500)
	if len(big) > 1<<20 {
		t.Fatalf("the batch is %d bytes", len(big))
	}
	// The agent's share is half of 20 MB; the calls refused add 250 bytes each.
	const bound = 10_000_000 + 13_500*250 + 1_000_000
	if c := post(big); c.n > bound || c.busy == 0 {
		t.Errorf("a batch of 13,500 turn/get in %d bytes was answered with %d bytes (%d calls refused): held past the agent's share of --max-body-memory", len(big), c.n, c.busy)
	}

	conn, err := dialRPC(t, s, rt.Token, "")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.MaxPayloadBytes = 64 << 20
	for _, c := range []struct {
		n     int
		whole bool
	}{{50, true}, {13_500, false}} {
		if err := websocket.Message.Send(conn, string(batch(c.n))); err != nil {
			t.Fatal(err)
		}
		var answer string
		if err := websocket.Message.Receive(conn, &answer); err != nil {
			t.Fatalf("the socket's answer to a batch of %d: %v", c.n, err)
		}
		busy := strings.Count(answer, `"server_busy"`)
		if c.whole && (busy != 0 || len(answer) < 50*10_000) {
			t.Fatalf("control: a batch of 50 over the socket: %d bytes, %d busy", len(answer), busy)
		}
		if !c.whole && (len(answer) > bound || busy == 0) {
			t.Errorf("a batch of %d over the socket was answered with %d bytes (%d calls refused)", c.n, len(answer), busy)
		}
	}
}

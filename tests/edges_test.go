package tests

// The server's edges: slow and idle connections are closed, header blocks
// are bounded, and every identifier and free-text field has a length limit.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// roDial opens a raw TCP connection to s with a hang guard on reads.
func roDial(t *testing.T, s *Server) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	// A guard far above the 300ms the tests configure and below the
	// server's 10s defaults, so a server that ignored the flags fails: the
	// test waits for the server's close, never for a fixed time.
	if err := c.SetReadDeadline(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	return c, bufio.NewReader(c)
}

// roWaitClosed reads until the server closes the connection; the hang
// guard's timeout is a failure.
func roWaitClosed(t *testing.T, r *bufio.Reader, what string) {
	t.Helper()
	_, err := io.Copy(io.Discard, r)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("%s: the server kept the connection open", what)
	}
	// io.Copy returns nil at EOF; a reset is a close too.
}

const roRequest = "GET /healthz HTTP/1.1\r\nHost: turnstile\r\n\r\n"

// TestServerClosesSlowAndIdleConnections: a client that never finishes its
// headers (slow loris), one that trickles them, and an idle keep-alive
// connection are closed by the server; a prompt request on a kept-alive
// connection is served (control).
func TestServerClosesSlowAndIdleConnections(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "", "--read-header-timeout", "300ms", "--idle-timeout", "300ms", "--max-header-bytes", "4096")

	// Headers begun and never finished.
	c, r := roDial(t, s)
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: turnstile\r\n"); err != nil {
		t.Fatal(err)
	}
	roWaitClosed(t, r, "unfinished headers")

	// Headers trickled a byte at a time: the timeout bounds all of them,
	// not the gap between two bytes.
	c, r = roDial(t, s)
	stop, trickled := make(chan struct{}), make(chan struct{})
	go func(c net.Conn) { // its own connection: c is reused below
		defer close(trickled)
		tick := time.NewTicker(20 * time.Millisecond) // the trickle's pace
		defer tick.Stop()
		line := "GET /healthz HTTP/1.1\r\nHost: turnstile\r\nX-Slow: " + strings.Repeat("a", 4000)
		for i := 0; i < len(line); i++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			if _, err := c.Write([]byte{line[i]}); err != nil {
				return
			}
		}
	}(c)
	roWaitClosed(t, r, "trickled headers")
	close(stop)
	<-trickled // (a byte it wrote to the next connection made "aGET": 405)

	// Keep-alive: two prompt requests on one connection are served, then
	// the idle connection is closed.
	c, r = roDial(t, s)
	for i := range 2 {
		if _, err := io.WriteString(c, roRequest); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatalf("request %d on a kept-alive connection: %v", i, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Close {
			t.Fatalf("request %d: status %d, close %v", i, resp.StatusCode, resp.Close)
		}
	}
	roWaitClosed(t, r, "an idle keep-alive connection")
}

// TestServerHeaderLimit: a header block over --max-header-bytes is 431; a
// normal one passes.
func TestServerHeaderLimit(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "", "--max-header-bytes", "4096")
	for _, tc := range []struct {
		size int
		want int
	}{{1000, http.StatusOK}, {64 << 10, http.StatusRequestHeaderFieldsTooLarge}} {
		c, r := roDial(t, s)
		fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: turnstile\r\nX-Big: %s\r\n\r\n", strings.Repeat("b", tc.size))
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatalf("%d-byte header: %v", tc.size, err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Fatalf("%d-byte header: status %d, want %d", tc.size, resp.StatusCode, tc.want)
		}
	}
}

// TestLengthLimits: an identifier or free-text field over its limit is a
// 400 naming the field and appends nothing; at the limit it is accepted.
func TestLengthLimits(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	at, over := strings.Repeat("w", 128), strings.Repeat("w", 129)
	huge := strings.Repeat("x", 900<<10)
	start := func(id string, fields map[string]any) (int, []byte) {
		body := map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th", "workspace_root": root}
		for k, v := range fields {
			body[k] = v
		}
		return s.Request("POST", "/v1/turns", body)
	}
	for _, tc := range []struct {
		field string
		value any
	}{
		{"workspace_id", huge}, {"workspace_id", over}, {"thread_id", over}, {"turn_id", over},
		{"cwd", "/" + strings.Repeat("d", 5000)}, {"project_roots", []string{"/" + strings.Repeat("p", 5000)}},
	} {
		status, body := start("ro-len", map[string]any{tc.field: tc.value})
		e := wantError(t, status, body, http.StatusBadRequest, "invalid_field")
		if f := str(e.Details["field"]); !strings.HasPrefix(f, tc.field) {
			t.Fatalf("%s over the limit: the error names %q: %s", tc.field, f, body[:min(len(body), 300)])
		}
		if len(body) > 4096 {
			t.Fatalf("%s: the error echoes the value (%d bytes)", tc.field, len(body))
		}
	}
	if status, _ := s.Request("GET", "/v1/turns/ro-len", nil); status != http.StatusNotFound {
		t.Fatalf("a refused start created the turn: %d", status)
	}
	// JSON-RPC goes through the same checks.
	_, rpcErr := roRPC(t, s, "turn/start", map[string]any{"turn_id": "ro-len", "workspace_id": huge, "thread_id": "th", "workspace_root": root})
	if rpcErr == nil || rpcErr["status"] != float64(http.StatusBadRequest) || !strings.Contains(fmt.Sprint(rpcErr["details"]), "workspace_id") {
		t.Fatalf("RPC turn/start with a huge workspace_id: %v", rpcErr)
	}
	// The fields turn/start keeps as sent are bounded too.
	for field, v := range map[string]any{"model": strings.Repeat("m", 300), "capabilities": map[string]any{"x": strings.Repeat("c", 70<<10)}} {
		_, rpcErr = roRPC(t, s, "turn/start", map[string]any{"turn_id": "ro-len", "workspace_id": "ws", "thread_id": "th", "workspace_root": root, field: v})
		if rpcErr == nil || rpcErr["status"] != float64(http.StatusBadRequest) || !strings.Contains(fmt.Sprint(rpcErr["details"]), field) {
			t.Fatalf("RPC turn/start with a long %s: %v", field, rpcErr)
		}
	}
	// At the limit: accepted.
	if status, body := start(at, map[string]any{"workspace_id": at, "thread_id": at}); status != http.StatusCreated {
		t.Fatalf("128-character ids: %d %s", status, body)
	}
	before := s.footprint(at)
	for _, tc := range []struct {
		field string
		body  map[string]any
	}{
		{"tool_call_id", map[string]any{"tool_call_id": over, "tool_name": "read_file"}},
		{"item_id", map[string]any{"tool_call_id": "c1", "item_id": over, "tool_name": "read_file"}},
		{"tool_name", map[string]any{"tool_call_id": "c1", "tool_name": strings.Repeat("t", 257)}},
		{"mcp.server", map[string]any{"tool_call_id": "c1", "tool_name": "mcp__s__t", "mcp": map[string]any{"server": huge, "tool": "t"}}},
	} {
		status, body := s.Request("POST", "/v1/turns/"+at+"/decisions", tc.body)
		e := wantError(t, status, body, http.StatusBadRequest, "invalid_field")
		if e.Details["field"] != tc.field {
			t.Fatalf("decision with a long %s: the error names %v", tc.field, e.Details["field"])
		}
	}
	status, body := s.Request("POST", "/v1/turns/"+at+"/complete", map[string]any{"reason": strings.Repeat("r", 5000)})
	if e := wantError(t, status, body, http.StatusBadRequest, "invalid_field"); e.Details["field"] != "reason" {
		t.Fatalf("a long reason: %s", body)
	}
	for _, tc := range []struct {
		field string
		body  map[string]any
	}{
		{"argv[1]", map[string]any{"tool_call_id": "e1", "argv": []string{"echo", strings.Repeat("a", 129<<10)}}},
		{"env", map[string]any{"tool_call_id": "e1", "argv": []string{"true"}, "env": map[string]string{strings.Repeat("E", 300): "1"}}},
		{"cwd", map[string]any{"tool_call_id": "e1", "argv": []string{"true"}, "cwd": "/" + strings.Repeat("c", 5000)}},
	} {
		status, body := s.Request("POST", "/v1/turns/"+at+"/exec", tc.body)
		if e := wantError(t, status, body, http.StatusBadRequest, "invalid_field"); e.Details["field"] != tc.field {
			t.Fatalf("exec with a long %s: the error names %v", tc.field, e.Details["field"])
		}
	}
	if after := s.footprint(at); after != before {
		t.Fatalf("refused requests appended: %v → %v", before, after)
	}
	// Control: a 256-character tool name and a 128-character call id decide.
	d := s.decide(at, strings.Repeat("c", 128), strings.Repeat("t", 256), nil)
	if d.Decision == "" || d.Replayed {
		t.Fatalf("decision at the limits: %+v", d)
	}
}

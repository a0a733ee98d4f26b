package connlimit

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"
)

// serve starts an HTTP server on a Listener of max connections: /slow holds
// its request until release is closed, / answers at once.
func serve(t *testing.T, max int, grace time.Duration) (*Listener, string, func()) {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &Listener{Listener: ln, Max: max, Grace: grace}
	release := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) { <-release })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	srv := &http.Server{Handler: mux, ConnState: l.State}
	go srv.Serve(l)
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(func() { free(); srv.Close() })
	return l, ln.Addr().String(), free
}

func dial(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	return c, bufio.NewReader(c)
}

// get sends GET path on c (keep-alive) and returns the status, or 0 and
// the error when the connection ended.
func get(c net.Conn, rd *bufio.Reader, path string) (int, error) {
	if _, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		return 0, err
	}
	resp, err := http.ReadResponse(rd, nil)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// waitOpen waits until the listener counts n connections in state st.
func waitState(t *testing.T, l *Listener, st http.ConnState, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		l.mu.Lock()
		k := 0
		for c := range l.conns {
			if c.state == st {
				k++
			}
		}
		l.mu.Unlock()
		if k >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d connections %v, want %d", k, st, n)
		}
		time.Sleep(time.Millisecond) // polling a condition the server sets
	}
}

// TestIdleConnectionsMakeRoom: a local process opens keep-alive
// connections and leaves them idle until the server's bound is reached;
// the next client is not refused: the longest idle connection is closed
// for it. Control: the client's request is answered.
func TestIdleConnectionsMakeRoom(t *testing.T) {
	l, addr, _ := serve(t, 3, time.Hour)
	var idle []net.Conn
	for range 3 {
		c, rd := dial(t, addr)
		if st, err := get(c, rd, "/"); st != 200 {
			t.Fatalf("an idle-to-be connection: %d %v", st, err)
		}
		idle = append(idle, c)
	}
	waitState(t, l, http.StateIdle, 3)
	c, rd := dial(t, addr)
	if st, err := get(c, rd, "/"); st != 200 {
		t.Fatalf("a client while idle connections fill the bound: %d %v, want 200", st, err)
	}
	if l.Evicted.Load() != 1 || l.Open() != 3 {
		t.Fatalf("evicted %d, open %d; want 1 and 3", l.Evicted.Load(), l.Open())
	}
	// The oldest idle one was closed: its next read ends.
	idle[0].SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := idle[0].Read(make([]byte, 1)); err == nil {
		t.Fatal("the oldest idle connection is still open")
	}
}

// TestBusyConnectionsRefuseTheNext: connections carrying a request are
// never closed for another; with all of them busy the next is answered
// 503 and closed. A connection that sent nothing for less than the grace
// is not closed either; past the grace it makes room. Control: once one
// request ends, a new connection is served.
func TestBusyConnectionsRefuseTheNext(t *testing.T) {
	l, addr, release := serve(t, 2, time.Hour)
	for range 2 {
		c, _ := dial(t, addr)
		io.WriteString(c, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
	}
	waitState(t, l, http.StateActive, 2)
	c, rd := dial(t, addr)
	st, err := get(c, rd, "/")
	if st != http.StatusServiceUnavailable {
		t.Fatalf("a connection past a bound of busy ones: %d %v, want 503", st, err)
	}
	if l.Refused.Load() != 1 {
		t.Fatalf("refused %d, want 1", l.Refused.Load())
	}
	release()
	waitState(t, l, http.StateIdle, 2)
	c, rd = dial(t, addr)
	if st, err := get(c, rd, "/"); st != 200 {
		t.Fatalf("after the requests ended: %d %v, want 200", st, err)
	}
}

// TestSilentConnectionsWithinGrace: connections that send nothing are
// kept within the grace (a client on its way) and closed for a new one
// past it.
func TestSilentConnectionsWithinGrace(t *testing.T) {
	l, addr, _ := serve(t, 1, time.Hour)
	dial(t, addr)
	waitState(t, l, http.StateNew, 1)
	c, rd := dial(t, addr)
	if st, _ := get(c, rd, "/"); st != http.StatusServiceUnavailable {
		t.Fatalf("a connection past a silent one within its grace: %d, want 503", st)
	}
	l.mu.Lock()
	for c := range l.conns {
		c.since = c.since.Add(-2 * time.Hour) // the grace has passed
	}
	l.mu.Unlock()
	c, rd = dial(t, addr)
	if st, err := get(c, rd, "/"); st != 200 {
		t.Fatalf("a connection past a silent one beyond its grace: %d %v, want 200", st, err)
	}
	if l.Evicted.Load() != 1 {
		t.Fatalf("evicted %d, want 1", l.Evicted.Load())
	}
}

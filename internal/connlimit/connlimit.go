// Package connlimit bounds the connections an HTTP server holds open.
//
// Every connection is a descriptor and goroutines of the server; a local
// process (the agent, holding a shell) can open them faster than any
// timeout closes them. A Listener holds at most Max connections: past it,
// the oldest connection that carries no request (idle between requests,
// or not yet past its request line for longer than Grace) is closed to
// make room, as a busy server reclaims keep-alives; with none to close,
// the new connection is answered 503 and closed. Connections carrying a
// request, hijacked ones (WebSockets) included, are never closed for
// another: what one credential holds in flight is bounded by the API.
package connlimit

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// DefaultGrace is how long a new connection may take to send its request
// line before it may be closed to make room for another. Short: a client
// sends its request at once, and a process that opens connections and
// sends nothing would otherwise keep every slot fresh by opening a few
// hundred a second.
const DefaultGrace = 100 * time.Millisecond

// MaxFor returns the bound for a server whose descriptor limit is nofile:
// half of it (the egress proxy takes a quarter, the store and the commands'
// pipes the rest), at least 64.
func MaxFor(nofile uint64) int {
	return int(max(64, min(1<<20, nofile/2)))
}

// ProcessNofile is this process's descriptor limit (1,024 if unknown).
func ProcessNofile() uint64 {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 1024
	}
	return lim.Cur
}

// Listener is a net.Listener holding at most Max connections. Set the
// server's ConnState to its State so that it knows which ones are idle.
type Listener struct {
	net.Listener
	Max   int
	Grace time.Duration
	// Refused counts the connections refused, Evicted those closed to make
	// room.
	Refused, Evicted atomic.Uint64

	mu    sync.Mutex
	conns map[*conn]struct{}
}

type conn struct {
	net.Conn
	l     *Listener
	once  sync.Once
	state http.ConnState // guarded by l.mu
	since time.Time      // when it entered state
}

// Close closes the connection and frees its slot.
func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		c.l.mu.Unlock()
	})
	return err
}

// Unwrap returns the connection accepted (for callers that need its type).
func (c *conn) Unwrap() net.Conn { return c.Conn }

// Accept returns the next connection, making room for it or refusing it
// when Max are open.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		nc, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		c := &conn{Conn: nc, l: l, state: http.StateNew, since: time.Now()}
		victim, ok := l.admit(c)
		if victim != nil {
			l.Evicted.Add(1) // counted before the close anyone may see
			victim.Close()
		}
		if !ok {
			l.Refused.Add(1) // counted before the answer the client reads
			refuse(nc, l.Max)
			continue
		}
		return c, nil
	}
}

// admit counts c, choosing an idle connection to close when Max are open.
func (l *Listener) admit(c *conn) (victim *conn, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conns == nil {
		l.conns = map[*conn]struct{}{}
	}
	if len(l.conns) >= max(1, l.Max) {
		victim = l.oldestIdle(time.Now())
		if victim == nil {
			return nil, false
		}
		delete(l.conns, victim) // its slot is c's now
	}
	l.conns[c] = struct{}{}
	return victim, true
}

// oldestIdle is the connection idle longest, or else the one waiting
// longest past Grace for its first request (guarded by mu).
func (l *Listener) oldestIdle(now time.Time) *conn {
	grace := l.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	var idle, fresh *conn
	for c := range l.conns {
		switch c.state {
		case http.StateIdle:
			if idle == nil || c.since.Before(idle.since) {
				idle = c
			}
		case http.StateNew:
			if now.Sub(c.since) >= grace && (fresh == nil || c.since.Before(fresh.since)) {
				fresh = c
			}
		}
	}
	if idle != nil {
		return idle
	}
	return fresh
}

// State records a connection's state; set it as the server's ConnState.
func (l *Listener) State(nc net.Conn, st http.ConnState) {
	c, ok := nc.(*conn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, open := l.conns[c]; open {
		c.state, c.since = st, time.Now()
	}
}

// Open counts the connections held.
func (l *Listener) Open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns)
}

func refuse(c net.Conn, limit int) {
	body := fmt.Sprintf(`{"error":{"code":"server_busy","message":"the server holds %d connections, its limit, none of them idle; retry later","details":{"limit":%d}}}`+"\n", limit, limit)
	_ = c.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
	_, _ = fmt.Fprintf(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\nRetry-After: 1\r\n\r\n%s", len(body), body)
	_ = c.Close()
}

// CloseWrite and ReadFrom are the connection's own (net/http half-closes
// a connection it ends, and copies a body with the kernel's help).
func (c *conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

func (c *conn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}

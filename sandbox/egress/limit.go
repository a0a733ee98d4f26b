package egress

import (
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"time"
)

// Every connection to the proxy is a descriptor (an allowed one two) and a
// goroutine of the server. A command reaches the listener in its own
// namespace and may open as many connections as its own limits allow, so
// each listener bounds the connections it holds open (MaxConnsPerListener),
// and all of them together (MaxConns) stay well under the server's
// descriptor limit: a connection past either bound is answered 503 and
// closed at once, and the server's API and other commands keep what is left.
// One principal's commands run at once share a bound too (a quarter of
// MaxConns): a runtime that starts many commands cannot take every command's
// slots, and other credentials' commands keep theirs.

// Defaults of the bounds.
const (
	DefaultMaxConnsPerListener = 256
	DefaultMaxConns            = 4096
	// DefaultMaxHeaderBytes is the largest request header block the proxy
	// reads (431 above it), as the API's --max-header-bytes.
	DefaultMaxHeaderBytes = 64 << 10
)

// MaxConnsFor returns the bound on all proxy connections for a server whose
// descriptor limit is nofile: a quarter of it (an allowed connection holds
// two), at most DefaultMaxConns, at least 64.
func MaxConnsFor(nofile uint64) int {
	return int(max(64, min(DefaultMaxConns, nofile/4)))
}

// ProcessMaxConns is MaxConnsFor this process's descriptor limit.
func ProcessMaxConns() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return DefaultMaxConns
	}
	return MaxConnsFor(lim.Cur)
}

// connSlots returns the proxy's slots for all its listeners' connections.
func (p *Proxy) connSlots() chan struct{} {
	p.slotsOnce.Do(func() {
		n := p.MaxConns
		if n <= 0 {
			n = DefaultMaxConns
		}
		p.slots = make(chan struct{}, n)
	})
	return p.slots
}

// Limit wraps a listener of the proxy so that it holds at most
// MaxConnsPerListener connections at once, and the proxy's listeners
// together MaxConns; a connection past either is answered 503 and closed.
// A shared listener (--egress-listen, which every turn's proxy URL names,
// and which a connection reaches before it authenticates) holds at most
// half of MaxConns, so that the commands' listeners keep the rest.
func (p *Proxy) Limit(ln net.Listener, shared bool) net.Listener {
	return p.limit(ln, shared, "")
}

// LimitFor is Limit for a command's listener run by principal: all of the
// listeners of one principal open at once hold at most a quarter of
// MaxConns together.
func (p *Proxy) LimitFor(ln net.Listener, principal string) net.Listener {
	return p.limit(ln, false, principal)
}

func (p *Proxy) limit(ln net.Listener, shared bool, principal string) net.Listener {
	all := p.connSlots()
	own := p.MaxConnsPerListener
	switch {
	case shared:
		own = max(1, cap(all)/2)
	case own <= 0:
		own = DefaultMaxConnsPerListener
	}
	l := &limitedListener{Listener: ln, own: make(chan struct{}, own), all: all}
	if principal != "" {
		l.mine, l.release = p.principalSlots(principal)
	}
	return l
}

// principalSlots returns principal's slots, shared by its listeners open
// at once, and the release of one listener's hold on them.
func (p *Proxy) principalSlots(principal string) (chan struct{}, func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byPrincipal == nil {
		p.byPrincipal = map[string]*principalSlots{}
	}
	ps := p.byPrincipal[principal]
	if ps == nil {
		ps = &principalSlots{slots: make(chan struct{}, max(1, cap(p.connSlots())/4))}
		p.byPrincipal[principal] = ps
	}
	ps.listeners++
	var once sync.Once
	return ps.slots, func() {
		once.Do(func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			if ps.listeners--; ps.listeners == 0 && len(ps.slots) == 0 {
				delete(p.byPrincipal, principal)
			}
		})
	}
}

// principalSlots are one principal's: its listeners open hold them (guarded
// by the proxy's mu). An entry whose listeners are closed while
// connections are still open stays until the next listener's; a new one
// made meanwhile would only be emptier.
type principalSlots struct {
	slots     chan struct{}
	listeners int
}

type limitedListener struct {
	net.Listener
	own, all chan struct{}
	// mine, when set, are the slots of the listener's principal; release
	// gives back its hold on them when the listener closes.
	mine    chan struct{}
	release func()
}

// Close closes the listener and gives back its hold on its principal's
// slots.
func (l *limitedListener) Close() error {
	err := l.Listener.Close()
	if l.release != nil {
		l.release()
	}
	return err
}

// Accept returns the next connection within the bounds; those past them
// are refused in passing.
func (l *limitedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.all <- struct{}{}:
		default:
			refuseConn(c, "the proxy holds as many connections as it may; retry later")
			continue
		}
		if l.mine != nil {
			select {
			case l.mine <- struct{}{}:
			default:
				<-l.all
				refuseConn(c, fmt.Sprintf("this principal's commands already hold %d connections; close some first", cap(l.mine)))
				continue
			}
		}
		select {
		case l.own <- struct{}{}:
		default:
			<-l.all
			if l.mine != nil {
				<-l.mine
			}
			refuseConn(c, fmt.Sprintf("this listener already holds %d connections; close some first", cap(l.own)))
			continue
		}
		return &limitedConn{Conn: c, l: l}, nil
	}
}

// refuseConn answers a connection past a bound and closes it.
func refuseConn(c net.Conn, why string) {
	body := "turnstile egress: " + why + "\n"
	_ = c.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
	_, _ = fmt.Fprintf(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
	_ = c.Close()
}

// limitedConn frees its slots when it is closed (also after a hijack: the
// tunnel closes the same connection).
type limitedConn struct {
	net.Conn
	l    *limitedListener
	once sync.Once
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		<-c.l.own
		if c.l.mine != nil {
			<-c.l.mine
		}
		<-c.l.all
	})
	return err
}

// CloseWrite, ReadFrom and WriteTo are the connection's own (a half close;
// a tunnel's copies spliced by the kernel).
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

func (c *limitedConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}

func (c *limitedConn) WriteTo(w io.Writer) (int64, error) {
	if wt, ok := c.Conn.(io.WriterTo); ok {
		return wt.WriteTo(w)
	}
	return io.Copy(w, struct{ io.Reader }{c.Conn})
}

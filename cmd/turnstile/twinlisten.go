package main

import (
	"errors"
	"net"
	"net/netip"
	"sync"
	"syscall"
)

var errAddrInUse = syscall.EADDRINUSE

// A client names this machine's server "localhost" (both loopback
// addresses) or one of them; a server listening on 127.0.0.1:P left
// [::1]:P free, and a listener there of the server's own uid (a
// full_access command runs as the server's uid, on the host's network)
// passed the clients' user check and received an approver's token (the
// hundred-and-ninety-seventh review). So a server listening on one
// loopback address holds the other family's too, at the same port, and
// serves both.

// loopbackTwin returns the other loopback family's address at the port of
// a (127.0.0.1:P → [::1]:P and back); "" when a is no loopback address.
func loopbackTwin(a net.Addr) string {
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil || !ap.Addr().IsLoopback() {
		return ""
	}
	if ap.Addr().Unmap().Is4() {
		return netip.AddrPortFrom(netip.IPv6Loopback(), ap.Port()).String()
	}
	return netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), ap.Port()).String()
}

// listenTwin listens on ln's loopback twin: the listener (nil when ln is
// not on a loopback address, or this machine has no such address) and,
// when the twin's port is taken by another program, an error naming it.
func listenTwin(ln net.Listener) (net.Listener, error) {
	twin := loopbackTwin(ln.Addr())
	if twin == "" {
		return nil, nil
	}
	l, err := net.Listen("tcp", twin)
	if err == nil {
		return l, nil
	}
	if errors.Is(err, errAddrInUse) {
		return nil, err
	}
	return nil, nil // no such loopback address here (IPv6 off): nothing to hold
}

// multiListener accepts the connections of several listeners as one.
type multiListener struct {
	ls    []net.Listener
	conns chan net.Conn
	errs  chan error
	once  sync.Once
	done  chan struct{}
}

func newMultiListener(ls ...net.Listener) *multiListener {
	m := &multiListener{ls: ls, conns: make(chan net.Conn), errs: make(chan error, len(ls)), done: make(chan struct{})}
	for _, l := range ls {
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					var ne net.Error
					if errors.As(err, &ne) && ne.Timeout() {
						continue
					}
					m.errs <- err
					return
				}
				select {
				case m.conns <- c:
				case <-m.done:
					c.Close()
					return
				}
			}
		}()
	}
	return m
}

func (m *multiListener) Accept() (net.Conn, error) {
	select {
	case c := <-m.conns:
		return c, nil
	case err := <-m.errs:
		m.Close()
		return nil, err
	case <-m.done:
		return nil, net.ErrClosed
	}
}

func (m *multiListener) Close() error {
	var err error
	m.once.Do(func() {
		close(m.done)
		for _, l := range m.ls {
			if e := l.Close(); e != nil && err == nil {
				err = e
			}
		}
	})
	return err
}

// Addr is the first listener's (the one --listen names).
func (m *multiListener) Addr() net.Addr { return m.ls[0].Addr() }

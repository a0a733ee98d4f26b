package main

import (
	"errors"
	"net"
	"net/netip"
	"sync"
	"syscall"
	"time"
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

// multiListener accepts the connections of several listeners as one. A
// temporary accept error (out of descriptors: EMFILE, ENFILE; ENOBUFS,
// ENOMEM, ECONNABORTED) is handed to the caller, which retries as
// http.Server does, and its listener is tried again after a pause; any
// other error closes them all (one EMFILE used to stop the server:
// review 198).
type multiListener struct {
	ls    []net.Listener
	conns chan net.Conn
	errs  chan acceptErr
	once  sync.Once
	done  chan struct{}
}

type acceptErr struct {
	err       error
	temporary bool
}

func newMultiListener(ls ...net.Listener) *multiListener {
	m := &multiListener{ls: ls, conns: make(chan net.Conn), errs: make(chan acceptErr), done: make(chan struct{})}
	for _, l := range ls {
		go m.accept(l)
	}
	return m
}

// accept hands l's connections to Accept until l fails for good or m is
// closed.
func (m *multiListener) accept(l net.Listener) {
	var pause time.Duration
	for {
		c, err := l.Accept()
		if err != nil {
			temp := temporaryAcceptError(err)
			select {
			case m.errs <- acceptErr{err, temp}:
			case <-m.done:
				return
			}
			if !temp {
				return
			}
			pause = min(max(2*pause, 5*time.Millisecond), time.Second)
			select {
			case <-time.After(pause):
			case <-m.done:
				return
			}
			continue
		}
		pause = 0
		select {
		case m.conns <- c:
		case <-m.done:
			c.Close()
			return
		}
	}
}

// temporaryError is an accept error http.Server retries (its Temporary).
type temporaryError struct{ error }

func (temporaryError) Temporary() bool { return true }
func (temporaryError) Timeout() bool   { return false }
func (e temporaryError) Unwrap() error { return e.error }

// temporaryAcceptError reports an accept error a listener recovers from.
func temporaryAcceptError(err error) bool {
	for _, e := range []error{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM, syscall.ECONNABORTED} {
		if errors.Is(err, e) {
			return true
		}
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func (m *multiListener) Accept() (net.Conn, error) {
	select {
	case c := <-m.conns:
		return c, nil
	case e := <-m.errs:
		if !e.temporary {
			m.Close()
			return nil, e.err
		}
		return nil, temporaryError{e.err}
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

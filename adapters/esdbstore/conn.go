package esdbstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	esdbc "github.com/EventStore/EventStore-Client-Go/v4/esdb"

	"turnstile/domain/eventstore"
)

// Traps of the v4 client that this file works around:
//
//   - Finding a node (discovery) runs inside the client's connection
//     goroutine without any deadline, and every call that needs a
//     connection queues behind it on an unbuffered channel. When discovery
//     fails, that goroutine exits for good (the client is "closed") and the
//     calls still queued block forever.
//   - Closing a client while a call is queued panics that call (send on a
//     closed channel), and is a data race.
//
// So a store lets exactly one goroutine per client, the connector, trigger
// discovery (GetServerVersion); every other call waits for it on a channel
// with its own context and enters the client only once it is connected. A
// client whose discovery failed is replaced, never closed; Close closes the
// client in use once no call is inside it.

// conn is one v4 client and what the store knows of its connection.
type conn struct {
	s   *Store
	c   *esdbc.Client
	gen uint64 // the store's generation of this client
	// calls counts the goroutines inside the client (calls and the
	// connector); Close closes the client only once they are out, so that
	// no call is queued when its channel closes. Add happens under s.mu
	// while the store is open, or while the count is positive.
	calls sync.WaitGroup

	mu sync.Mutex
	// ready: the client holds a connection, as far as the store knows.
	// connecting: non-nil while the connector runs; closed when it ends.
	// err: the connector's last error. All guarded by mu.
	ready      bool
	connecting chan struct{}
	err        error
}

// await returns once the client is connected, starting the connector if
// none runs, or with the connector's error, or with ctx's.
func (cn *conn) await(ctx context.Context) error {
	cn.mu.Lock()
	if cn.ready {
		cn.mu.Unlock()
		return nil
	}
	if cn.connecting == nil {
		cn.connecting = make(chan struct{})
		cn.calls.Add(1) // the caller's own call is counted: the count is positive
		go cn.connect(cn.connecting)
	}
	done := cn.connecting
	cn.mu.Unlock()
	select {
	case <-done:
		cn.mu.Lock()
		defer cn.mu.Unlock()
		if cn.ready {
			return nil
		}
		return cn.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// connect makes the client find a node; it is the only caller that can be
// held up by discovery.
func (cn *conn) connect(done chan struct{}) {
	defer cn.calls.Done()
	err := guard(func() error {
		_, err := cn.c.GetServerVersion()
		return err
	})
	cn.mu.Lock()
	cn.ready, cn.err, cn.connecting = err == nil, err, nil
	cn.mu.Unlock()
	close(done)
	if err != nil && clientDead(err) {
		cn.s.renew(cn.gen)
	}
}

// suspect records that a call failed for want of the server: the next call
// goes through the connector again (the client rediscovers if it was told
// to reconnect, else answers at once).
func (cn *conn) suspect() {
	cn.mu.Lock()
	cn.ready = false
	cn.mu.Unlock()
}

// errClientPanic wraps a panic of the v4 client (it panics on reply kinds it
// does not expect).
var errClientPanic = errors.New("esdb: client panic")

// guard runs fn, turning a panic into an error.
func guard(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", errClientPanic, r)
		}
	}()
	return fn()
}

// clientDead reports whether err says the client will not work again: the
// library closes a client whose discovery failed.
func clientDead(err error) bool {
	var e *esdbc.Error
	if errors.As(err, &e) && e.Code() == esdbc.ErrorCodeConnectionClosed {
		return true
	}
	return strings.Contains(err.Error(), "maximum discovery attempt count reached")
}

func (s *Store) newConn(gen uint64) (*conn, error) {
	cfg := s.cfg
	c, err := esdbc.NewClient(&cfg)
	if err != nil {
		return nil, fmt.Errorf("esdb: %w", err)
	}
	return &conn{s: s, c: c, gen: gen}, nil
}

// enter returns the connection in use, counting the caller as inside its
// client until it calls leave.
func (s *Store) enter() (cn *conn, leave func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil, eventstore.ErrClosed
	}
	s.conn.calls.Add(1)
	return s.conn, s.conn.calls.Done, nil
}

// renew replaces the client of generation gen, which the library has closed
// for good. The old client is dropped, not closed: calls may still be queued
// on it (see the top of this file).
func (s *Store) renew(gen uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || gen != s.conn.gen {
		return
	}
	if cn, err := s.newConn(gen + 1); err == nil { // err: impossible, the configuration was valid at Open
		s.conn = cn
	}
}

// do runs fn with the connected client in a goroutine of its own, so that
// the caller returns when ctx ends whatever the client does, and a panic of
// the client becomes an error.
func (s *Store) do(ctx context.Context, fn func(ctx context.Context, c *esdbc.Client) error) error {
	cn, leave, err := s.enter()
	if err != nil {
		return err
	}
	if err := cn.await(ctx); err != nil {
		leave()
		return err
	}
	done := make(chan error, 1)
	go func() {
		defer leave()
		done <- guard(func() error { return fn(ctx, cn.c) })
	}()
	select {
	case err = <-done:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil && transient(err) {
		cn.suspect()
	}
	if err != nil && clientDead(err) {
		s.renew(cn.gen)
	}
	return err
}

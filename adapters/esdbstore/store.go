// Package esdbstore is the EventStoreDB/KurrentDB adapter of turnstile's event
// store port (eventstore.Store), built on EventStore-Client-Go v4.
//
// # Connection strings
//
// Open accepts what the v4 client parses: a single node
// (esdb://host:2113?tls=false), TLS (tls=true with tlsCAFile=… or
// tlsVerifyCert=false), a cluster given as comma-separated gossip seeds
// (esdb://a:2113,b:2113,c:2113) and DNS discovery (esdb+discover://host:2113).
// The kurrentdb:// and kurrentdb+discover:// schemes are read as their esdb
// equivalents. Open does not contact the server; Ping does.
//
// # Deadlines and unavailability
//
// Every request to the server is bounded by Options.Timeout: an append as a
// whole (all its attempts), each page of a read, each (re)subscription. A
// store that cannot be reached, or that does not answer in time, yields
// errors wrapping eventstore.ErrUnavailable, never a hang. The v4 client
// blocks without a context while it discovers a node, so every client call
// runs in its own goroutine and the caller returns at its deadline; a client
// whose discovery failed is closed for good by the library, so the store
// replaces it with a fresh one.
//
// # Appends and retries
//
// An append sends the port's expected version as esdb.NoStream, esdb.Any or
// esdb.Revision(n), every event with its own EventData.ID (never a
// client-generated one) and content type JSON. When the server is
// unavailable the append is retried, within its deadline, with the same ids
// and the same expected version: the server's idempotency check
// (IndexWriter.CheckCommit) then answers a retry of a write that did commit
// with the original result. A wrong expected version becomes a
// *eventstore.WrongExpectedVersionError whose Actual is parsed from the
// client's message (-2 when absent).
//
// # Reads and subscriptions
//
// Reads page through a stream or through $all and skip system streams
// (names starting with "$"); a missing stream reads as empty. Subscribe
// follows $all with a server-side stream-name filter and transparently
// resubscribes, with backoff, from the last event it delivered when the
// server drops it: no gap, no duplicate, one CaughtUp. Servers older than
// 23.10 never send caught_up, so CaughtUp needs KurrentDB/EventStoreDB 23.10+.
package esdbstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"strings"
	"sync"
	"time"

	esdbc "github.com/EventStore/EventStore-Client-Go/v4/esdb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"turnstile/domain/eventstore"
)

// Defaults of Options.
const (
	DefaultTimeout    = 5 * time.Second
	DefaultPageSize   = 512
	DefaultMinBackoff = 20 * time.Millisecond
	DefaultMaxBackoff = 2 * time.Second
)

// ErrInvalid is wrapped by the errors of appends refused for bad input (no
// events, an event without an id or a type, an empty stream name). Nothing
// is sent to the server.
var ErrInvalid = errors.New("esdb: invalid append")

// Options tunes a Store. The zero value gives the defaults.
type Options struct {
	// Timeout bounds every request to the server (see the package comment).
	// Zero means DefaultTimeout.
	Timeout time.Duration
	// PageSize is how many events one read request asks for. Zero means
	// DefaultPageSize.
	PageSize int
	// MinBackoff and MaxBackoff bound the waits between retried appends and
	// between resubscription attempts. Zero means the defaults.
	MinBackoff, MaxBackoff time.Duration
	// Logger receives the v4 client's log lines. Nil discards them.
	Logger esdbc.LoggingFunc
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.PageSize <= 0 {
		o.PageSize = DefaultPageSize
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = DefaultMinBackoff
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = DefaultMaxBackoff
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = o.MinBackoff
	}
	if o.Logger == nil {
		o.Logger = esdbc.NoopLogging()
	}
	return o
}

// Store is the EventStoreDB event store. It is safe for concurrent use.
type Store struct {
	cfg  esdbc.Configuration // template: every client gets a copy
	opts Options

	mu sync.Mutex
	// conn is the v4 client in use (replaced when the library gives up on
	// it); guarded by mu.
	conn *conn
	// closed is guarded by mu.
	closed bool
	// subs are the open subscriptions, closed by Close; guarded by mu.
	subs map[*subscription]struct{}
}

// Open returns a store for the server of connString. It validates the
// string (and reads a tlsCAFile) but does not connect; use Ping for that.
func Open(connString string, opts Options) (*Store, error) {
	opts = opts.withDefaults()
	connString = esdbScheme(connString)
	cfg, err := esdbc.ParseConnectionString(connString)
	if err != nil {
		return nil, fmt.Errorf("esdb: connection string: %w", err)
	}
	cfg.Logger = opts.Logger
	// Discovery runs without a deadline inside the client and blocks every
	// call meanwhile; keep it within about one Timeout unless the
	// connection string says otherwise.
	if !hasSetting(connString, "gossipTimeout") {
		cfg.GossipTimeout = max(1, int(math.Ceil(opts.Timeout.Seconds())))
	}
	if !hasSetting(connString, "maxDiscoverAttempts") {
		cfg.MaxDiscoverAttempts = 3
	}
	s := &Store{cfg: *cfg, opts: opts, subs: make(map[*subscription]struct{})}
	if s.conn, err = s.newConn(0); err != nil {
		return nil, err
	}
	return s, nil
}

// SendsCredential reports whether a client of connString authenticates to
// its server, as the client parses the string: TLS on, and a user and a
// password both non-empty or a client certificate and key (the client
// attaches a user's credentials only over TLS, and a plaintext node is an
// --insecure one, which authenticates nobody).
func SendsCredential(connString string) (bool, error) {
	cfg, err := esdbc.ParseConnectionString(esdbScheme(connString))
	if err != nil {
		return false, fmt.Errorf("esdb: connection string: %w", err)
	}
	if cfg.DisableTLS {
		return false, nil
	}
	return cfg.Username != "" && cfg.Password != "" || cfg.UserCertFile != "" && cfg.UserKeyFile != "", nil
}

// esdbScheme rewrites the kurrentdb:// and kurrentdb+discover:// schemes of
// the successor client to the esdb ones the v4 client parses: the rest of
// the string has the same form and KurrentDB serves the same protocol.
func esdbScheme(connString string) string {
	for from, to := range map[string]string{"kurrentdb://": "esdb://", "kurrentdb+discover://": "esdb+discover://"} {
		if len(connString) >= len(from) && strings.EqualFold(connString[:len(from)], from) {
			return to + connString[len(from):]
		}
	}
	return connString
}

// hasSetting reports whether the query of connString names key (the v4
// client compares keys case-insensitively).
func hasSetting(connString, key string) bool {
	_, query, ok := strings.Cut(connString, "?")
	if !ok {
		return false
	}
	values, err := url.ParseQuery(query)
	if err != nil {
		return false
	}
	for k := range values {
		if strings.EqualFold(k, key) {
			return true
		}
	}
	return false
}

// transient reports whether err means the server could not be reached or
// did not answer: the request may be retried (an append with the same ids
// and expected version).
func transient(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		clientDead(err) {
		return true
	}
	var e *esdbc.Error
	if errors.As(err, &e) {
		switch e.Code() {
		case esdbc.ErrorUnavailable, esdbc.ErrorCodeDeadlineExceeded, esdbc.ErrorCodeNotLeader, esdbc.ErrorAborted:
			return true
		}
	}
	switch status.Code(err) { // unwraps to the gRPC status, if any
	case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled:
		return true
	}
	return false
}

// wrap turns an error of operation op into the port's errors: ErrClosed
// once the store is closed, the caller's own cancellation as is, transient
// failures wrapping ErrUnavailable.
func (s *Store) wrap(parent context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, eventstore.ErrClosed) || s.isClosed() {
		return fmt.Errorf("esdb: %s: %w", op, eventstore.ErrClosed)
	}
	if parent.Err() != nil && !errors.Is(parent.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("esdb: %s: %w", op, parent.Err())
	}
	if transient(err) {
		return fmt.Errorf("esdb: %s: %w (%w)", op, eventstore.ErrUnavailable, err)
	}
	return fmt.Errorf("esdb: %s: %w", op, err)
}

func (s *Store) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// backoff returns the wait after a wait of d.
func (s *Store) backoff(d time.Duration) time.Duration {
	if d <= 0 {
		return s.opts.MinBackoff
	}
	return min(2*d, s.opts.MaxBackoff)
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// pingStream is read by Ping. It need not exist: "not found" proves the
// server answers.
const pingStream = "turnstile-ping"

// Ping reports whether the server answers a cheap read within
// min(Timeout, 2s).
func (s *Store) Ping(ctx context.Context) error {
	ctx2, cancel := context.WithTimeout(ctx, min(s.opts.Timeout, 2*time.Second))
	defer cancel()
	err := s.do(ctx2, func(ctx context.Context, c *esdbc.Client) error {
		rs, err := c.ReadStream(ctx, pingStream, esdbc.ReadStreamOptions{Direction: esdbc.Backwards, From: esdbc.End{}}, 1)
		if err != nil {
			return err
		}
		defer rs.Close()
		_, err = rs.Recv()
		if err == nil || errors.Is(err, io.EOF) || isNotFound(err) {
			return nil
		}
		return err
	})
	return s.wrap(ctx, "ping", err)
}

// Close closes the open subscriptions and the client. Further calls return
// ErrClosed.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return fmt.Errorf("esdb: close: %w", eventstore.ErrClosed)
	}
	s.closed = true
	subs := s.subs
	s.subs = nil
	cn := s.conn
	s.mu.Unlock()
	for sub := range subs {
		_ = sub.Close()
	}
	// Calls still inside the client end at their deadlines at the latest
	// (or never, on a client the library gave up on; see conn.go).
	go func() {
		cn.calls.Wait()
		_ = cn.c.Close()
	}()
	return nil
}

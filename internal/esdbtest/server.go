// Package esdbtest is an in-memory EventStoreDB/KurrentDB server for tests.
// The product never imports it.
//
// It serves the gRPC protocol of the server (the generated server interfaces
// of EventStore-Client-Go v4) on loopback TCP, insecure unless WithTLS is
// given, so that the real v4 client, connected with ConnString(), exercises
// exactly the code paths it uses against a real node:
//
//   - Streams.Append: a client stream of options, then one message per event;
//     expected versions any, no_stream, stream_exists and a revision, decided
//     like KurrentDB's IndexWriter.CheckCommit (idempotent replays answer the
//     original result; any/stream_exists consult only a bounded cache of
//     recent ids); wrong expected versions answered with the AppendResp
//     shape of KurrentDB (both the current and the 20.6.0 fields).
//   - Streams.Read: stream reads forwards and backwards, $all reads from a
//     position (forwards inclusive, backwards exclusive), stream_not_found
//     for a missing stream, the first/last stream position replies only when
//     the request asks for compatibility >= 1 (the v4 client does not, and
//     panics on reply kinds it does not expect), and catch-up subscriptions
//     to $all and to a stream: confirmation first, stored events strictly
//     after the start, checkpoints for filtered $all subscriptions, caught_up,
//     then live events.
//   - ServerFeatures.GetSupportedMethods and Gossip.Read (one leader member:
//     the server itself), so that cluster and esdb+discover connection
//     strings work.
//
// Every event carries the "type", "content-type" and "created" metadata
// entries (the client log.Fatalf's without "created"). Positions are log
// offsets: commit == prepare, strictly increasing, not contiguous, and a
// fresh server's log starts with a few system events, as a real node's does.
//
// Tests can make the server misbehave: Down/Up stop and restart listening
// (the data survives), Hang makes every call block until Unhang,
// DropSubscriptions ends live subscriptions with an error, and
// InjectAppendFaults fails the next appends before or after they commit.
package esdbtest

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/EventStore/EventStore-Client-Go/v4/protos/gossip"
	"github.com/EventStore/EventStore-Client-Go/v4/protos/serverfeatures"
	api "github.com/EventStore/EventStore-Client-Go/v4/protos/streams"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"
)

// DefaultIDCacheSize is the default number of recent event ids remembered
// for the idempotency of appends with expected version any.
const DefaultIDCacheSize = 100_000

// DefaultMaxAppendSize is the server's default maximum size of one append
// (KurrentDB's MaxAppendSize, 1 MiB).
const DefaultMaxAppendSize = 1 << 20

// ServerVersion is the version the server reports through ServerFeatures.
const ServerVersion = "24.10.0"

// Option configures a Server.
type Option func(*config)

type config struct {
	idCacheSize   int
	maxAppendSize int
	now           func() time.Time
	tls           *tls.Config
}

// WithIDCacheSize sets how many recent event ids the server remembers for
// idempotent appends with expected version any (0 disables the check).
func WithIDCacheSize(n int) Option { return func(c *config) { c.idCacheSize = n } }

// WithMaxAppendSize sets the maximum size in bytes of one append.
func WithMaxAppendSize(n int) Option { return func(c *config) { c.maxAppendSize = n } }

// WithClock sets the clock that stamps the "created" metadata of events.
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }

// WithTLS serves TLS with cfg (which must hold the server's certificate)
// instead of plain TCP. ConnString then says tls=true; the caller adds
// tlsCAFile or tlsVerifyCert=false.
func WithTLS(cfg *tls.Config) Option { return func(c *config) { c.tls = cfg } }

// Fault is a failure injected into an append.
type Fault int

const (
	// FailBeforeCommit answers the append with Unavailable without writing.
	FailBeforeCommit Fault = iota + 1
	// FailAfterCommit writes the events, then answers Unavailable instead of
	// the result: the reply is lost, the write is not.
	FailAfterCommit
)

// ErrStopped is returned by Serve and Up on a stopped server.
var ErrStopped = errors.New("esdbtest: server stopped")

// Server is an in-memory EventStoreDB node. Its methods are safe for
// concurrent use.
type Server struct {
	api.UnimplementedStreamsServer
	cfg config
	log *eventLog

	mu      sync.Mutex
	addr    string       // the address served, fixed by the first Serve
	srv     *grpc.Server // nil while down
	stopped bool
	hung    chan struct{}            // non-nil while hung; closed by Unhang
	faults  []Fault                  // next append faults, in order
	subs    map[chan struct{}]string // live subscriptions: drop channel -> description
}

// NewServer returns a server that is not listening yet; call Serve.
func NewServer(opts ...Option) *Server {
	cfg := config{idCacheSize: DefaultIDCacheSize, maxAppendSize: DefaultMaxAppendSize, now: time.Now}
	for _, o := range opts {
		o(&cfg)
	}
	return &Server{cfg: cfg, log: newEventLog(cfg.idCacheSize, cfg.now), subs: make(map[chan struct{}]string)}
}

// Start starts a server on a free loopback port and stops it when the test
// ends.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := NewServer(opts...)
	if err := s.Serve("127.0.0.1:0"); err != nil {
		t.Fatalf("esdbtest: %v", err)
	}
	t.Cleanup(s.Stop)
	return s
}

// Serve starts listening on addr ("127.0.0.1:0" picks a free port) and
// serves in the background until Down or Stop.
func (s *Server) Serve(addr string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return ErrStopped
	}
	if s.srv != nil {
		return fmt.Errorf("esdbtest: already serving on %s", s.addr)
	}
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("esdbtest: listen: %w", err)
	}
	s.addr = lis.Addr().String()
	s.serveLocked(lis)
	return nil
}

func (s *Server) serveLocked(lis net.Listener) {
	opts := []grpc.ServerOption{
		// The v4 client pings every 10s, even without calls; grpc-go's
		// default policy (5 minutes) would answer with GOAWAY
		// too_many_pings, which a real node never does.
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: time.Second, PermitWithoutStream: true}),
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			if err := s.gate(ctx); err != nil {
				return nil, err
			}
			return h(ctx, req)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			if err := s.gate(ss.Context()); err != nil {
				return err
			}
			return h(srv, ss)
		}),
	}
	if s.cfg.tls != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(s.cfg.tls)))
	}
	srv := grpc.NewServer(opts...)
	api.RegisterStreamsServer(srv, s)
	serverfeatures.RegisterServerFeaturesServer(srv, featuresServer{})
	gossip.RegisterGossipServer(srv, gossipServer{s: s})
	s.srv = srv
	go func() { _ = srv.Serve(lis) }()
}

// Addr returns the host:port the server listens on.
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}

// ConnString returns the single-node connection string of the server:
// esdb://127.0.0.1:PORT?tls=false (tls=true with WithTLS).
func (s *Server) ConnString() string {
	if s.cfg.tls != nil {
		return "esdb://" + s.Addr() + "?tls=true"
	}
	return "esdb://" + s.Addr() + "?tls=false"
}

// Down stops listening and cuts every connection and call, like a node that
// crashed; the data survives for Up.
func (s *Server) Down() {
	s.mu.Lock()
	srv := s.srv
	s.srv = nil
	s.mu.Unlock()
	if srv != nil {
		srv.Stop()
	}
}

// Up listens again on the address of the first Serve after Down.
func (s *Server) Up() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return ErrStopped
	}
	if s.srv != nil {
		return nil
	}
	var lis net.Listener
	var err error
	for range 50 { // the port may linger for a moment after Down
		if lis, err = net.Listen("tcp", s.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("esdbtest: listen again: %w", err)
	}
	s.serveLocked(lis)
	return nil
}

// Stop shuts the server down for good. It is safe to call more than once.
func (s *Server) Stop() {
	s.mu.Lock()
	s.stopped = true
	srv := s.srv
	s.srv = nil
	if s.hung != nil {
		close(s.hung)
		s.hung = nil
	}
	s.mu.Unlock()
	if srv != nil {
		srv.Stop()
	}
}

// Hang makes the server accept connections but answer nothing: every new
// call, and every live subscription before its next message, blocks until
// Unhang (or until the call's deadline).
func (s *Server) Hang() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hung == nil && !s.stopped {
		s.hung = make(chan struct{})
	}
}

// Unhang releases the calls blocked by Hang.
func (s *Server) Unhang() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hung != nil {
		close(s.hung)
		s.hung = nil
	}
}

// gate blocks while the server hangs.
func (s *Server) gate(ctx context.Context) error {
	s.mu.Lock()
	h := s.hung
	s.mu.Unlock()
	if h == nil {
		return nil
	}
	select {
	case <-h:
		return nil
	case <-ctx.Done():
		return status.FromContextError(ctx.Err()).Err()
	}
}

// DropSubscriptions ends every live subscription with an Unavailable error,
// as a node does when it drops its subscribers, and returns how many it
// dropped.
func (s *Server) DropSubscriptions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.subs)
	for drop := range s.subs {
		close(drop)
		delete(s.subs, drop)
	}
	return n
}

// Subscriptions returns how many subscriptions are live.
func (s *Server) Subscriptions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.subs)
}

func (s *Server) addSub(desc string) chan struct{} {
	drop := make(chan struct{})
	s.mu.Lock()
	s.subs[drop] = desc
	s.mu.Unlock()
	return drop
}

func (s *Server) removeSub(drop chan struct{}) {
	s.mu.Lock()
	delete(s.subs, drop)
	s.mu.Unlock()
}

// InjectAppendFaults makes the next len(faults) appends fail, in order.
func (s *Server) InjectAppendFaults(faults ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, faults...)
}

func (s *Server) nextFault() Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.faults) == 0 {
		return 0
	}
	f := s.faults[0]
	s.faults = s.faults[1:]
	return f
}

// ForgetRecentIDs empties the idempotency cache, as a node restart does:
// afterwards a retried append with expected version any writes duplicates.
func (s *Server) ForgetRecentIDs() {
	s.log.mu.Lock()
	defer s.log.mu.Unlock()
	s.log.ids.reset()
}

// errDropped is the status of a subscription ended by DropSubscriptions.
var errDropped = status.Error(codes.Unavailable, "esdbtest: subscription dropped by the server")

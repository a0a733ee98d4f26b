// Package api is turnstile's HTTP edge: the REST resources, Server-Sent
// Events notifications, the JSON-RPC 2.0 compatibility endpoint, bearer
// auth (roles and workspace scopes), request limits, the OpenAPI document, and the one place where errors
// become HTTP statuses. Handlers decode, call one core function, and map
// the error.
package api

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5"

	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
	"turnstile/internal/fanout"
	"turnstile/internal/serverid"
	"turnstile/projections"
)

// Config wires a Server.
type Config struct {
	Engine    *engine.Engine
	Projector *projections.Projector
	Store     eventstore.Store
	// Token is the configured admin token (the bootstrap credential, named
	// BootstrapName); named credentials live in the store's credential
	// stream.
	Token string
	// Credentials, when nil, is a CredentialStore over Store.
	Credentials *CredentialStore
	Logger      *slog.Logger
	// Metrics; nil creates a fresh set.
	Metrics *Metrics
	// ProjectionWait bounds how long an event stream resumed from a
	// Last-Event-ID waits for the read models to reach it before calling it
	// beyond the log (default 2s). Commands never wait for the read models:
	// their answers carry a position for ?after= (after.go).
	ProjectionWait time.Duration
	// CommandTimeout bounds every command, including the wait for the turn's
	// lock behind other commands (default 10s): a store outage answers 503
	// in bounded time instead of queueing requests.
	CommandTimeout time.Duration
	// AfterWait bounds a read's wait for ?after= (default and at most
	// MaxAfterWait).
	AfterWait time.Duration
	// SSEBuffer is how many events an SSE client may fall behind the live
	// stream before it is cut off as a slow consumer (default 8192).
	SSEBuffer int
	// SSESlowGrace is how long a client cut off as slow has to read what is
	// queued for it and the close reason (default 5s).
	SSESlowGrace time.Duration
	// SSEWriteTimeout bounds one write to an event stream (SSE or the
	// JSON-RPC WebSocket): a client that reads nothing for this long while
	// the server has something to give it is disconnected, whatever it was
	// reading (its catch-up from the store, its turn's last frames), and
	// so is what the stream holds for it (default 30s).
	SSEWriteTimeout time.Duration
	// Version is reported by /healthz.
	Version string
	// Identity answers GET /v1/server/identity, the proof a client asks
	// for before it sends a credential (internal/serverid); nil answers
	// 404.
	Identity *serverid.Identity
	// ClaudeCode configures POST /v1/hooks/claude-code; nil disables it.
	ClaudeCode *domain.ClaudeCodeConfig
	// Explainer answers GET /v1/turns/{id}/explain; nil answers 503.
	Explainer Explainer
	// MaxOpenTurns bounds the turns one credential has open at once, child
	// turns included (default domain.DefaultMaxOpenTurns; negative: no
	// bound). A start past it is a 429 quota_exceeded.
	MaxOpenTurns int
	// MaxHeldBytes bounds the stored size of the events of one credential's
	// open turns (default domain.DefaultMaxHeldBytes; negative: no bound).
	// A new tool call in one of its turns past it is a 429 quota_exceeded.
	MaxHeldBytes int
	// MaxBodyMemory bounds the bytes of request bodies held at once, over
	// every request in flight (default DefaultMaxBodyMemory; negative: no
	// bound). A request past it is a 503 server_busy (a Claude Code
	// PreToolUse: a deny).
	MaxBodyMemory int64
	// MaxRequests bounds the requests one credential has in flight at once,
	// event streams, JSON-RPC sockets, waits and running commands included
	// (default domain.DefaultMaxRequests; negative: no bound). A request
	// past it is a 429 quota_exceeded (a Claude Code PreToolUse: a deny).
	MaxRequests int
	// MaxCommands bounds the commands (POST /exec) one credential has
	// running or being answered at once (default domain.DefaultMaxCommands;
	// negative: no bound); past it a 429 quota_exceeded.
	MaxCommands int
	// EgressProxyURL, when set, returns a turn's egress proxy URL with its
	// credential for the principal by (GET /v1/turns/{turn_id}/egress),
	// whose connections through it are recorded as by's, and which lapses
	// with by's credential credID; nil: no shared proxy.
	EgressProxyURL func(turnID string, by domain.Actor, credID string) string
}

// Server serves the API.
type Server struct {
	cfg     Config
	log     *slog.Logger
	metrics *Metrics
	creds   *CredentialStore
	// ready is set once the projector has caught up with the store.
	ready atomic.Bool
	// draining is set when shutdown starts: long polls and streams end.
	draining chan struct{}
	drained  atomic.Bool
	// bodies bounds the request bodies held at once (nil: no bound).
	bodies *bodyBudget
	// folds are the slots of turns folded from their streams (folds.go).
	folds *foldSlots
	// ccHints remembers each Claude Code session's latest turn number.
	ccHints ccHints
	// sessions are the console's signed-in sessions (ui.go).
	sessions sessions
	// fan feeds every SSE client from one subscription (sse.go); started
	// by the first stream.
	fan     *fanout.Broadcaster
	fanOnce sync.Once
	// quota serialises each principal's turn starts (quota.go).
	quota startQuota
	// inflight counts each principal's requests in flight (inflight.go).
	inflight inflight
	// lists are the slots of pending-approval lists built at once (folds.go).
	lists *foldSlots
}

// New returns a server; call SetReady once the projector has caught up.
func New(cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Metrics == nil {
		cfg.Metrics = NewMetrics()
	}
	if cfg.ProjectionWait <= 0 {
		cfg.ProjectionWait = 2 * time.Second
	}
	if cfg.SSEWriteTimeout <= 0 {
		cfg.SSEWriteTimeout = 30 * time.Second
	}
	if cfg.SSESlowGrace <= 0 {
		cfg.SSESlowGrace = 5 * time.Second
	}
	if cfg.MaxOpenTurns == 0 {
		cfg.MaxOpenTurns = domain.DefaultMaxOpenTurns
	}
	if cfg.MaxHeldBytes == 0 {
		cfg.MaxHeldBytes = domain.DefaultMaxHeldBytes
	}
	if cfg.CommandTimeout <= 0 {
		cfg.CommandTimeout = 10 * time.Second
	}
	if cfg.Credentials == nil && cfg.Store != nil {
		cfg.Credentials = NewCredentialStore(cfg.Store)
	}
	if cfg.MaxBodyMemory == 0 {
		cfg.MaxBodyMemory = DefaultMaxBodyMemory
	}
	s := &Server{cfg: cfg, log: cfg.Logger, metrics: cfg.Metrics, creds: cfg.Credentials, draining: make(chan struct{}), folds: newFoldSlots(), lists: newSlots(maxLists)}
	s.metrics.Gauge("turnstile_turn_folds_waiting", func() float64 { return float64(s.folds.waiting.Load()) })
	s.metrics.Gauge("turnstile_approval_lists_waiting", func() float64 { return float64(s.lists.waiting.Load()) })
	if cfg.MaxBodyMemory > 0 {
		s.bodies = &bodyBudget{max: cfg.MaxBodyMemory}
		s.metrics.Gauge("turnstile_request_body_bytes_held", func() float64 { return float64(s.bodies.used.Load()) })
	}
	s.metrics.Gauge("turnstile_cached_turns", func() float64 { return float64(cfg.Engine.CachedTurns()) })
	s.metrics.Gauge("turnstile_projection_events_applied", func() float64 { return float64(cfg.Projector.Applied()) })
	return s
}

// Metrics returns the server's metrics.
func (s *Server) Metrics() *Metrics { return s.metrics }

// SetReady marks the read models as caught up.
func (s *Server) SetReady() { s.ready.Store(true) }

// Drain ends long polls and event streams so that a graceful shutdown can
// finish.
func (s *Server) Drain() {
	if s.drained.CompareAndSwap(false, true) {
		close(s.draining)
	}
}

// Handler returns the router. Every route but /healthz and the server's
// identity authenticates, and
// refuses a role that may not perform the route's operation (the table in
// openapi.go) before its handler runs.
func (s *Server) Handler() http.Handler {
	r := chi.NewRouter()
	r.Use(s.observe, s.budgetBodies)
	r.NotFound(func(w http.ResponseWriter, _ *http.Request) { writeError(w, errNotFound) })
	r.MethodNotAllowed(func(w http.ResponseWriter, req *http.Request) {
		// RFC 9110 §15.5.6: a 405 lists the methods the resource allows.
		var allowed []string
		for _, m := range []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"} {
			if r.Match(chi.NewRouteContext(), m, req.URL.Path) {
				allowed = append(allowed, m)
			}
		}
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		writeError(w, errorf(http.StatusMethodNotAllowed, "method_not_allowed", map[string]any{"allowed": allowed}, "%s is not allowed here", req.Method))
	})
	r.Get("/healthz", s.healthz)
	r.Get(serverid.Path, s.serverIdentity)
	s.routeConsole(r)
	r.Group(func(r chi.Router) {
		r.Use(s.auth)
		handle := func(method, path string, h http.HandlerFunc) {
			r.With(s.allow(operationOf(method, path))).Method(method, path, h)
		}
		handle("GET", "/readyz", s.readyz)
		handle("GET", "/metrics", s.metricsHandler)
		handle("GET", "/openapi.json", s.openapi)
		handle("POST", "/rpc", s.rpc)
		handle("GET", "/rpc", s.rpcSocket)
		handle("POST", "/v1/hooks/claude-code", s.claudeCodeHookHandler)
		handle("GET", "/v1/events", s.events)
		handle("POST", "/v1/turns", s.startTurn)
		handle("GET", "/v1/turns", s.listTurns)
		handle("GET", "/v1/turns/{turn_id}", s.getTurn)
		handle("POST", "/v1/turns/{turn_id}/decisions", s.decide)
		handle("POST", "/v1/turns/{turn_id}/exec", s.exec)
		handle("POST", "/v1/turns/{turn_id}/permissions", s.changePermissions)
		handle("POST", "/v1/turns/{turn_id}/complete", s.endTurn("completed"))
		handle("POST", "/v1/turns/{turn_id}/interrupt", s.endTurn("interrupted"))
		handle("POST", "/v1/turns/{turn_id}/fail", s.endTurn("failed"))
		handle("GET", "/v1/turns/{turn_id}/events", s.turnEvents)
		handle("GET", "/v1/turns/{turn_id}/timeline", s.timeline)
		handle("GET", "/v1/turns/{turn_id}/audit", s.audit)
		handle("GET", "/v1/turns/{turn_id}/verify", s.verifyTurn)
		handle("GET", "/v1/audit/verify", s.verifyAll)
		handle("GET", "/v1/turns/{turn_id}/explain", s.explainTurn)
		handle("GET", "/v1/turns/{turn_id}/egress", s.turnEgress)
		handle("GET", "/v1/approvals", s.listApprovals)
		handle("GET", "/v1/approvals/{request_id}", s.getApproval)
		handle("POST", "/v1/approvals/{request_id}/respond", s.respond)
		handle("POST", "/v1/credentials", s.createCredential)
		handle("GET", "/v1/credentials", s.listCredentials)
		handle("POST", "/v1/credentials/{name}/revoke", s.revokeCredential)
	})
	return r
}

// statusWriter remembers the status written.
type statusWriter struct {
	http.ResponseWriter
	status int
	// body is the request's, when it has one: an answer written before
	// it was read to its end closes the connection (closeIfUnread).
	body *eofBody
	// wrote is set once the answer's header is written.
	wrote bool
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.closeIfUnread()
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.closeIfUnread()
	return w.ResponseWriter.Write(b)
}

// closeIfUnread, before the answer's header is written, makes net/http
// close the connection after it when the request's body was not read to
// its end: net/http would otherwise read what is left of a small one
// itself, after the handler returned and its bounds were given back, for
// up to the read timeout, and a client that sends no body held every
// connection so (the sixty-seventh review).
func (w *statusWriter) closeIfUnread() {
	if w.wrote {
		return
	}
	w.wrote = true
	if w.body != nil && !w.body.eof.Load() {
		// "Connection: close" alone does not stop net/http's read; a
		// read deadline already past makes it fail at once, and the
		// connection is closed after the answer.
		w.Header().Set("Connection", "close")
		_ = http.NewResponseController(w.ResponseWriter).SetReadDeadline(time.Now())
	}
}

// eofBody is a request body that notes when it was read to its end.
type eofBody struct {
	io.ReadCloser
	eof atomic.Bool
}

func (b *eofBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.eof.Store(true)
	}
	return n, err
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// observe logs and counts every request by route pattern.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		if r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0 {
			sw.body = &eofBody{ReadCloser: r.Body}
			r.Body = sw.body
		}
		next.ServeHTTP(sw, r)
		sw.closeIfUnread() // an answer the handler left empty: net/http writes it after this
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		route := "unmatched"
		if rc := chi.RouteContext(r.Context()); rc != nil && rc.RoutePattern() != "" {
			route = rc.RoutePattern()
		}
		s.metrics.Request(r.Method+" "+route, sw.status)
		level := slog.LevelDebug
		if sw.status >= 500 {
			level = slog.LevelWarn
		}
		s.log.Log(r.Context(), level, "request", "method", r.Method, "route", route, "status", sw.status, "duration", time.Since(start))
	})
}

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "version": s.cfg.Version})
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.cfg.Store.Ping(ctx); err != nil {
		writeError(w, errorf(http.StatusServiceUnavailable, "store_unavailable", nil, "the event store is unreachable: %v", err))
		return
	}
	if !s.ready.Load() {
		writeError(w, errorf(http.StatusServiceUnavailable, "not_ready", nil, "the read models are still being rebuilt"))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "position": s.cfg.Projector.Position().String()})
}

// metricsHandler serves /metrics to a credential of every workspace: its
// counts are every workspace's (decisions, connections, turns cached), so a
// credential limited to some would learn the others' activity from them.
func (s *Server) metricsHandler(w http.ResponseWriter, r *http.Request) {
	if err := principalOf(r).AuthorizeOver(domain.OpMetricsRead, nil); err != nil {
		writeError(w, err)
		return
	}
	s.metrics.Handler().ServeHTTP(w, r)
}

// execute runs one command with the command timeout.
func (s *Server) execute(r *http.Request, turnID string, cmd turn.Command) (engine.Result, error) {
	if c, ok := cmd.(*turn.StartTurn); ok {
		return s.startWithinQuota(r, turnID, c)
	}
	return s.run(r, turnID, cmd)
}

// run executes cmd within the command bound.
func (s *Server) run(r *http.Request, turnID string, cmd turn.Command) (engine.Result, error) {
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.CommandTimeout)
	defer cancel()
	return s.cfg.Engine.Execute(ctx, turnID, cmd)
}

package egress

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"turnstile/domain"
	"turnstile/domain/turn"
	"turnstile/sandbox"
)

// Verdict is a Judge's answer for one connection (or one plain HTTP
// request).
type Verdict struct {
	// Allow is false for a denial; the zero Verdict denies.
	Allow bool
	// Code is the refusal code or the decision reason (host_denied,
	// policy_denies_action, user_denied, expired…).
	Code string
	// Rule names what decided: the rule or policy field, or a message
	// naming the rule for a refusal.
	Rule string
	// Once marks an allow that covers this connection only (allow_once):
	// it is not reused for later connections to the same origin.
	Once bool
}

// Judge decides connections for turns. The engine-backed judge
// (EngineJudge) records every decision as an event on the turn and goes
// through the turn's grants and approvals.
type Judge interface {
	// Snapshot returns the turn's current snapshot and its version: the
	// version changes whenever the snapshot does (and whenever a grant may
	// have been taken away); an ended turn is an error.
	Snapshot(ctx context.Context, turnID string) (*domain.TurnExecutionSecuritySnapshot, int64, error)
	// Decide decides a request for rawURL (an origin for CONNECT) with
	// method under the turn's policy; where the policy asks, it waits for
	// the answer (bounded by ctx).
	Decide(ctx context.Context, turnID, rawURL, method string) (Verdict, error)
	// Record records a summary of the connections carried to one origin
	// (id names it uniquely).
	Record(ctx context.Context, turnID, id string, t turn.EgressTraffic) error
}

// Refuser is a Judge that records the refusals the proxy makes itself,
// before or past the judge's decision (EngineJudge).
type Refuser interface {
	Refuse(ctx context.Context, turnID, rawURL, method string, v Verdict) error
}

// refused records v, a refusal the proxy made itself, where the judge
// records refusals (Refuser); a judge that does not is left as it is.
func (p *Proxy) refused(ctx context.Context, turnID, rawURL, method string, v Verdict) {
	if r, ok := p.judge.(Refuser); ok {
		_ = r.Refuse(ctx, turnID, rawURL, method, v) // the refusal stands either way
	}
}

// Resolver looks names up (net.DefaultResolver, or one pointed at a
// chosen DNS server).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Proxy is turnstile's egress proxy: an HTTP forward proxy (CONNECT and
// plain HTTP) that attributes each connection to a turn and judges it
// against that turn's current snapshot, on the host name and on every
// address the name resolves to, at connect time. The name is resolved
// once; the connection goes to an address that was checked (no second
// lookup: DNS rebinding cannot swap it).
type Proxy struct {
	judge    Judge
	resolver Resolver
	// key derives the per-turn credentials; drawn at random by NewProxy and
	// never leaves the process.
	key []byte
	// DialTimeout bounds one connect.
	DialTimeout time.Duration
	// AskWait bounds how long a connection is held while its approval
	// request is open.
	AskWait time.Duration
	// Valid, when set, checks that the principal a connection is made for
	// (ActorOf: the one a ProxyURLFor was given to, or whose command
	// AttachAs serves) still holds its credential: a revoked one's new
	// connections are refused credential_revoked, and the watch closes
	// those it has open. The proxy's own (Actor) are not checked. credID
	// is the id of the credential a ProxyURLFor was given on ("" for a
	// command's connections, or the admin token's): a URL lapses with
	// that credential, not with a name a new credential may take again.
	Valid func(ctx context.Context, by domain.Actor, credID string) error
	// Recheck is how often open connections are judged again against the
	// turn's snapshot (a narrowing closes what it denies).
	Recheck time.Duration
	// IdleTimeout closes a client's keep-alive connection to the proxy
	// that carries no request for that long (its servers' IdleTimeout): a
	// command cannot hold the server's descriptors with idle connections.
	IdleTimeout time.Duration
	// MaxConnsPerListener bounds the connections one listener (a
	// command's, or Limit's) holds open at once, MaxConns those of all of
	// them; MaxHeaderBytes the header block of a request. Zero: the
	// defaults (limit.go).
	MaxConnsPerListener, MaxConns, MaxHeaderBytes int
	// Own are the server's own listeners (set before serving): a
	// connection to one of their ports on a local address is refused
	// whatever the rules, for a command carried to the gateway's API
	// would run what its credential may outside its sandbox (the
	// seventy-seventh review; own.go).
	Own       []netip.AddrPort
	slotsOnce sync.Once
	slots     chan struct{}
	// byPrincipal holds the slots of each principal with a command's
	// listener open (guarded by mu; limit.go).
	byPrincipal map[string]*principalSlots

	mu sync.Mutex
	// open holds the open proxied connections by turn (guarded by mu).
	open map[string]map[*tunnel]struct{}
	// conns are the client connections that served each turn's requests,
	// and connTurns the turns of each (noteConn; guarded by mu).
	conns     map[string]map[net.Conn]struct{}
	connTurns map[net.Conn]map[string]struct{}
	// ending are the turns Drain began ending, and when (endingTurn).
	ending map[string]time.Time
	// batched records, per turn, the snapshot version and the origins
	// (with method, for each principal) already allowed under it: one
	// decision event each (guarded by mu). A new version starts an empty
	// set; the sweeper drops those of ended turns (batch.go).
	batched  map[string]*batch
	sweeping bool
	// SweepEvery is how often the batches of ended turns are dropped.
	SweepEvery time.Duration
	// swept, when set, is called after each sweep (tests wait on it).
	swept func()
	// traffic accumulates per turn and origin what has not been recorded
	// yet (guarded by mu); flushing marks the turns with a flush scheduled.
	traffic  map[string]map[trafficKey]*turn.EgressTraffic
	flushing map[string]bool
	// FlushEvery is how long traffic accumulates before it is recorded:
	// one egress.traffic event per origin per window.
	FlushEvery time.Duration
	// instance and seq name the summaries (see turn.RecordEgress).
	instance string
	seq      atomic.Int64
	// rechecked, when set, is called after open connections were judged
	// again at a version (tests wait on it instead of sleeping).
	rechecked func(turnID string, version int64)
	// accounted, when set, is called after a finished connection was
	// added to its origin's traffic (tests wait on it).
	accounted func(turnID string)
}

type batch struct {
	version int64
	allowed map[string]bool // principal, credential and "METHOD origin"
}

// tunnel is one open proxied connection: a CONNECT tunnel, or a plain
// HTTP request being forwarded (client nil: closing up ends it).
type tunnel struct {
	turnID, origin, host string
	// method is the plain request's method; connect marks a tunnel (whose
	// methods cannot be seen).
	method  string
	connect bool
	// by is the principal the connection is made for (ActorOf), and cred
	// the id of the credential its proxy URL was given on (CredentialOf).
	by   domain.Actor
	cred string
	// up and down count the bytes carried each way; narrowed is set when
	// a narrowing closed the connection.
	up64, down64 atomic.Int64
	// upDone and downDone are the bytes already added to the traffic
	// (guarded by the proxy's mu): a long connection's are added every
	// window while it is open, the rest when it closes.
	upDone, downDone int64
	narrowed         atomic.Bool
	port             int
	addr             netip.Addr
	client, up       net.Conn
	closed           atomic.Bool
	// finished is closed once the connection's handler has returned and
	// its bytes were accounted (Drain waits for it).
	finished chan struct{}
	// kick, for a plain request, ends a write of its answer to a client
	// that does not read it (a write deadline in the past): closing the
	// upstream alone left the handler blocked there, past its turn's end
	// and a revocation (the hundred-and-thirty-first review).
	kick atomic.Pointer[func()]
}

func (t *tunnel) close() {
	if t.closed.CompareAndSwap(false, true) {
		if t.client != nil {
			t.client.Close()
		}
		if t.up != nil {
			t.up.Close()
		}
		if k := t.kick.Load(); k != nil {
			(*k)()
		}
	}
}

// allowedBy reports whether the snapshot still allows what the connection
// carries: its address (CheckAddr) and its method. A tunnel's methods
// cannot be seen, so a network limited to some methods allows none (as it
// refuses a new CONNECT).
func (t *tunnel) allowedBy(s *domain.TurnExecutionSecuritySnapshot) bool {
	if sandbox.CheckAddr(s, t.host, t.addr, t.port) != nil {
		return false
	}
	if t.connect {
		return s.Network.MethodAllowed("POST")
	}
	return s.Network.MethodAllowed(t.method)
}

// namedMethods is domain.NamedMethods of r's headers and query.
func namedMethods(r *http.Request) (names, methods []string) {
	var q url.Values
	if r.URL != nil {
		q = r.URL.Query()
	}
	return domain.NamedMethods(r.Header, q)
}

// NewProxy returns a proxy judging with j and resolving with r.
func NewProxy(j Judge, r Resolver) *Proxy {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		panic("egress: no randomness for the credential key: " + err.Error())
	}
	return &Proxy{judge: j, resolver: r, key: key, DialTimeout: 10 * time.Second, AskWait: 60 * time.Second, IdleTimeout: 2 * time.Minute,
		Recheck: 250 * time.Millisecond, open: map[string]map[*tunnel]struct{}{}, ending: map[string]time.Time{}, batched: map[string]*batch{},
		traffic: map[string]map[trafficKey]*turn.EgressTraffic{}, flushing: map[string]bool{}, FlushEvery: 2 * time.Second, SweepEvery: 30 * time.Second,
		instance: randomHex(6)}
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// Credential returns the turn's proxy password: an HMAC of the turn id
// under a key drawn when the proxy started. It names one turn only (it
// cannot be turned into another turn's) and is not a server credential:
// it opens nothing but this proxy, for this turn.
func (p *Proxy) Credential(turnID string) string {
	m := hmac.New(sha256.New, p.key)
	m.Write([]byte("turnstile-egress\x00" + turnID))
	return hex.EncodeToString(m.Sum(nil))
}

// ProxyURL is the proxy URL for a turn on the proxy listening at addr
// (host:port): http://<turn>:<credential>@addr. Its connections are
// recorded as the proxy's own (Actor), charged to the turn's starter.
func (p *Proxy) ProxyURL(addr, turnID string) string {
	u := url.URL{Scheme: "http", User: url.UserPassword(turnID, p.Credential(turnID)), Host: addr}
	return u.String()
}

// CredentialFor is the turn's proxy password for connections made for the
// principal by: an HMAC of the turn id and the principal under the
// proxy's key, so that the holder of one principal's URL cannot have its
// connections recorded for another.
func (p *Proxy) CredentialFor(turnID string, by domain.Actor, credID string) string {
	m := hmac.New(sha256.New, p.key)
	m.Write([]byte("turnstile-egress\x00" + turnID + "\x00" + string(by.Role) + "\x00" + by.Name + "\x00" + credID))
	return hex.EncodeToString(m.Sum(nil))
}

// ProxyURLFor is the proxy URL for a turn given to the principal by:
// http://<turn>:<principal>.<credential>@addr, the principal base64url
// encoded. Its connections' decisions are recorded as by's, and so held
// against by's byte quota, not the turn's starter's: a runtime may decide
// in a turn another credential of its workspace started, and take that
// turn's proxy URL.
//
// credID, the id of the credential by holds ("" for the admin token), is
// named too: the URL lapses when that credential is revoked (Valid), even
// when a new credential takes its name again.
func (p *Proxy) ProxyURLFor(addr, turnID string, by domain.Actor, credID string) string {
	who := base64.RawURLEncoding.EncodeToString([]byte(string(by.Role) + "\x00" + by.Name + "\x00" + credID))
	u := url.URL{Scheme: "http", User: url.UserPassword(turnID, who+"."+p.CredentialFor(turnID, by, credID)), Host: addr}
	return u.String()
}

// valid checks by with Valid (nil for the proxy's own connections, or
// without Valid).
func (p *Proxy) valid(ctx context.Context, by domain.Actor, credID string) error {
	if p.Valid == nil || by == Actor {
		return nil
	}
	return p.Valid(ctx, by, credID)
}

// revoked names the principals of ts whose credential Valid refuses (each
// asked once).
func (p *Proxy) revoked(ctx context.Context, ts []*tunnel) map[holder]bool {
	var out map[holder]bool
	asked := map[holder]bool{}
	for _, t := range ts {
		h := holder{t.by, t.cred}
		if asked[h] {
			continue
		}
		asked[h] = true
		if p.valid(ctx, t.by, t.cred) != nil {
			if out == nil {
				out = map[holder]bool{}
			}
			out[h] = true
		}
	}
	return out
}

// holder is a principal and the credential its proxy URL was given on.
type holder struct {
	by   domain.Actor
	cred string
}

// credKey keys the id of the credential a connection's proxy URL was
// given on in its request's context (withCredential).
type credKey struct{}

func withCredential(ctx context.Context, credID string) context.Context {
	return context.WithValue(ctx, credKey{}, credID)
}

// CredentialOf is the id of the credential ctx's connection's proxy URL
// was given on ("" for none).
func CredentialOf(ctx context.Context) string {
	id, _ := ctx.Value(credKey{}).(string)
	return id
}

// actorKey keys the principal a connection is made for in its request's
// context (WithActor).
type actorKey struct{}

// WithActor returns ctx naming by as the principal its connection is made
// for.
func WithActor(ctx context.Context, by domain.Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, by)
}

// ActorOf is the principal ctx's connection is made for, or Actor, the
// proxy itself, when none is named.
func ActorOf(ctx context.Context) domain.Actor {
	if by, ok := ctx.Value(actorKey{}).(domain.Actor); ok && by.Name != "" && by.Role != "" {
		return by
	}
	return Actor
}

// Handler serves the proxy on a shared listener: each request names its
// turn with Proxy-Authorization (Basic, the turn id and its credential).
func (p *Proxy) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		turnID, by, credID, ok := p.authenticate(r.Header.Get("Proxy-Authorization"))
		if !ok {
			w.Header().Set("Proxy-Authenticate", `Basic realm="turnstile egress"`)
			// A connection without credentials keeps no slot of the proxy.
			w.Header().Set("Connection", "close")
			http.Error(w, "turnstile egress: proxy credentials required (the turn id and its credential)", http.StatusProxyAuthRequired)
			return
		}
		p.serve(w, r.WithContext(withCredential(WithActor(r.Context(), by), credID)), turnID)
	})
}

// TurnHandler serves the proxy for one turn (a listener only that turn's
// commands can reach): no credential is needed or read.
func (p *Proxy) TurnHandler(turnID string) http.Handler {
	return p.TurnHandlerAs(turnID, domain.Actor{})
}

// TurnHandlerAs is TurnHandler for the commands of principal by (whose
// /exec runs them): their connections are recorded as by's.
func (p *Proxy) TurnHandlerAs(turnID string, by domain.Actor) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.serve(w, r.WithContext(WithActor(r.Context(), by)), turnID)
	})
}

// authenticate reads the turn, the principal (zero for a ProxyURL
// credential, which names none) and its credential's id of a
// Proxy-Authorization.
func (p *Proxy) authenticate(h string) (turnID string, by domain.Actor, credID string, ok bool) {
	raw, ok := strings.CutPrefix(h, "Basic ")
	if !ok {
		return "", domain.Actor{}, "", false
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(raw))
	if err != nil {
		return "", domain.Actor{}, "", false
	}
	// A turn id may hold ':' (claude-code:<hash>:<n>); a credential holds
	// none: the turn id ends at the last one.
	i := strings.LastIndexByte(string(b), ':')
	if i <= 0 {
		return "", domain.Actor{}, "", false
	}
	turnID, cred := string(b[:i]), string(b[i+1:])
	if who, mac, named := strings.Cut(cred, "."); named {
		w, err := base64.RawURLEncoding.DecodeString(who)
		parts := strings.Split(string(w), "\x00")
		if err != nil || len(parts) != 3 || parts[0] == "" || parts[1] == "" {
			return "", domain.Actor{}, "", false
		}
		by := domain.Actor{Name: parts[1], Role: domain.Role(parts[0])}
		return turnID, by, parts[2], hmac.Equal([]byte(mac), []byte(p.CredentialFor(turnID, by, parts[2])))
	}
	want := p.Credential(turnID)
	return turnID, domain.Actor{}, "", hmac.Equal([]byte(cred), []byte(want))
}

// refuseHeader names the rule of a refusal on the 403 answer.
const (
	HeaderRefusal = "X-Turnstile-Refusal"
	HeaderRule    = "X-Turnstile-Rule"
)

func deny(w http.ResponseWriter, v Verdict) {
	w.Header().Set(HeaderRefusal, v.Code)
	w.Header().Set(HeaderRule, strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return ' '
		}
		return r
	}, v.Rule))
	// A refusal that says the turn or its credential is done ends its
	// connection: kept alive, such refused requests held the shared
	// listener's slots after their turn ended (the hundred-and-thirty-third
	// review). A policy's refusal keeps it (the next request on it is
	// judged on its own).
	switch v.Code {
	case "egress_error", "credential_revoked", "narrowed":
		w.Header().Set("Connection", "close")
	}
	http.Error(w, "turnstile egress: refused ("+v.Code+"): "+v.Rule, http.StatusForbidden)
}

func verdictOf(err error) Verdict {
	var rf *sandbox.Refusal
	if errors.As(err, &rf) {
		return Verdict{Code: rf.Code, Rule: rf.Message}
	}
	return Verdict{Code: "egress_error", Rule: err.Error()}
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request, turnID string) {
	scheme, host, port, ok := target(r)
	if !ok {
		deny(w, Verdict{Code: sandbox.CodeNetworkInvalidURL, Rule: "the proxy needs an absolute http URL or CONNECT host:port"})
		return
	}
	origin := scheme + "://" + joinHost(host, port)
	p.noteConn(turnID, r)
	by, credID := ActorOf(r.Context()), CredentialOf(r.Context())
	if err := p.valid(r.Context(), by, credID); err != nil {
		deny(w, Verdict{Code: "credential_revoked", Rule: err.Error()})
		return
	}
	s, _, err := p.judge.Snapshot(r.Context(), turnID)
	if err != nil {
		deny(w, verdictOf(err))
		return
	}
	names, methods := namedMethods(r)
	for i, m := range methods {
		if !s.Network.MethodAllowed(m) {
			v := Verdict{Code: "method_not_allowed", Rule: names[i] + " names " + m + ", which the network does not allow"}
			p.refused(r.Context(), turnID, origin+"/", m, v)
			deny(w, v)
			return
		}
	}
	if r.Method == http.MethodConnect {
		// The decision names a tunnel for what it is (method CONNECT): the
		// method inside TLS cannot be seen, so a person asked, and a
		// grant, are for any method to that origin, not for a GET.
		if !s.Network.MethodAllowed("POST") {
			// A limited network allows GET/HEAD/OPTIONS only; inside a TLS
			// tunnel the method cannot be seen (TLS interception is not
			// implemented), so CONNECT is refused.
			v := Verdict{Code: "method_not_allowed", Rule: "network limited to GET, HEAD and OPTIONS: CONNECT (TLS) is refused, TLS interception is not available"}
			p.refused(r.Context(), turnID, origin+"/", r.Method, v)
			deny(w, v)
			return
		}
	}
	v, err := p.decide(r.Context(), turnID, origin+"/", r.Method)
	if err != nil {
		deny(w, verdictOf(err))
		return
	}
	if !v.Allow {
		deny(w, v)
		return
	}
	up, addr, err := p.dial(r.Context(), turnID, host, port)
	if err != nil {
		v := verdictOf(err)
		var ref *sandbox.Refusal
		if errors.As(err, &ref) && ref.Code != sandbox.CodeHostUnresolved {
			// An address the name resolves to is refused (an allowed
			// name pointed at 169.254.169.254): recorded as the judge's
			// refusals are (the sixtieth review).
			p.refused(r.Context(), turnID, origin+"/", r.Method, v)
		}
		deny(w, v)
		return
	}
	t := &tunnel{turnID: turnID, origin: origin, host: host, port: port, addr: addr, up: up,
		method: r.Method, connect: r.Method == http.MethodConnect, by: by, cred: credID,
		finished: make(chan struct{})}
	defer close(t.finished)
	defer p.account(t)
	// The listener's end (a command's) ends the connection.
	defer context.AfterFunc(r.Context(), t.close)()
	if r.Method == http.MethodConnect {
		p.connect(w, t)
		return
	}
	p.forward(w, r, t)
}

// decide asks the judge once per (turn, snapshot version, origin, method):
// later allowed connections to the same origin under the same snapshot
// reuse the recorded decision (one event, not one per connection).
func (p *Proxy) decide(ctx context.Context, turnID, rawURL, method string) (Verdict, error) {
	_, ver, err := p.judge.Snapshot(ctx, turnID)
	if err != nil {
		p.mu.Lock()
		delete(p.batched, turnID) // an ended turn allows nothing again
		p.mu.Unlock()
		return Verdict{}, err
	}
	// Each principal's (and credential's) first connection to an origin
	// is decided, and recorded, as its own: a decision made for another
	// is not reused.
	k := batchPrefix(ActorOf(ctx), CredentialOf(ctx)) + method + " " + rawURL
	p.mu.Lock()
	b := p.batched[turnID]
	hit := b != nil && b.version == ver && b.allowed[k]
	p.mu.Unlock()
	if hit {
		return Verdict{Allow: true, Code: "batched"}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, p.AskWait)
	defer cancel()
	v, err := p.judge.Decide(ctx, turnID, rawURL, method)
	if err != nil || !v.Allow || v.Once {
		return v, err
	}
	// Kept under the version read before deciding: if the snapshot changed
	// meanwhile, the entry never matches.
	p.mu.Lock()
	p.remember(turnID, ver, k)
	p.mu.Unlock()
	return v, nil
}

// dial resolves host once, checks every address against the turn's
// current snapshot (CheckAddr) and connects to the first checked address
// that answers. A name with any refused address is refused as a whole.
func (p *Proxy) dial(ctx context.Context, turnID, host string, port int) (net.Conn, netip.Addr, error) {
	s, _, err := p.judge.Snapshot(ctx, turnID)
	if err != nil {
		return nil, netip.Addr{}, err
	}
	var addrs []netip.Addr
	if _, lit, ok := domain.ParseHost(host, strings.Contains(host, ":")); ok && lit.IsValid() {
		addrs = []netip.Addr{lit}
	} else {
		lctx, cancel := context.WithTimeout(ctx, sandbox.DefaultResolveTimeout)
		addrs, err = p.resolver.LookupNetIP(lctx, "ip", host)
		cancel()
		if err != nil || len(addrs) == 0 {
			return nil, netip.Addr{}, &sandbox.Refusal{Code: sandbox.CodeHostUnresolved, Path: host, Message: "cannot resolve " + host}
		}
	}
	for _, a := range addrs {
		if err := sandbox.CheckAddr(s, host, a, port); err != nil {
			return nil, netip.Addr{}, err
		}
		if err := p.ownRefusal(host, a, port); err != nil {
			return nil, netip.Addr{}, err
		}
	}
	d := net.Dialer{Timeout: p.DialTimeout}
	var last error
	for _, a := range addrs {
		c, err := d.DialContext(ctx, "tcp", netip.AddrPortFrom(a.Unmap(), uint16(port)).String())
		if err == nil {
			return c, a, nil
		}
		last = err
	}
	return nil, netip.Addr{}, last
}

// connect answers 200 and splices the tunnel.
func (p *Proxy) connect(w http.ResponseWriter, t *tunnel) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		t.up.Close()
		http.Error(w, "turnstile egress: cannot hijack", http.StatusInternalServerError)
		return
	}
	c, brw, err := hj.Hijack()
	if err != nil {
		t.up.Close()
		return
	}
	t.client = c
	admitted := p.admit(t)
	defer p.untrack(t)
	if !admitted {
		c.Write([]byte("HTTP/1.1 403 Forbidden\r\n" + HeaderRefusal + ": narrowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
		t.close()
		return
	}
	if _, err := c.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
		t.close()
		return
	}
	watch := newRetryWatch(t.up)
	status := newStatusSniff(countingWriter{c, &t.down64})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var src io.Reader = c
		if n := brw.Reader.Buffered(); n > 0 {
			src = io.MultiReader(io.LimitReader(brw.Reader, int64(n)), c)
		}
		// The TLS server name the command asks for is the CONNECT host's
		// (sni.go), or nothing reaches the address.
		br := bufio.NewReaderSize(src, tunnelPeek)
		up := countingWriter{t.up, &t.up64}
		name, hello, ok := helloName(br)
		switch {
		case !ok:
			p.refusedTunnel(t, "the tunnel's first bytes are no TLS ClientHello that can be read to its end")
			return
		case name != "" && !sameHost(name, t.host):
			p.refusedTunnel(t, "the TLS ClientHello names "+name+", not the tunnel's host (SNI fronting)")
			return
		case len(hello) > 0 && name == "" && !isIPLiteral(t.host):
			// No server name for a tunnel to a host name: the address
			// picks a site by the Host inside TLS then, which is not seen
			// (the fifty-ninth review). Every client names the server it
			// connects to by name; a tunnel to an IP literal may not.
			p.refusedTunnel(t, "the TLS ClientHello names no server, and the tunnel's host is a name ("+t.host+")")
			return
		case len(hello) > 0 && helloReadsAsRequest(hello):
			p.refusedTunnel(t, "the TLS ClientHello's bytes read as a plain HTTP request to a server that skips control bytes before one")
			return
		case len(hello) == 0 && !isIPLiteral(t.host) && sslv2Hello(br):
			p.refusedTunnel(t, "the tunnel begins with an SSLv2-format ClientHello, which names no server, and the tunnel's host is a name ("+t.host+")")
			return
		case len(hello) == 0 && plainHTTP(br, up):
			// tunnelhttp.go: a WebSocket handshake to the tunnel's own
			// host only, and no request after it.
			block, ok := upgradeRequest(br, t.host, t.port)
			if !ok {
				p.refusedTunnel(t, "the tunnel carries a plain HTTP request: send it to the proxy, which judges each one")
				return
			}
			status.expect(wsAccept(block))
			if _, err := up.Write(block); err != nil {
				t.close()
				return
			}
			// Once the address switched protocols (101), what follows is
			// WebSocket frames, which its server no longer reads as
			// requests: a client frame's header bytes are C1 controls a
			// request line's reader skips, and judged as one they kept
			// the tunnel waiting for a line's end (the ninetieth review).
			// A refused upgrade leaves a server reading requests: judged.
			if !<-status.switched && plainHTTP(br, up) {
				p.refusedTunnel(t, "a plain HTTP request after the tunnel's WebSocket handshake")
				return
			}
		}
		if _, err := up.Write(hello); err != nil {
			t.close()
			return
		}
		if len(hello) > 0 && <-watch.verdict {
			// A retry request: the second hello must name what the
			// first did (hrr.go).
			name2, hello2, ok := secondHello(br)
			if !ok || name2 != name && !(name2 != "" && sameHost(name2, t.host)) {
				t.close()
				return
			}
			if _, err := up.Write(hello2); err != nil {
				t.close()
				return
			}
		}
		io.Copy(up, br)
		if tc, ok := t.up.(*net.TCPConn); ok {
			tc.CloseWrite()
		}
	}()
	io.Copy(status, watch)
	status.end()
	watch.done()
	t.close()
	wg.Wait()
}

// isIPLiteral reports whether host (as a CONNECT names it) is an address.
func isIPLiteral(host string) bool {
	_, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil
}

// refusedTunnel closes t, refused for what it began to carry after the
// proxy had allowed it, and records the refusal (the summary counts it as
// a connection opened, none of its bytes carried).
func (p *Proxy) refusedTunnel(t *tunnel, why string) {
	t.close()
	ctx := withCredential(WithActor(context.Background(), t.by), t.cred)
	p.refused(ctx, t.turnID, t.origin, http.MethodConnect, Verdict{Code: "tunnel_refused", Rule: why})
}

// hopHeaders are not forwarded.
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// forward sends one plain HTTP request over the checked connection and
// copies the answer back (one request per upstream connection). It is
// tracked like a tunnel while it runs: a narrowing that denies it cuts it,
// and the client's connection is then dropped, not given a response that
// looks complete.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request, t *tunnel) {
	defer t.up.Close()
	rc := http.NewResponseController(w)
	kick := func() {
		// A body the client stops sending blocks the request's copy
		// upstream in a read (the hundred-and-thirty-third review), an
		// answer it stops reading in a write.
		rc.SetReadDeadline(time.Unix(1, 0))
		rc.SetWriteDeadline(time.Unix(1, 0))
	}
	t.kick.Store(&kick)
	if t.closed.Load() {
		kick() // closed before the kick was set
	}
	admitted := p.admit(t)
	defer p.untrack(t)
	if !admitted {
		deny(w, Verdict{Code: "narrowed", Rule: "the turn's snapshot changed while the request was decided, and no longer allows it"})
		return
	}
	defer func() {
		if t.narrowed.Load() {
			panic(http.ErrAbortHandler)
		}
	}()
	out := r.Clone(r.Context())
	out.RequestURI = ""
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	out.Close = true
	// Every byte sent counts, the request line and headers too: under a
	// limited network they are what a command can send (a query, a
	// header), and only the body was counted (the fifty-sixth review).
	if err := out.Write(countingWriter{t.up, &t.up64}); err != nil {
		http.Error(w, "turnstile egress: upstream write: "+err.Error(), http.StatusBadGateway)
		return
	}
	// The upstream's status lines and headers are read within the header
	// bound the proxy takes from a client (net/textproto sets none: an
	// upstream of the agent's sent a 64 MiB header line, which took 439
	// MiB of the server's memory), and count as bytes down (the
	// hundred-and-forty-fifth review).
	up := &headerCapReader{r: t.up, left: int64(p.maxHeaderBytes()) + 2*headerReadAhead}
	br := bufio.NewReaderSize(up, headerReadAhead)
	resp, err := readFinalResponse(br, out)
	if err != nil {
		if up.left <= 0 {
			err = fmt.Errorf("its answer's header block is larger than %d bytes", p.maxHeaderBytes())
		}
		http.Error(w, "turnstile egress: upstream: "+err.Error(), http.StatusBadGateway)
		return
	}
	t.down64.Add(up.read - int64(br.Buffered()))
	up.lift()
	defer resp.Body.Close()
	for _, h := range hopHeaders {
		resp.Header.Del(h)
	}
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(narrowedWriter{w, t}, resp.Body)
}

// headerReadAhead is the buffer an upstream's answer is read through:
// what it reads past the header block is the body's.
const headerReadAhead = 4096

// headerCapReader reads at most left bytes from r until lift (an
// upstream's answer until its header block is read), counting them.
type headerCapReader struct {
	r      io.Reader
	left   int64
	read   int64
	lifted bool
}

func (c *headerCapReader) Read(b []byte) (int, error) {
	if c.lifted {
		return c.r.Read(b)
	}
	if c.left <= 0 {
		return 0, errors.New("header block too large")
	}
	if int64(len(b)) > c.left {
		b = b[:c.left]
	}
	n, err := c.r.Read(b)
	c.left -= int64(n)
	c.read += int64(n)
	return n, err
}

func (c *headerCapReader) lift() { c.lifted = true }

// maxInformational bounds the informational (1xx) answers read before a
// request's final one.
const maxInformational = 16

// readFinalResponse reads the upstream's answer to req, passing over its
// informational ones (100 Continue, 103 Early Hints): the client gets the
// final answer, not an empty one in place of a 100. A 101 is refused: the
// proxy removed Upgrade, so no protocol switch was asked for.
func readFinalResponse(br *bufio.Reader, req *http.Request) (*http.Response, error) {
	for range maxInformational {
		resp, err := http.ReadResponse(br, req)
		if err != nil {
			return nil, err
		}
		switch {
		case resp.StatusCode == http.StatusSwitchingProtocols:
			resp.Body.Close()
			return nil, errors.New("101 Switching Protocols, which the request did not ask for")
		case resp.StatusCode >= 100 && resp.StatusCode < 200:
			resp.Body.Close()
			continue
		}
		return resp, nil
	}
	return nil, fmt.Errorf("more than %d informational answers", maxInformational)
}

// narrowedWriter writes a plain request's answer to its client until a
// narrowing marks the request denied.
type narrowedWriter struct {
	w io.Writer
	t *tunnel
}

func (nw narrowedWriter) Write(b []byte) (int, error) {
	if nw.t.narrowed.Load() {
		return 0, errNarrowed
	}
	n, err := nw.w.Write(b)
	nw.t.down64.Add(int64(n))
	return n, err
}

// countingWriter counts the bytes written through it as they go (the
// traffic of a connection still open is accounted every window).
type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (cw countingWriter) Write(b []byte) (int, error) {
	n, err := cw.w.Write(b)
	cw.n.Add(int64(n))
	return n, err
}

// errNarrowed ends the copy of a request a narrowing denied.
var errNarrowed = errors.New("turnstile egress: the turn's snapshot no longer allows this request")

// target reads the request's destination: CONNECT host:port (https), or
// an absolute http URL.
func target(r *http.Request) (scheme, host string, port int, ok bool) {
	hostport := r.Host
	scheme = "https"
	if r.Method != http.MethodConnect {
		if r.URL == nil || !r.URL.IsAbs() || r.URL.Scheme != "http" {
			return "", "", 0, false
		}
		scheme, hostport = "http", r.URL.Host
		if r.URL.Port() == "" {
			hostport = net.JoinHostPort(r.URL.Hostname(), "80")
		}
	}
	h, ps, err := net.SplitHostPort(hostport)
	if err != nil {
		return "", "", 0, false
	}
	n, err := strconv.Atoi(ps)
	if err != nil || n < 1 || n > 65535 {
		return "", "", 0, false
	}
	name, _, ok := domain.ParseHost(h, strings.Contains(h, ":"))
	if !ok {
		return "", "", 0, false
	}
	return scheme, name, n, true
}

func joinHost(host string, port int) string { return net.JoinHostPort(host, strconv.Itoa(port)) }

// principalKey names whose bound a command's connections count against:
// the principal that runs it, or for a command run without one (the
// service's own), its turn.
func principalKey(turnID string, by domain.Actor) string {
	if by.Name != "" {
		return "principal:" + by.Name
	}
	return "turn:" + turnID
}

// maxHeaderBytes is the header bound of a request (and of an upstream's
// answer to one).
func (p *Proxy) maxHeaderBytes() int {
	if p.MaxHeaderBytes <= 0 {
		return DefaultMaxHeaderBytes
	}
	return p.MaxHeaderBytes
}

// Server is an HTTP server of the proxy for handler h: its idle timeout,
// header bound and readHeader timeout. Serve it a listener Limit wraps.
func (p *Proxy) Server(h http.Handler, readHeader time.Duration) *http.Server {
	mh := p.maxHeaderBytes()
	return &http.Server{Handler: h, ReadHeaderTimeout: readHeader, IdleTimeout: p.IdleTimeout, MaxHeaderBytes: mh,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, clientConnKey{}, c)
		},
		ConnState: func(c net.Conn, st http.ConnState) {
			if st == http.StateClosed || st == http.StateHijacked {
				p.forgetConn(c)
			}
		}}
}

// clientConnKey keys a request's client connection in its context.
type clientConnKey struct{}

// noteConn records that the client connection of r served a request of
// turnID: the turn's end closes it (Drain), kept alive and idle or not (an
// idle kept-alive connection outlived its turn and held the shared
// listener's slots: the hundred-and-thirty-fourth review).
func (p *Proxy) noteConn(turnID string, r *http.Request) {
	c, ok := r.Context().Value(clientConnKey{}).(net.Conn)
	if !ok {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conns == nil {
		p.conns = map[string]map[net.Conn]struct{}{}
		p.connTurns = map[net.Conn]map[string]struct{}{}
	}
	if p.conns[turnID] == nil {
		p.conns[turnID] = map[net.Conn]struct{}{}
	}
	p.conns[turnID][c] = struct{}{}
	if p.connTurns[c] == nil {
		p.connTurns[c] = map[string]struct{}{}
	}
	p.connTurns[c][turnID] = struct{}{}
}

// forgetConn drops a closed (or hijacked) client connection.
func (p *Proxy) forgetConn(c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for turnID := range p.connTurns[c] {
		delete(p.conns[turnID], c)
		if len(p.conns[turnID]) == 0 {
			delete(p.conns, turnID)
		}
	}
	delete(p.connTurns, c)
}

// closeConns closes the client connections that served the turn's
// requests. The caller holds p.mu.
func (p *Proxy) closeConns(turnID string) {
	for c := range p.conns[turnID] {
		c.Close()
	}
}

// Attach returns the sandbox's EgressAttach for a command of turnID: the
// proxy serves the listener opened in the command's network namespace,
// every connection on it attributed to the turn.
func (p *Proxy) Attach(turnID string) sandbox.EgressAttach { return p.AttachAs(turnID, domain.Actor{}) }

// AttachAs is Attach for a command principal by runs (/exec): its
// connections' decisions are recorded as by's, and held against by's byte
// quota, not the turn's starter's.
func (p *Proxy) AttachAs(turnID string, by domain.Actor) sandbox.EgressAttach {
	return func(f *os.File) (func(), error) {
		ln, err := net.FileListener(f)
		f.Close()
		if err != nil {
			return nil, err
		}
		srv := p.Server(p.TurnHandlerAs(turnID, by), 10*time.Second)
		// The command's end closes its connections, the tunnels and
		// requests in flight too (which the server no longer tracks once
		// hijacked): their requests' context is the listener's.
		ctx, cancel := context.WithCancel(context.Background())
		srv.BaseContext = func(net.Listener) context.Context { return ctx }
		go srv.Serve(p.LimitFor(ln, principalKey(turnID, by)))
		return func() { cancel(); srv.Close() }, nil
	}
}

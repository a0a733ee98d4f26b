// Package engine runs turn commands: load a turn (cached at its version),
// decide, append with the expected version, retry a bounded number of times
// when another writer got there first, then notify. It talks to storage only
// through the eventstore port.
package engine

import (
	"container/list"
	"context"
	"errors"
	"fmt"

	"sync"
	"sync/atomic"
	"time"

	"turnstile/domain"
	"turnstile/domain/eventcodec"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
)

// DefaultApprovalTTL is how long an approval request stays open.
const DefaultApprovalTTL = 15 * time.Minute

// Config tunes an Engine.
type Config struct {
	// ApprovalTTL is how long approval requests stay open (default 15 minutes).
	ApprovalTTL time.Duration
	// MaxOpenRequests bounds the approval requests open at once in one
	// turn (default domain.DefaultMaxOpenRequests).
	MaxOpenRequests int
	// MaxRetries bounds the attempts after a wrong-expected-version (default
	// 32; each retry first waits a short, growing, jittered pause, so that
	// two instances writing one turn take turns instead of one starving).
	MaxRetries int
	// Trust lists MCP tools the operator trusts as read-only.
	Trust domain.MCPTrust
	// DigestKey keys the digests of what scopes do not show. The engine
	// sets it on every invocation it classifies, whatever the command's
	// caller set. Zero: with KeyFromStore, the store's (LoadDigestKey, read
	// on the first command that needs it, so that a server starts while
	// its store is unreachable), else a random key, good for this engine's
	// life only.
	DigestKey    domain.DigestKey
	KeyFromStore bool
	// Kernel is what the capability probe found; it fills every snapshot.
	Kernel domain.KernelFeatures
	// Sensitive are the service's own secrets (its data directory and
	// credential files): every snapshot denies them (domain.PathSensitive).
	Sensitive []string
	// SensitiveNow, when set, is asked for them instead as each turn
	// starts or changes its profile: what another server writes in this
	// user's default data directory after this one started (the
	// hundred-and-thirty-eighth review).
	SensitiveNow func() []string
	// Profiles is what turns may select by name (permission_profile
	// {"profile": …}) and the operator's constraints on every selection.
	Profiles *domain.ProfileCatalog
	// MaxCachedTurns bounds the turn cache (default 100,000).
	MaxCachedTurns int
	// MaxCachedBytes bounds the turn cache by the stored bytes of the
	// events its states were folded from (default DefaultMaxCachedBytes):
	// a turn's state holds about what its events do, and a count alone
	// let turns of megabytes each fill memory (a runtime starts and ends
	// as many as it likes, and a server killed for its memory lets a
	// Claude Code http hook's calls run). The most recently used turn is
	// kept whatever its size.
	MaxCachedBytes int64
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Checker, when set, runs the resource checks on every new tool call
	// before the policy decides it.
	Checker ResourceChecker
	// Instance names this engine among those sharing a store (default: a
	// name unique within the process). Several processes on one store must
	// be given distinct names (serve draws one at random): it makes the
	// exec.started of each instance distinct, so that two instances
	// starting the same call never both succeed.
	Instance string
	// Runner, when set, runs commands for Exec.
	Runner Runner
	// Hint, when set, wakes Exec's wait for an approval (the read models
	// follow the store); the turn itself is then read from the store, never
	// from the hint.
	Hint Hint
	// OnAppend, when set, is called after every successful append.
	OnAppend func(turnID string, events []turn.Event, took time.Duration)
}

// Engine executes commands against turns. It is safe for concurrent use;
// commands on one turn are serialised, commands on different turns run in
// parallel.
type Engine struct {
	store eventstore.Store
	cfg   Config
	// beforeEnd, when set (SetBeforeEnd), runs before a turn's end is
	// decided.
	beforeEnd atomic.Pointer[func(ctx context.Context, turnID string)]

	mu     sync.Mutex               // guards turns, lru, cached, owners, over, requests and each entry's counted and owner
	turns  map[string]*list.Element // of *entry
	lru    *list.List               // most recently used at the front
	cached int64                    // the counted bytes of the entries in lru
	// owners charges each cached turn to the principal who started it;
	// over holds those whose turns take more than their share of the
	// cache (cacheshare.go).
	owners map[string]*owner
	over   map[*owner]struct{}
	// tombs are the tombstones of ended turns out of the cache (tomb.go),
	// tombList their order of use, tombBytes their size.
	tombs     map[string]*list.Element
	tombList  *list.List
	tombBytes int64
	// requests maps the approval requests this engine has seen to their
	// turn (bounded like the cache: see index).
	requests map[string]string
	// running are the commands this engine runs now, by turn (its own lock).
	running runs
	// scanning admits one search of the log for a request's turn at a time
	// (LocateRequest): each costs a read of the whole log, and whoever sends
	// ids nobody has must not make them add up beyond one.
	scanning chan struct{}

	// keyMu serialises the first read of the store's digest key; key
	// holds it once known (DigestKey).
	keyMu sync.Mutex
	key   atomic.Pointer[domain.DigestKey]
	// turnKeys remembers the turns' digest keys (turnKey).
	turnKeys turnKeys

	lastMu sync.Mutex          // guards last
	last   eventstore.Position // of the latest event this engine appended
}

// entry caches one turn.
type entry struct {
	id string
	// sem is the turn's lock (a one-slot semaphore, so that waiting for it
	// honours a context); it guards state and position.
	sem      chan struct{}
	state    *turn.State         // nil until loaded
	position eventstore.Position // of the last event applied
	folded   int64               // stored bytes of the events folded into state
	// counted is folded as the cache counts it (under the engine's mu);
	// gone marks an entry evicted, whose growth no longer counts.
	counted int64
	gone    bool
	// owner is whom the cache charges for the entry (nil until its state
	// names who started the turn), ownEl its element in owner.lru.
	owner *owner
	ownEl *list.Element
}

// lock takes the turn's lock, or gives up when ctx ends.
func (en *entry) lock(ctx context.Context) error {
	select {
	case en.sem <- struct{}{}:
		return nil
	default:
	}
	select {
	case en.sem <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("waiting for turn %s: %w", en.id, ctx.Err())
	}
	// It waited (another command of the turn held it): its caller may no
	// longer be who it was (Recheck).
	if err := Recheck(ctx); err != nil {
		<-en.sem
		return err
	}
	return nil
}

// recheckKey is the context key of a command's recheck (WithRecheck).
type recheckKey struct{}

// WithRecheck returns ctx carrying f, which authenticates the command's
// caller again: a command that had to wait (for its turn's lock, for a
// host's lookup) calls it before it decides, and ends with its error
// instead (the hundred-and-seventy-seventh review: a decision that waited
// for its turn's lock was decided and recorded after its caller's
// credential had been revoked).
func WithRecheck(ctx context.Context, f func(context.Context) error) context.Context {
	return context.WithValue(ctx, recheckKey{}, f)
}

// detached is ctx for what must follow a command whatever its caller does
// (a denial or a command's end recorded, a narrowing or an end carried to
// child turns): not cancelled with it, and not rechecked (a caller revoked
// meanwhile must not leave a child wider than its parent, or what ran
// unrecorded).
func detached(ctx context.Context) context.Context {
	return context.WithValue(context.WithoutCancel(ctx), recheckKey{}, nil)
}

// Recheck calls the recheck ctx carries (nil when it carries none).
func Recheck(ctx context.Context) error {
	if f, ok := ctx.Value(recheckKey{}).(func(context.Context) error); ok {
		return f(ctx)
	}
	return nil
}

func (en *entry) unlock() { <-en.sem }

// engines counts the engines of this process (default instance names).
var engines atomic.Int64

// New returns an engine over store.
func New(store eventstore.Store, cfg Config) *Engine {
	if cfg.ApprovalTTL <= 0 {
		cfg.ApprovalTTL = DefaultApprovalTTL
	}
	if cfg.MaxOpenRequests <= 0 {
		cfg.MaxOpenRequests = domain.DefaultMaxOpenRequests
	}
	if cfg.MaxRetries <= 0 {
		cfg.MaxRetries = 32
	}
	if cfg.MaxCachedTurns <= 0 {
		cfg.MaxCachedTurns = 100_000
	}
	if cfg.MaxCachedBytes <= 0 {
		cfg.MaxCachedBytes = DefaultMaxCachedBytes
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.DigestKey.IsZero() && !cfg.KeyFromStore {
		cfg.DigestKey = domain.RandomDigestKey()
	}
	if cfg.Instance == "" {
		cfg.Instance = fmt.Sprintf("engine-%d", engines.Add(1))
	}
	return &Engine{store: store, cfg: cfg, turns: map[string]*list.Element{}, lru: list.New(), requests: map[string]string{},
		owners: map[string]*owner{}, over: map[*owner]struct{}{}, tombs: map[string]*list.Element{}, tombList: list.New(),
		scanning: make(chan struct{}, 1)}
}

// Config returns the engine's configuration.
func (e *Engine) Config() Config { return e.cfg }

// Result is the answer to one command.
type Result struct {
	turn.Outcome
	// Events are the events appended (none when the command was replayed).
	Events []turn.Event
	// Position is the global position of the last event appended, or of the
	// turn's last event when nothing was appended.
	Position eventstore.Position
	// Turn is the turn as the command left it (from the engine's state, so
	// a caller need not wait for the read models to answer).
	Turn turn.Summary
}

// ErrTooManyConflicts is returned when a command kept losing the race.
var ErrTooManyConflicts = errors.New("too many concurrent writers on this turn")

func (e *Engine) entry(turnID string) *entry {
	e.mu.Lock()
	defer e.mu.Unlock()
	if el, ok := e.turns[turnID]; ok {
		e.lru.MoveToFront(el)
		en := el.Value.(*entry)
		if en.owner != nil {
			en.owner.lru.MoveToFront(en.ownEl)
		}
		return en
	}
	if el, ok := e.tombs[turnID]; ok {
		e.unbury(el) // the turn is loaded again
	}
	en := &entry{id: turnID, sem: make(chan struct{}, 1)}
	e.turns[turnID] = e.lru.PushFront(en)
	e.evict()
	return en
}

// DefaultMaxCachedBytes is the default of Config.MaxCachedBytes.
const DefaultMaxCachedBytes = 256 << 20

// evict drops entries while the cache is over either bound, keeping the
// most recently used one: the least recently used of the principal whose
// turns take most over their share of the cache (victim), else the least
// recently used of all. An evicted entry still in use stays correct:
// appends carry the expected version, so a second copy only costs a
// catch-up. e.mu is held.
func (e *Engine) evict() {
	for e.lru.Len() > 1 && (e.lru.Len() > e.cfg.MaxCachedTurns || e.cached > e.cfg.MaxCachedBytes) {
		en := e.victim()
		e.lru.Remove(e.turns[en.id])
		delete(e.turns, en.id)
		e.cached -= en.counted
		e.disown(en)
		e.bury(en)
		en.counted, en.gone = 0, true
	}
}

// account brings the cache's count of en's bytes to what its state was
// folded from, and evicts what that puts over the bound. en's lock is held.
func (e *Engine) account(en *entry) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if en.gone {
		return
	}
	e.cached += en.folded - en.counted
	e.charge(en, en.folded-en.counted)
	en.counted = en.folded
	e.evict()
}

// CachedBytes reports the stored bytes the cached turns' states were
// folded from.
func (e *Engine) CachedBytes() int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cached
}

// CachedTurns reports how many turns are cached.
func (e *Engine) CachedTurns() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.lru.Len()
}

// catchUp applies the events stored after the state's version.
func (e *Engine) catchUp(ctx context.Context, en *entry) error {
	_, err := e.refresh(ctx, en)
	return err
}

// refresh applies the events stored after the state's version and reports
// whether there were any.
func (e *Engine) refresh(ctx context.Context, en *entry) (bool, error) {
	if en.state == nil {
		en.state, en.folded = turn.NewState(en.id), 0
	}
	recs, err := e.store.ReadStream(ctx, turn.StreamName(en.id), uint64(en.state.Version+1), 0)
	if err != nil {
		return false, err
	}
	defer e.account(en)
	for i := range recs {
		ev, err := eventcodec.Decode(&recs[i])
		if err != nil {
			return false, err
		}
		turn.Evolve(en.state, &ev)
		e.index(en.id, &ev)
		en.position = ev.Position
		en.folded += int64(len(recs[i].Data) + len(recs[i].Metadata))
	}
	return len(recs) > 0, nil
}

// LastAppended is the position of the latest event this engine appended
// (a read model that has applied it holds everything this engine wrote).
func (e *Engine) LastAppended() eventstore.Position {
	e.lastMu.Lock()
	defer e.lastMu.Unlock()
	return e.last
}

// appended records pos as appended.
func (e *Engine) appended(pos eventstore.Position) {
	e.lastMu.Lock()
	if e.last.Less(pos) {
		e.last = pos
	}
	e.lastMu.Unlock()
}

// SetBeforeEnd sets a function Execute runs before it decides a turn's end
// (EndTurn), outside the turn's lock, so that what is kept for the turn
// elsewhere (the egress proxy's traffic of its open connections) can be
// recorded on it while it is still open.
func (e *Engine) SetBeforeEnd(f func(ctx context.Context, turnID string)) {
	e.beforeEnd.Store(&f)
}

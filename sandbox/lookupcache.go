package sandbox

import (
	"context"
	"errors"
	"net/netip"
	"sync"
	"time"

	"turnstile/domain"
)

// LookupCache is a HostResolver that keeps each answer, a failure too,
// for TTL: the engine looks a decision's host up before it takes the
// turn's lock (DecisionChecker.LookupPending, Prefetch), and the check
// under the lock then reads the answer here, so that lookups the agent
// makes slow (a name server that never answers) no longer hold the turn
// while a person's answer waits behind them (the sixty-seventh review).
type LookupCache struct {
	R   HostResolver
	TTL time.Duration

	mu sync.Mutex
	m  map[string]cachedLookup
}

type cachedLookup struct {
	addrs []netip.Addr
	err   error
	at    time.Time
}

// maxCachedLookups bounds the cache; past it, it starts again empty.
const maxCachedLookups = 4096

// DefaultLookupTTL is how long a LookupCache keeps an answer.
const DefaultLookupTTL = 10 * time.Second

func (c *LookupCache) ttl() time.Duration {
	if c.TTL > 0 {
		return c.TTL
	}
	return DefaultLookupTTL
}

func (c *LookupCache) cached(network, host string, now time.Time) (cachedLookup, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	l, ok := c.m[network+"\x00"+host]
	return l, ok && now.Sub(l.at) < c.ttl()
}

// LookupNetIP answers from the cache, or looks host up and keeps the
// answer.
func (c *LookupCache) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if l, ok := c.cached(network, host, time.Now()); ok {
		return l.addrs, l.err
	}
	addrs, err := c.R.LookupNetIP(ctx, network, host)
	if errors.Is(ctx.Err(), context.Canceled) {
		return addrs, err // the caller gave up: no answer to keep
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCachedLookups {
		c.m = map[string]cachedLookup{}
	}
	c.m[network+"\x00"+host] = cachedLookup{addrs: addrs, err: err, at: time.Now()}
	c.mu.Unlock()
	return addrs, err
}

// LookupPending returns the host a check of rawURL under s would look up
// now (CheckURLResolved: one that passes the checks without a lookup, a
// name, not in the cache), or false (engine.LookupPrefetcher).
func (c DecisionChecker) LookupPending(s *domain.TurnExecutionSecuritySnapshot, rawURL string) (string, bool) {
	lc, ok := c.Resolver.(*LookupCache)
	if !ok {
		return "", false
	}
	n := *s
	n.Sandbox.Filesystem = domain.FilesystemPolicy{}
	a := n.Approvable()
	if CheckURL(&a, rawURL) != nil {
		return "", false // refused without a lookup: no name is sent
	}
	t, rf := parseURLTarget(rawURL)
	if rf != nil || t.Addr.IsValid() {
		return "", false
	}
	if _, ok := lc.cached("ip", t.Host, time.Now()); ok {
		return "", false
	}
	return t.Host, true
}

// Prefetch looks host up into the cache (within the checker's timeout).
func (c DecisionChecker) Prefetch(ctx context.Context, host string) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultResolveTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_, _ = c.Resolver.LookupNetIP(ctx, "ip", host)
}

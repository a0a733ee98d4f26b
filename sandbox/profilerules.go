package sandbox

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"turnstile/domain"
)

// ruleCache keeps the canonical form of a snapshot's profile rules, like
// the entries' view: while nothing their canonicalisation looked up has
// changed (viewwatch.go), for at most viewTTL. The path checked is
// canonicalised afresh every time.
var ruleCache struct {
	mu sync.Mutex // guards m
	m  map[string]*cachedRules
}

type cachedRules struct {
	rules    []domain.PathRule
	made     time.Time
	gen      uint64      // the watch generation it stands for (viewwatch.go)
	renewing atomic.Bool // as cachedView's
}

// canonicalRules returns rules with each pattern's literal part made
// canonical (symlinks resolved; a glob keeps its wildcard components after
// its canonical literal prefix), so that they compare with canonical paths
// the way the entries' view does.
func canonicalRules(rules []domain.PathRule) []domain.PathRule {
	if len(rules) == 0 {
		return nil
	}
	var b strings.Builder
	for _, r := range rules {
		b.WriteString(r.Pattern)
		b.WriteByte(0)
	}
	key, now := b.String(), time.Now()
	gen, _, watching := watchGen()
	ruleCache.mu.Lock()
	c, ok := ruleCache.m[key]
	ruleCache.mu.Unlock()
	if ok && watching && c.gen == gen && (now.Sub(c.made) < viewTTL || !c.renewing.CompareAndSwap(false, true)) {
		return mergeRules(rules, c.rules)
	}
	out, gen, keep := watchedBuild(func() []domain.PathRule {
		out := make([]domain.PathRule, len(rules))
		for i, r := range rules {
			out[i] = r
			out[i].Pattern = canonicalPattern(r.Pattern)
		}
		return out
	}, func([]domain.PathRule) []lookup {
		var ls []lookup
		for _, r := range rules {
			ls = lookupsOf(literalPrefix(r.Pattern), ls)
		}
		return ls
	})
	ruleCache.mu.Lock()
	if !keep {
		if ok && ruleCache.m[key] == c {
			delete(ruleCache.m, key)
		}
		ruleCache.mu.Unlock()
		return out
	}
	if ruleCache.m == nil || len(ruleCache.m) > 4096 {
		ruleCache.m = map[string]*cachedRules{}
	}
	ruleCache.m[key] = &cachedRules{rules: out, made: now, gen: gen}
	ruleCache.mu.Unlock()
	return out
}

// literalPrefix is the part of a pattern before its first wildcard
// component.
func literalPrefix(p string) string {
	parts := strings.Split(strings.TrimPrefix(domain.CleanPath(p), "/"), "/")
	for i, c := range parts {
		if strings.ContainsAny(c, "*?[") {
			return "/" + strings.Join(parts[:i], "/")
		}
	}
	return "/" + strings.Join(parts, "/")
}

func canonicalPattern(p string) string {
	parts := strings.Split(strings.TrimPrefix(domain.CleanPath(p), "/"), "/")
	lit := len(parts)
	for i, c := range parts {
		if strings.ContainsAny(c, "*?[") {
			lit = i
			break
		}
	}
	prefix := "/" + strings.Join(parts[:lit], "/")
	canon, _, ok, err := canonicalPath(domain.CleanPath(prefix))
	if err != nil || !ok {
		canon = domain.CleanPath(prefix)
	}
	if lit == len(parts) {
		return canon
	}
	return domain.CleanPath(canon + "/" + strings.Join(parts[lit:], "/"))
}

// mergeRules is rules with the cached canonical patterns (the cache is
// keyed by the patterns alone: accesses and origins come from rules).
func mergeRules(rules, canon []domain.PathRule) []domain.PathRule {
	out := make([]domain.PathRule, len(rules))
	for i, r := range rules {
		out[i] = r
		out[i].Pattern = canon[i].Pattern
	}
	return out
}

package sandbox

import (
	"context"
	"errors"
	"net/netip"

	"turnstile/domain"
)

// The engine looks a decision's host up before it takes the turn's lock
// (LookupPending, Lookup) and hands the answer to the check under the
// lock (CheckURLLooked), so that lookups the agent makes slow (a name
// server that never answers) no longer hold the turn while a person's
// answer waits behind them (the sixty-seventh review). The answer is that
// decision's own: no other call, of this turn or another, reads it (a
// shared cache let one principal's cut-short lookup fail another's
// check, and let calls reuse an answer: the seventieth review).

// LookupPending returns the host a check of rawURL under s would look up
// now (CheckURLResolved: one that passes the checks without a lookup, a
// name), or false (engine.LookupPrefetcher).
func (c DecisionChecker) LookupPending(s *domain.TurnExecutionSecuritySnapshot, rawURL string) (string, bool) {
	if c.Resolver == nil {
		return "", false
	}
	a := urlView(s)
	if CheckURL(&a, rawURL) != nil {
		return "", false // refused without a lookup: no name is sent
	}
	t, rf := parseURLTarget(rawURL)
	if rf != nil || t.Addr.IsValid() {
		return "", false
	}
	return t.Host, true
}

// Lookup looks host up within the checker's timeout, whatever is left of
// the caller's (a lookup cut short by its caller is no answer about the
// name).
func (c DecisionChecker) Lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultResolveTimeout
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	return c.Resolver.LookupNetIP(ctx, "ip", host)
}

// CheckURLLooked is CheckURL with the addresses the URL's host was looked
// up to (or the lookup's error), as Lookup answered.
func (c DecisionChecker) CheckURLLooked(s *domain.TurnExecutionSecuritySnapshot, rawURL string, addrs []netip.Addr, lookupErr error) error {
	a := urlView(s)
	return AsCoded(checkURLAnswered(&a, rawURL, addrs, lookupErr))
}

// urlView is s as the network checks read it: the filesystem left out
// (Approvable need not reopen the roots for them).
func urlView(s *domain.TurnExecutionSecuritySnapshot) domain.TurnExecutionSecuritySnapshot {
	n := *s
	n.Sandbox.Filesystem = domain.FilesystemPolicy{}
	return n.Approvable()
}

// checkURLAnswered judges rawURL (CheckURL) and, for a host name, the
// addresses it was looked up to: CheckURLResolved's second half.
func checkURLAnswered(s *domain.TurnExecutionSecuritySnapshot, rawURL string, addrs []netip.Addr, err error) error {
	if err := CheckURL(s, rawURL); err != nil {
		return err
	}
	t, rf := parseURLTarget(rawURL)
	if rf != nil {
		return rf
	}
	if t.Addr.IsValid() {
		return nil
	}
	switch {
	case errors.Is(err, ErrHostNotFound):
		return nil
	case err != nil:
		return refuse(CodeHostUnresolved, redactURL(rawURL), "could not resolve %s to judge its addresses: %v", t.Host, err)
	}
	for _, a := range addrs {
		if err := CheckAddr(s, t.Host, a, t.Port); err != nil {
			return err
		}
	}
	return nil
}

package api

import (
	"net/http"
	"sync"

	"turnstile/domain"
)

// inflight counts each principal's requests in flight: an event stream, a
// JSON-RPC socket, a wait for an approval or a running command holds a
// connection, a descriptor and goroutines of the server for as long as it
// lasts, and the agent holds a credential. Past Config.MaxRequests a
// principal's request is refused (429 quota_exceeded) before its handler
// runs, and other credentials keep the rest of the server.
type inflight struct {
	mu sync.Mutex
	n  map[string]int
}

// take counts one request of name against limit; release gives it back.
func (f *inflight) take(name string, limit int) (release func(), ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == nil {
		f.n = map[string]int{}
	}
	if f.n[name] >= limit {
		return nil, false
	}
	f.n[name]++
	var once sync.Once
	return func() {
		once.Do(func() {
			f.mu.Lock()
			defer f.mu.Unlock()
			if f.n[name]--; f.n[name] <= 0 {
				delete(f.n, name)
			}
		})
	}, true
}

// withinCommands runs next within principal p's bound of commands at once
// (Config.MaxCommands), or refuses the request.
func (s *Server) withinCommands(w http.ResponseWriter, r *http.Request, next func()) {
	s.within(w, r, "command\x00", domain.QuotaCommands, s.cfg.MaxCommands, domain.DefaultMaxCommands, next)
}

// withinRequests runs next for principal p within its bound of requests
// in flight, or refuses the request (a Claude Code PreToolUse is answered
// as the hook is: a deny).
func (s *Server) withinRequests(w http.ResponseWriter, r *http.Request, p domain.Principal, next func()) {
	s.withinAs(w, r, p, "request\x00", domain.QuotaRequests, s.cfg.MaxRequests, domain.DefaultMaxRequests, next)
}

// noCredential is whom the requests no credential authenticates are
// counted as, together (no credential's name holds parentheses).
var noCredential = domain.Principal{Name: "(no credential)"}

// withinUnauthenticated runs next, which reads the body of a request no
// credential authenticates (a sign-in's, a hook's refused), within the
// one bound of requests in flight all such requests share: one asking to
// continue and sending no body held its connection for the read timeout,
// and enough of them every connection (the sixty-fourth review).
//
// Past the bound nothing of the body is read (reading it is what holds
// the connection): a hook call is answered deny whatever its event, so
// that a PreToolUse among them fails closed, and anything else 429.
func (s *Server) withinUnauthenticated(w http.ResponseWriter, r *http.Request, next func()) {
	limit := s.cfg.MaxRequests
	if limit < 0 {
		next()
		return
	}
	if limit == 0 {
		limit = domain.DefaultMaxRequests
	}
	release, ok := s.inflight.take("request\x00"+noCredential.Name, limit)
	if !ok {
		err := &domain.QuotaError{Quota: domain.QuotaRequests, Limit: limit, Of: noCredential.Name}
		if !hookRefusedUnread(w, r, err) {
			writeError(w, err)
		}
		return
	}
	defer release()
	next()
}

func (s *Server) within(w http.ResponseWriter, r *http.Request, kind, quota string, limit, def int, next func()) {
	s.withinAs(w, r, principalOf(r), kind, quota, limit, def, next)
}

// withinAs counts one request of p's of this kind against limit (def when
// zero, none when negative) while next runs.
func (s *Server) withinAs(w http.ResponseWriter, r *http.Request, p domain.Principal, kind, quota string, limit, def int, next func()) {
	if limit < 0 {
		next()
		return
	}
	if limit == 0 {
		limit = def
	}
	release, ok := s.inflight.take(kind+p.Name, limit)
	if !ok {
		err := &domain.QuotaError{Quota: quota, Limit: limit, Of: p.Name}
		if !hookRefusedUnread(w, r, err) {
			writeError(w, err)
		}
		return
	}
	defer release()
	next()
}

package tests

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// readAfter is the harness's read-your-writes, as a well-behaved client
// does it: commands do not wait for the read models, so the harness keeps
// the latest position a command answered with (its body's position, a
// JSON-RPC result's, or the hook's Turnstile-Position header) and passes it
// on each read of the read models (?after=; after_position on the list of
// turns, whose after is a paging cursor). A read that names its own is
// left as it is. The tests also write through other clients whose answers
// the harness does not see (the CLI's exec and approvals respond, the
// command hook, whose stdout is Claude Code's): before a read of one turn's
// read models it takes that turn's last position from its history in the
// store (turnHead).
type readAfter struct {
	mu     sync.Mutex
	pos    string
	commit uint64 // pos parsed, for comparison
	prep   uint64
}

// parsePos parses a store position ("commit" or "commit-prepare").
func parsePos(p string) (commit, prep uint64, ok bool) {
	c, q, found := strings.Cut(p, "-")
	commit, err := strconv.ParseUint(c, 10, 64)
	if err != nil {
		return 0, 0, false
	}
	prep = commit
	if found {
		if prep, err = strconv.ParseUint(q, 10, 64); err != nil {
			return 0, 0, false
		}
	}
	return commit, prep, true
}

// remember keeps a command answer's position if it is the latest.
func (r *readAfter) remember(header string, body []byte) {
	var v struct {
		Position string `json:"position"`
		Result   struct {
			Position string `json:"position"`
		} `json:"result"`
	}
	_ = json.Unmarshal(body, &v)
	p := v.Position
	if p == "" {
		p = v.Result.Position
	}
	if p == "" {
		p = header
	}
	c, q, ok := parsePos(p)
	if !ok {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pos == "" || c > r.commit || (c == r.commit && q > r.prep) {
		r.pos, r.commit, r.prep = p, c, q
	}
}

// reset forgets the position (a server started again: ready means its read
// models include its whole store).
func (r *readAfter) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pos = ""
}

// readModelPath matches the reads served from the read models (other than
// the list of turns).
var readModelPath = regexp.MustCompile(`^/v1/(approvals(/[^/]+)?|turns/[^/]+(/(timeline|audit|explain))?)$`)

// with adds the position to a GET of the read models.
func (r *readAfter) with(path string) string {
	r.mu.Lock()
	pos := r.pos
	r.mu.Unlock()
	if pos == "" {
		return path
	}
	bare, query, _ := strings.Cut(path, "?")
	param := ""
	switch {
	case bare == "/v1/turns":
		param = "after_position"
	case readModelPath.MatchString(bare):
		param = "after"
	default:
		return path
	}
	q, err := url.ParseQuery(query)
	if err != nil || q.Has(param) {
		return path
	}
	if query != "" {
		query += "&"
	}
	return bare + "?" + query + param + "=" + pos
}

// env is TURNSTILE_AFTER for a CLI command, when there is a position.
func (r *readAfter) env() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pos == "" {
		return nil
	}
	return []string{"TURNSTILE_AFTER=" + r.pos}
}

// turnOf is the turn a read of the read models is about ("" for none).
func turnOf(path string) string {
	bare, query, _ := strings.Cut(path, "?")
	if m := readModelPath.FindStringSubmatch(bare); m != nil && strings.HasPrefix(bare, "/v1/turns/") {
		id, _, _ := strings.Cut(strings.TrimPrefix(bare, "/v1/turns/"), "/")
		if u, err := url.PathUnescape(id); err == nil {
			return u
		}
		return id
	}
	if bare == "/v1/approvals" || bare == "/v1/turns" || strings.HasPrefix(bare, "/v1/approvals/") {
		if q, err := url.ParseQuery(query); err == nil {
			return q.Get("turn_id")
		}
	}
	return ""
}

// turnHead remembers the position of the last event of the turn a read of
// the read models is about, from the turn's history in the store (not a
// read model). A credential that may not read the history, or a turn
// without one, adds nothing.
func (s *Server) turnHead(client *http.Client, path string) {
	id := turnOf(path)
	if id == "" || strings.ContainsAny(id, "/?#") {
		return
	}
	ex, err := s.send(client, "GET", "/v1/turns/"+url.PathEscape(id)+"/events?limit=10000", nil)
	if err != nil || ex.status != http.StatusOK {
		return
	}
	var page struct {
		Events []struct {
			Position string `json:"position"`
		} `json:"events"`
	}
	if json.Unmarshal(ex.data, &page) != nil || len(page.Events) == 0 {
		return
	}
	s.reads.remember("", []byte(`{"position":"`+page.Events[len(page.Events)-1].Position+`"}`))
}

package api

import (
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
)

// DefaultMaxBodyMemory is how many bytes of request bodies the server holds
// at once by default (Config.MaxBodyMemory).
const DefaultMaxBodyMemory = 256 << 20

// bodyBudget bounds the bytes of request bodies the server has read and
// still holds, over every request in flight: each body is read whole into
// memory (a Claude Code PostToolUse may take 16 MiB), and the agent, which
// holds a credential and may open connections at will, could otherwise
// send enough of them at once to have the server killed for its memory
// (an http hook then lets every call run).
type bodyBudget struct {
	max  int64
	used atomic.Int64
}

// BodyBudgetError refuses a request whose body would take the bodies held
// past the budget.
type BodyBudgetError struct{ Limit int64 }

func (e *BodyBudgetError) Error() string {
	return fmt.Sprintf("the server holds as many request bodies as it may (%d bytes, --max-body-memory): retry", e.Limit)
}

// budgetedBody counts what a request's body reads against the budget; the
// server releases it when the request's handler returns.
type budgetedBody struct {
	io.ReadCloser
	b    *bodyBudget
	held int64
}

func (bb *budgetedBody) Read(p []byte) (int, error) {
	n, err := bb.ReadCloser.Read(p)
	if n > 0 {
		if bb.b.used.Add(int64(n)) > bb.b.max {
			bb.b.used.Add(-int64(n))
			return 0, &BodyBudgetError{Limit: bb.b.max}
		}
		bb.held += int64(n)
	}
	return n, err
}

// budgetBodies counts every request's body against the server's budget
// until its handler returns (nothing when the budget is off).
func (s *Server) budgetBodies(next http.Handler) http.Handler {
	if s.bodies == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		bb := &budgetedBody{ReadCloser: r.Body, b: s.bodies}
		r.Body = bb
		defer bb.release()
		next.ServeHTTP(w, r)
	})
}

// release gives back what bb holds (nothing for a nil bb).
func (bb *budgetedBody) release() {
	if bb == nil {
		return
	}
	bb.b.used.Add(-bb.held)
	bb.held = 0
}

package api

import (
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"

	"turnstile/domain"
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
	// byPrincipal holds each principal's share of used (*atomic.Int64 by
	// principalShareKey): one principal holds at most half of max, so that
	// the agent, which may open connections at will, cannot take the whole
	// budget from approvers and other runtimes (their answers and hooks
	// refused for as long as it keeps sending).
	byPrincipal sync.Map
}

// take counts n against the whole budget, or refuses it and counts
// nothing.
func (b *bodyBudget) take(n int64) error {
	if b.used.Add(n) > b.max {
		b.used.Add(-n)
		return &BodyBudgetError{Limit: b.max}
	}
	return nil
}

// share is p's counter of the bodies it holds.
func (b *bodyBudget) share(p domain.Principal) *atomic.Int64 {
	c, _ := b.byPrincipal.LoadOrStore(string(p.Role)+"\x00"+p.Name, new(atomic.Int64))
	return c.(*atomic.Int64)
}

// BodyBudgetError refuses a request whose body would take the bodies held
// past the budget.
type BodyBudgetError struct {
	Limit int64
	Share bool // the principal's share, half the budget
}

func (e *BodyBudgetError) Error() string {
	if e.Share {
		return fmt.Sprintf("this credential's request bodies in flight hold its share of the server's (%d bytes of --max-body-memory): retry", e.Limit)
	}
	return fmt.Sprintf("the server holds as many request bodies as it may (%d bytes, --max-body-memory): retry", e.Limit)
}

// budgetedBody counts what a request's body reads against the budget; the
// server releases it when the request's handler returns.
type budgetedBody struct {
	io.ReadCloser
	b    *bodyBudget
	held int64
	// heldWhole is what answerFromWholeBudget's answer holds of the
	// server's budget (not of the principal's share).
	heldWhole int64
	who       *atomic.Int64 // the principal's share (nil until auth names it)
	// whoMax bounds who: half the budget for a principal, less for
	// requests no credential authenticates.
	whoMax int64
}

func (bb *budgetedBody) Read(p []byte) (int, error) {
	n, err := bb.ReadCloser.Read(p)
	if n > 0 {
		if herr := bb.hold(int64(n)); herr != nil {
			return 0, herr
		}
	}
	return n, err
}

// hold counts n more bytes the request holds against the budget and its
// principal's share: what its body read, and the answers of a JSON-RPC
// batch, held until the batch is answered (a batch of 1 MiB asks for
// thousands of turns of 30 KB each). A nil bb holds nothing.
func (bb *budgetedBody) hold(n int64) error {
	if bb == nil {
		return nil
	}
	if err := bb.b.take(n); err != nil {
		return err
	}
	if bb.who != nil && bb.who.Add(n) > bb.whoMax {
		bb.who.Add(-n)
		bb.b.used.Add(-n)
		return &BodyBudgetError{Limit: bb.whoMax, Share: true}
	}
	bb.held += n
	return nil
}

// budgetBodies counts every request's body against the server's budget
// until its handler returns (nothing when the budget is off).
func (s *Server) budgetBodies(next http.Handler) http.Handler {
	if s.bodies == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := r.Body
		if body == nil {
			body = http.NoBody
		}
		bb := &budgetedBody{ReadCloser: body, b: s.bodies}
		r.Body = bb
		defer bb.release()
		// A large answer is held against the same budget while it is
		// written (writeJSON).
		next.ServeHTTP(&budgetedWriter{ResponseWriter: w, bb: bb}, r)
	})
}

// budgetedWriter lets writeJSON hold a large answer against its request's
// body budget (and its principal's share), released with the request's.
type budgetedWriter struct {
	http.ResponseWriter
	bb *budgetedBody
	// whole: the answer is held against the server's budget only, not
	// the principal's share (answerFromWholeBudget).
	whole bool
}

func (w *budgetedWriter) holdAnswer(n int64) error {
	if w.whole {
		return w.bb.holdWhole(n)
	}
	return w.bb.hold(n)
}

// answerFromWholeBudget has the answer held against the server's budget
// only: a page of one event, which no smaller page can replace (a
// decision's event repeats its command: 394 KB for a request that fit a
// share of 256 KiB, and every read of the turn from there answered 503:
// the hundred-and-sixtieth review).
func (w *budgetedWriter) answerFromWholeBudget() { w.whole = true }

// wholeBudgetAnswer is the writer's side of answerFromWholeBudget.
type wholeBudgetAnswer interface{ answerFromWholeBudget() }

// holdWhole is hold against the server's budget only.
func (bb *budgetedBody) holdWhole(n int64) error {
	if bb == nil {
		return nil
	}
	if err := bb.b.take(n); err != nil {
		return err
	}
	bb.heldWhole += n
	return nil
}

// Flush and Unwrap reach the connection through the wrapper.
func (w *budgetedWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *budgetedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// chargeBodyTo counts the rest of r's body against p's share of the
// budget too (auth, once it knows p; nothing is read before).
func (s *Server) chargeBodyTo(r *http.Request, p domain.Principal) {
	if bb := budgetOf(r.Body); bb != nil && bb.held == 0 && s.bodies != nil {
		bb.who, bb.whoMax = s.bodies.share(p), s.bodies.max/2
		if p.Name == "" {
			// Requests no credential authenticates share an eighth.
			bb.whoMax = s.bodies.max / 8
		}
	}
}

// release gives back what bb holds (nothing for a nil bb).
func (bb *budgetedBody) release() {
	if bb == nil {
		return
	}
	bb.b.used.Add(-bb.held - bb.heldWhole)
	if bb.who != nil {
		bb.who.Add(-bb.held)
	}
	bb.held, bb.heldWhole = 0, 0
}

package api

import (
	"context"
	"net/http"
	"time"

	"turnstile/domain"
	"turnstile/domain/eventstore"
)

// MaxAfterWait bounds how long a read with ?after= waits for the read
// models to apply that position before it answers 504.
const MaxAfterWait = 5 * time.Second

// AfterTimeoutError is the error of a read whose ?after= position the read
// models did not reach in time (the API answers 504 read_model_lagging).
type AfterTimeoutError struct {
	Param    string
	After    eventstore.Position
	Position eventstore.Position // what the read models had applied
	Waited   time.Duration
}

func (e *AfterTimeoutError) Error() string {
	return "the read models did not reach " + e.Param + "=" + e.After.String() + " within " + e.Waited.String() +
		" (they are at " + e.Position.String() + "); retry, or check that the position came from this service"
}

// awaitAfter is read-your-writes for the reads served from the read
// models: with ?<param>=<position> (the position a command's response
// returned) it waits, bounded by MaxAfterWait and the request, until the
// read models have applied that position. Without it, it returns at once.
func (s *Server) awaitAfter(r *http.Request, param string) error {
	v := r.URL.Query().Get(param)
	if v == "" {
		return nil
	}
	pos, err := eventstore.ParsePosition(v)
	if err != nil {
		return &domain.FieldError{Field: param, Value: v, Message: "must be a store position, as a command's response returns it (e.g. 1234)"}
	}
	wait := s.cfg.AfterWait
	if wait <= 0 || wait > MaxAfterWait {
		wait = MaxAfterWait
	}
	if !s.cfg.Projector.Position().Less(pos) {
		return nil // there already: no wait
	}
	ctx, cancel := context.WithTimeout(r.Context(), wait)
	defer cancel()
	if err := s.cfg.Projector.WaitFor(ctx, pos); err != nil {
		if r.Context().Err() != nil {
			return r.Context().Err()
		}
		return &AfterTimeoutError{Param: param, After: pos, Position: s.cfg.Projector.Position(), Waited: wait}
	}
	// What the read answers was done while it waited: not for a
	// credential revoked meanwhile (the hundred-and-thirty-first review),
	// as a long poll's ?wait= is not.
	return s.stillAuthenticated(r.Context(), r)
}

// positionOf renders a command's last position for its response ("" when
// the engine reported none).
func positionOf(p eventstore.Position) string {
	if p == eventstore.Start {
		return ""
	}
	return p.String()
}

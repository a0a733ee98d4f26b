package api

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"turnstile/domain"
	"turnstile/domain/engine"
)

// CredentialRecheck is how often a long-lived connection (an event stream,
// a JSON-RPC WebSocket's notifications) authenticates its credential again:
// a revocation appended by any instance ends it within this time. A call
// over a WebSocket is authenticated again before it runs.
const CredentialRecheck = time.Second

// errRevoked ends a connection whose credential no longer authenticates.
var errRevoked = errorf(http.StatusUnauthorized, "credential_revoked", nil, "the credential this connection authenticated with was revoked (or its console session ended); reconnect with a valid one")

// stillAuthenticated authenticates r's credential again, as auth did when
// the connection opened (the bearer token, or the console session's stored
// credential), and checks it is still the same principal. It returns
// errRevoked when it no longer is, or the store's error (the caller ends
// the connection either way: fail closed).
func (s *Server) stillAuthenticated(ctx context.Context, r *http.Request) error {
	was := principalOf(r)
	var p domain.Principal
	var found bool
	var err error
	if token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		p, found, err = s.authenticate(ctx, token)
	} else {
		_, p, err = s.consoleSession(r.WithContext(ctx))
		found = err == nil
		if err == errNoSession {
			err = nil
		}
	}
	switch {
	case err != nil:
		return err
	case !found || p.Name != was.Name || p.Role != was.Role:
		return errRevoked
	}
	return nil
}

// untilRevoked returns a channel closed when the server drains or r's
// credential stops authenticating (checked every CredentialRecheck while
// r lasts), for a request that waits for a person: an exec whose approval
// comes after its credential was revoked ends its wait unanswered (202)
// instead of running. stop ends the watch.
func (s *Server) untilRevoked(r *http.Request) (ended <-chan struct{}, stop func()) {
	out, done := make(chan struct{}), make(chan struct{})
	go func() {
		t := time.NewTicker(CredentialRecheck)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-r.Context().Done():
				return
			case <-s.draining:
				close(out)
				return
			case <-t.C:
				if s.stillAuthenticated(r.Context(), r) != nil {
					close(out)
					return
				}
			}
		}
	}()
	return out, func() { close(done) }
}

// cancelOnRevocation cancels ctx, with errRevoked for its cause, once r's
// credential no longer authenticates (checked every CredentialRecheck
// while ctx lasts): a command /exec runs is killed then. A store that
// cannot say is not a revocation: what runs goes on.
func (s *Server) cancelOnRevocation(ctx context.Context, r *http.Request, cancel context.CancelCauseFunc) {
	t := time.NewTicker(CredentialRecheck)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if errors.Is(s.stillAuthenticated(ctx, r), errRevoked) {
				cancel(errRevoked)
				return
			}
		}
	}
}

// reauthBody authenticates the request's credential again once its body
// has been read to the end (stillAuthenticated), and answers the read with
// errRevoked when it no longer is: the credential was checked when the
// header block came, and a body the client held back until after a
// revocation (Expect: 100-continue, a slow upload) carried a command that
// then ran (the hundred-and-forty-fifth review).
type reauthBody struct {
	io.ReadCloser
	check func() error
	done  bool
	err   error
}

func (b *reauthBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		if b.err = b.check(); b.err != nil {
			return n, b.err
		}
	}
	return n, err
}

// authenticatedAs returns r authenticated as p: its context carries p
// (principalOf) and its recheck (recheckOf, engine.WithRecheck): a
// function that authenticates its credential again (stillAuthenticated),
// for code that has only the request's context.
func (s *Server) authenticatedAs(r *http.Request, p domain.Principal) *http.Request {
	ctx := context.WithValue(r.Context(), principalKey{}, p)
	as := r.WithContext(ctx)
	recheck := func(ctx context.Context) error { return s.stillAuthenticated(ctx, as) }
	return r.WithContext(engine.WithRecheck(ctx, recheck))
}

// recheckOf authenticates the credential of the request ctx belongs to
// again (nil for a context without one: no request's). The engine calls
// the same once a command has waited for its turn (engine.Recheck).
func recheckOf(ctx context.Context) error { return engine.Recheck(ctx) }

// reauthAtEOF wraps the body of r, authenticated as p, in a reauthBody
// (when it has one).
func (s *Server) reauthAtEOF(r *http.Request, p domain.Principal) {
	if r.Body == nil || r.Body == http.NoBody {
		return
	}
	as := r.WithContext(context.WithValue(r.Context(), principalKey{}, p))
	r.Body = &reauthBody{ReadCloser: r.Body, check: func() error { return s.stillAuthenticated(as.Context(), as) }}
}

// budgetOf is the body budget's reader under body (nil when none).
func budgetOf(body io.ReadCloser) *budgetedBody {
	if rb, ok := body.(*reauthBody); ok {
		body = rb.ReadCloser
	}
	bb, _ := body.(*budgetedBody)
	return bb
}

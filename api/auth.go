package api

import (
	"context"
	"crypto/subtle"
	"net/http"
	"strings"

	"turnstile/domain"
	"turnstile/domain/eventcodec"
	"turnstile/domain/turn"
)

// BootstrapName is the name of the admin principal the configured token
// (TURNSTILE_TOKEN, --token-file or <data>/token) authenticates.
const BootstrapName = domain.ReservedAdminName

type principalKey struct{}

// principalOf is the authenticated principal of a request (the zero
// principal, which may do nothing, when there is none).
func principalOf(r *http.Request) domain.Principal {
	p, _ := r.Context().Value(principalKey{}).(domain.Principal)
	return p
}

// auth authenticates "Authorization: Bearer <token>": a named credential's
// token (TokenPrefix…) against the credential store, read up to date, or
// the configured admin token, compared in constant time. Identity comes
// from the credential only: no header sets or overrides it.
func (s *Server) auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, hasAuth := r.Header["Authorization"]; !hasAuth {
			if c, err := r.Cookie(sessionCookie); err == nil {
				s.sessionAuth(w, r, c.Value, next) // the console's session (ui.go)
				return
			}
		}
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		var p domain.Principal
		var found bool
		if ok {
			var err error
			if p, found, err = s.authenticate(r.Context(), got); err != nil {
				s.chargeBodyTo(r, domain.Principal{})
				s.withinUnauthenticated(w, r, func() {
					if !hookPreToolUseRefused(w, r, err) {
						writeError(w, err) // the store is unreachable: fail closed
					}
				})
				return
			}
		}
		if !found {
			err := errorf(http.StatusUnauthorized, "unauthorized", nil, "a valid bearer token is required (Authorization: Bearer <token>)")
			s.chargeBodyTo(r, domain.Principal{}) // the hook's body is read unauthenticated
			s.withinUnauthenticated(w, r, func() {
				if hookPreToolUseRefused(w, r, err) {
					return
				}
				w.Header().Set("WWW-Authenticate", `Bearer realm="turnstile"`)
				writeError(w, err)
			})
			return
		}
		s.chargeBodyTo(r, p)
		s.reauthAtEOF(r, p)
		s.withinRequests(w, r, p, func() { next.ServeHTTP(w, s.authenticatedAs(r, p)) })
	})
}

// authenticate finds the principal of a token: a named credential's token
// (TokenPrefix…) against the credential store, read up to date, or the
// configured admin token, compared in constant time.
func (s *Server) authenticate(ctx context.Context, token string) (domain.Principal, bool, error) {
	if strings.HasPrefix(token, TokenPrefix) && s.creds != nil {
		pp, found, err := s.creds.Authenticate(ctx, token)
		if err != nil || found {
			return pp, found, err
		}
	}
	want := []byte(s.cfg.Token)
	if len(want) == 0 || subtle.ConstantTimeCompare([]byte(token), want) != 1 {
		return domain.Principal{}, false, nil
	}
	return domain.Principal{Name: BootstrapName, Role: domain.RoleAdmin}, true, nil
}

// allow refuses, before the handler runs, a principal whose role may not
// perform op.
func (s *Server) allow(op domain.Operation) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if err := principalOf(r).Authorize(op); err != nil {
				writeError(w, err)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// authorizeTurn checks that the request's principal may perform op on the
// turn: its role, and, for a scoped principal, the turn's workspace. A
// scoped principal learns nothing of a turn it cannot find, nor of one
// outside its workspaces (404 either way).
func (s *Server) authorizeTurn(r *http.Request, op domain.Operation, turnID string) error {
	p := principalOf(r)
	if err := p.Authorize(op); err != nil {
		return err
	}
	if !p.Scoped() {
		return nil
	}
	ws, ok, err := s.turnWorkspace(r.Context(), turnID)
	if err != nil {
		return err
	}
	if !ok || !p.InScope(ws) {
		// A turn of another workspace is answered as a missing one: the
		// answer would otherwise confirm its id and name its workspace.
		return &turn.NotFoundError{Kind: "turn", ID: turnID}
	}
	return p.AuthorizeIn(op, ws)
}

// turnWorkspace is the workspace of a turn: from the read models, else from
// the turn's first event in the store (a turn another instance has just
// started may not have reached this instance's read models yet).
func (s *Server) turnWorkspace(ctx context.Context, turnID string) (string, bool, error) {
	if t, ok := s.cfg.Projector.Turn(turnID); ok {
		return t.WorkspaceID, true, nil
	}
	if checkID("turn_id", turnID) != nil {
		return "", false, nil
	}
	recs, err := s.cfg.Store.ReadStream(ctx, turn.StreamName(turnID), 0, 1)
	if err != nil || len(recs) == 0 {
		return "", false, err
	}
	e, err := eventcodec.DecodeUnhashed(&recs[0])
	if err != nil {
		return "", false, err
	}
	st, ok := e.Payload.(*turn.TurnStarted)
	if !ok {
		return "", false, nil
	}
	return st.WorkspaceID, true, nil
}

// meta builds a command's metadata: the actor is the authenticated
// principal; X-Request-Id, when short enough, is the correlation id.
func meta(r *http.Request) turn.Meta {
	m := turn.Meta{Actor: principalOf(r).Actor()}
	if c := r.Header.Get("X-Request-Id"); len(c) <= domain.MaxIDLength {
		m.CorrelationID = c
	}
	return m
}

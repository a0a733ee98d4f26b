package api

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"

	"turnstile/api/ui"
	"turnstile/domain"
)

// The approval console (/ui): static assets embedded in the binary, and a
// session that keeps the signed-in credential on the server. The browser
// holds only a random session id in an HttpOnly, SameSite=Strict cookie;
// the console's script calls the /v1 API with that cookie and, on every
// request, the session's CSRF token in X-CSRF-Token (checkCSRF): a browser
// sends the cookie to every port of the console's host, the token stays in
// the console's origin.

const (
	sessionCookie = "turnstile_session"
	csrfHeader    = "X-CSRF-Token"
	// SessionTTL is how long a console session lasts after sign-in.
	SessionTTL  = 12 * time.Hour
	maxSessions = 10000
)

// consoleCSP is the console's Content-Security-Policy: its own scripts,
// styles and connections only; no inline code, no frames, no plugins.
const consoleCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// session is one signed-in console.
type session struct {
	id      string // its cookie's value
	token   string // the credential's secret: never sent back to the browser
	csrf    string
	expires time.Time
}

// sessions holds the console sessions of this instance.
type sessions struct {
	mu sync.Mutex
	m  map[string]*session // guarded by mu
}

func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (ss *sessions) create(token string, now time.Time) (string, *session) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.m == nil {
		ss.m = map[string]*session{}
	}
	for id, se := range ss.m {
		if now.After(se.expires) || len(ss.m) >= maxSessions {
			delete(ss.m, id)
		}
	}
	id := randomToken()
	se := &session{id: id, token: token, csrf: randomToken(), expires: now.Add(SessionTTL)}
	ss.m[id] = se
	return id, se
}

func (ss *sessions) get(id string, now time.Time) (*session, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	se, ok := ss.m[id]
	if ok && now.After(se.expires) {
		delete(ss.m, id)
		return nil, false
	}
	return se, ok
}

func (ss *sessions) drop(id string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	delete(ss.m, id)
}

// routeConsole adds /ui: the assets and the session endpoints. They need no
// bearer token; the API calls the console makes go through auth with the
// session cookie.
func (s *Server) routeConsole(r chi.Router) {
	r.Route("/ui", func(r chi.Router) {
		r.Use(consoleHeaders)
		r.Get("/", s.consoleAsset)
		r.Get("/{asset}", s.consoleAsset)
		r.Get("/session", s.consoleWhoAmI)
		r.Post("/session", s.consoleSignIn)
		r.Delete("/session", s.consoleSignOut)
	})
}

// consoleHeaders sets the console's security headers on every /ui answer.
func consoleHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", consoleCSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

var consoleTypes = map[string]string{".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}

func (s *Server) consoleAsset(w http.ResponseWriter, r *http.Request) {
	name := chi.URLParam(r, "asset")
	if name == "" {
		name = "index.html"
	}
	b, err := fs.ReadFile(ui.Assets, name)
	ext := name[strings.LastIndexByte(name, '.')+1:]
	if err != nil || strings.Contains(name, "/") || consoleTypes["."+ext] == "" {
		writeError(w, errNotFound)
		return
	}
	w.Header().Set("Content-Type", consoleTypes["."+ext])
	_, _ = w.Write(b)
}

// sameOrigin refuses a request another site caused: a browser marks it
// with Sec-Fetch-Site, and a cross-origin POST carries a foreign Origin.
func sameOrigin(r *http.Request) error {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return errorf(http.StatusForbidden, "csrf_refused", map[string]any{"sec_fetch_site": site}, "a request from another site (Sec-Fetch-Site: %s) is refused", site)
	}
	if o := r.Header.Get("Origin"); o != "" {
		if u, err := url.Parse(o); err != nil || u.Host != r.Host || (u.Scheme != "http" && u.Scheme != "https") {
			return errorf(http.StatusForbidden, "csrf_refused", map[string]any{"origin": o}, "a request from origin %q is refused", o)
		}
	}
	return nil
}

// maxSignInBytes bounds the body of a sign-in, which no credential
// authenticates: the agent needs none to send one.
const maxSignInBytes = 8 << 10

// signInRequest is the body of POST /ui/session.
type signInRequest struct {
	Token string `json:"token"`
}

type sessionInfo struct {
	Name       string      `json:"name"`
	Role       domain.Role `json:"role"`
	Workspaces []string    `json:"workspaces,omitempty"`
	CSRFToken  string      `json:"csrf_token"`
	ExpiresAt  time.Time   `json:"expires_at"`
}

// consoleSignIn exchanges a credential for a session. A runtime credential
// is refused: the agent's credential must never answer approvals.
func (s *Server) consoleSignIn(w http.ResponseWriter, r *http.Request) {
	if err := sameOrigin(r); err != nil {
		writeError(w, err)
		return
	}
	// The console sends the token as "Authorization: Bearer": a header,
	// bounded with every request's, so a sign-in needs no share of the
	// body budget. The requests without a credential share an eighth of
	// it, which the agent, needing no credential to send a sign-in's body,
	// could hold with unfinished ones: every sign-in was then refused 503
	// (the fifty-fourth review). A token in the body (a client of its
	// own) still counts against that share, and a token is short.
	var req signInRequest
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		req.Token = tok
	} else {
		s.chargeBodyTo(r, domain.Principal{})
		r.Body = http.MaxBytesReader(w, r.Body, maxSignInBytes)
		var err error
		read := false
		s.withinUnauthenticated(w, r, func() { read, err = true, decodeJSON(w, r, &req) })
		if !read {
			return // answered 429: past the bound of requests without a credential
		}
		if err != nil {
			writeError(w, err)
			return
		}
	}
	p, found, err := s.authenticate(r.Context(), req.Token)
	if err != nil {
		writeError(w, err)
		return
	}
	if !found {
		writeError(w, errorf(http.StatusUnauthorized, "unauthorized", nil, "this credential is not valid"))
		return
	}
	switch p.Role {
	case domain.RoleApprover, domain.RoleAuditor, domain.RoleAdmin:
	default:
		writeError(w, errorf(http.StatusForbidden, "forbidden", map[string]any{"role": p.Role, "allowed_roles": []domain.Role{domain.RoleApprover, domain.RoleAuditor, domain.RoleAdmin}},
			"a %s credential cannot sign in to the console", p.Role))
		return
	}
	id, se := s.sessions.create(req.Token, time.Now())
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: id, Path: "/", HttpOnly: true, Secure: r.TLS != nil,
		SameSite: http.SameSiteStrictMode, Expires: se.expires})
	writeJSON(w, http.StatusOK, sessionInfo{Name: p.Name, Role: p.Role, Workspaces: p.Workspaces, CSRFToken: se.csrf, ExpiresAt: se.expires})
}

// consoleWhoAmI answers the session's principal to a request that carries
// its CSRF token: the console, reloaded, checks that its session still
// holds. The cookie alone does not get the token: it reaches every port of
// the console's host (checkCSRF).
func (s *Server) consoleWhoAmI(w http.ResponseWriter, r *http.Request) {
	se, p, err := s.consoleSession(r)
	if err == nil {
		err = checkCSRF(r, se)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, sessionInfo{Name: p.Name, Role: p.Role, Workspaces: p.Workspaces, CSRFToken: se.csrf, ExpiresAt: se.expires})
}

func (s *Server) consoleSignOut(w http.ResponseWriter, r *http.Request) {
	se, _, err := s.consoleSession(r)
	if err == nil {
		err = checkCSRF(r, se)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	s.sessions.drop(se.id)
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, MaxAge: -1})
	w.WriteHeader(http.StatusNoContent)
}

var errNoSession = errorf(http.StatusUnauthorized, "unauthorized", nil, "sign in to the console first")

// consoleSession is the request's session and its principal, authenticated
// again from the stored credential (a revoked credential ends the session).
//
// Every session cookie the request carries is tried, the first that names
// a live session taken: a page on another port of the console's host may
// set a cookie of the same name with a longer path (Path=/v1), which the
// browser sends first, and the console's own then went unread: every
// request of the person's was refused (the fifty-fourth review).
func (s *Server) consoleSession(r *http.Request) (*session, domain.Principal, error) {
	var se *session
	for _, c := range r.CookiesNamed(sessionCookie) {
		if got, ok := s.sessions.get(c.Value, time.Now()); ok {
			se = got
			break
		}
	}
	if se == nil {
		return nil, domain.Principal{}, errNoSession
	}
	if err := sameOrigin(r); err != nil {
		return nil, domain.Principal{}, err
	}
	p, found, err := s.authenticate(r.Context(), se.token)
	if err != nil {
		return nil, domain.Principal{}, err
	}
	if !found || p.Role == domain.RoleRuntime {
		s.sessions.drop(se.id)
		return nil, domain.Principal{}, errNoSession
	}
	return se, p, nil
}

// checkCSRF requires the session's CSRF token on every request the
// session authenticates, reads too. The session cookie is no proof that
// the console sent a request: a browser sends a host's cookies to every
// port of it, and SameSite counts no port either (RFC 6265 §8.5), so a
// server on another port of the console's host (the agent's, where its
// commands may listen) that the person opens gets the cookie. The token is
// given only by the sign-in answer (and to a request that already carries
// it), and the console keeps it in its origin's storage, which no other
// port reads. An EventSource cannot send a header: the event stream takes
// the token as ?csrf_token= too.
func checkCSRF(r *http.Request, se *session) error {
	got := r.Header.Get(csrfHeader)
	if got == "" && r.Method == http.MethodGet && r.URL.Path == "/v1/events" {
		got = r.URL.Query().Get("csrf_token")
	}
	if got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(se.csrf)) != 1 {
		return errorf(http.StatusForbidden, "csrf_refused", nil, "a request from the console needs its %s header (the sign-in answer's csrf_token)", csrfHeader)
	}
	return nil
}

// sessionAuth authenticates an API request by its console session: the
// request must come from the console's own origin, carry the CSRF token
// (checkCSRF), and is refused on the endpoints the console never uses
// (JSON-RPC, hooks).
func (s *Server) sessionAuth(w http.ResponseWriter, r *http.Request, _ string, next http.Handler) {
	se, p, err := s.consoleSession(r)
	if err == nil {
		err = checkCSRF(r, se)
	}
	if err == nil && (r.URL.Path == "/rpc" || strings.HasPrefix(r.URL.Path, "/v1/hooks/") || strings.HasPrefix(r.URL.Path, "/v1/credentials")) {
		err = errorf(http.StatusForbidden, "forbidden", nil, "the console session does not reach %s; use a bearer credential", r.URL.Path)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	s.chargeBodyTo(r, p)
	s.reauthAtEOF(r, p)
	s.withinRequests(w, r, p, func() { next.ServeHTTP(w, s.authenticatedAs(r, p)) })
}

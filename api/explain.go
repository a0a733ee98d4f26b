package api

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"

	"turnstile/domain"
	"turnstile/domain/engine"
)

// Explainer checks one path or URL against a snapshot as it stands (not as
// an approval would open it): the sandbox's file and network checks.
type Explainer interface {
	// ExplainFile returns the canonical path op would use, or a refusal
	// (with the path it judged, when it got that far).
	ExplainFile(s *domain.TurnExecutionSecuritySnapshot, path string, op domain.Access) (string, error)
	ExplainURL(s *domain.TurnExecutionSecuritySnapshot, rawURL string) error
}

// ExplainCheck is one operation's answer.
type ExplainCheck struct {
	Allowed bool   `json:"allowed"`
	Refusal string `json:"refusal,omitempty"`
	Message string `json:"message,omitempty"`
}

// ExplainResponse is GET /v1/turns/{id}/explain: what the turn's snapshot
// allows at a path (read and write) or a URL, and, for a turn that selected
// a permission profile, the rule that decides the path.
type ExplainResponse struct {
	TurnID            string                               `json:"turn_id"`
	PermissionProfile domain.TurnPermissionProfileSnapshot `json:"permission_profile"`
	Path              string                               `json:"path,omitempty"`
	ResolvedPath      string                               `json:"resolved_path,omitempty"`
	Read              *ExplainCheck                        `json:"read,omitempty"`
	Write             *ExplainCheck                        `json:"write,omitempty"`
	// Rule is the profile rule that decides ResolvedPath (nil for a mode,
	// or when no rule matches: deny).
	Rule        *domain.PathRule `json:"rule,omitempty"`
	Specificity int              `json:"specificity,omitempty"`
	URL         string           `json:"url,omitempty"`
	Method      string           `json:"method,omitempty"`
	Network     *ExplainCheck    `json:"network,omitempty"`
}

func check(err error) *ExplainCheck {
	if err == nil {
		return &ExplainCheck{Allowed: true}
	}
	c := &ExplainCheck{Message: err.Error()}
	var r engine.Refusal
	if errors.As(err, &r) {
		c.Refusal = r.RefusalCode()
	}
	return c
}

func (s *Server) explainTurn(w http.ResponseWriter, r *http.Request) {
	if err := s.awaitAfter(r, "after"); err != nil {
		writeError(w, err)
		return
	}
	t, err := s.readTurn(r, chi.URLParam(r, "turn_id"))
	if err != nil {
		writeError(w, err)
		return
	}
	q := r.URL.Query()
	path, rawURL := q.Get("path"), q.Get("url")
	if (path == "") == (rawURL == "") {
		writeError(w, &domain.FieldError{Field: "path", Message: "give path or url (one of them)"})
		return
	}
	if s.cfg.Explainer == nil {
		writeError(w, errorf(http.StatusServiceUnavailable, "unavailable", nil, "this server has no sandbox checker to explain with"))
		return
	}
	snap := &t.SecuritySnapshot
	out := ExplainResponse{TurnID: t.Turn.TurnID, PermissionProfile: snap.PermissionProfile}
	if rawURL != "" {
		out.URL, out.Method = rawURL, strings.ToUpper(q.Get("method"))
		if out.Method == "" {
			out.Method = "GET"
		}
		out.Network = check(s.cfg.Explainer.ExplainURL(snap, rawURL))
		if out.Network.Allowed && !snap.Network.MethodAllowed(out.Method) {
			out.Network = &ExplainCheck{Refusal: "method_not_allowed", Message: "the network is limited to " + strings.Join(snap.Network.AllowedMethods, ", ")}
		}
		if u, err := url.Parse(rawURL); err == nil && out.Network.Allowed && len(snap.Network.AllowedMethods) > 0 {
			// The methods the URL names (?_method=DELETE), as web_fetch
			// and the proxy read them (the fifty-sixth review).
			_, named := domain.NamedMethods(nil, u.Query())
			for _, m := range named {
				if !snap.Network.MethodAllowed(m) {
					out.Network = &ExplainCheck{Refusal: "method_not_allowed", Message: "the URL names the method " + m + "; the network is limited to " + strings.Join(snap.Network.AllowedMethods, ", ")}
					break
				}
			}
		}
		writeJSON(w, http.StatusOK, out)
		return
	}
	out.Path = path
	resolved, rerr := s.cfg.Explainer.ExplainFile(snap, path, domain.AccessRead)
	wresolved, werr := s.cfg.Explainer.ExplainFile(snap, path, domain.AccessWrite)
	out.Read, out.Write = check(rerr), check(werr)
	if resolved == "" {
		resolved = wresolved
	}
	out.ResolvedPath = resolved
	if resolved == "" {
		out.ResolvedPath = domain.ResolvePath(snap.Sandbox.Cwd, path)
	}
	if rules := snap.Sandbox.Filesystem.Rules; len(rules) > 0 {
		d := domain.ResolvePathRules(rules, out.ResolvedPath)
		out.Rule, out.Specificity = d.Rule, d.Specificity
	}
	writeJSON(w, http.StatusOK, out)
}

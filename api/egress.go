package api

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"turnstile/domain"
)

// EgressResponse is a turn's egress proxy: the runtime's own web tools send
// their requests through ProxyURL, so that the connection is judged by the
// same rules (and grants) as the decision that allowed it.
type EgressResponse struct {
	TurnID string `json:"turn_id"`
	// ProxyURL carries the turn's credential (http://<turn>:<cred>@host:port):
	// it names this turn only and opens nothing but the proxy. It is the
	// caller's: the decisions of its connections are recorded as the
	// caller's, and held against the caller's byte quota.
	ProxyURL string `json:"proxy_url"`
}

// turnEgress answers GET /v1/turns/{turn_id}/egress to the runtime (the
// role that decides; approvers and auditors do not get the credential).
func (s *Server) turnEgress(w http.ResponseWriter, r *http.Request) {
	turnID := chi.URLParam(r, "turn_id")
	if err := s.authorizeTurn(r, domain.OpTurnDecide, turnID); err != nil {
		writeError(w, err)
		return
	}
	t, err := s.readTurn(r, turnID)
	if err != nil {
		writeError(w, err)
		return
	}
	if s.cfg.EgressProxyURL == nil {
		writeError(w, errorf(http.StatusServiceUnavailable, "unavailable", nil, "this server runs no shared egress proxy (serve --egress-listen)"))
		return
	}
	writeJSON(w, http.StatusOK, EgressResponse{TurnID: t.Turn.TurnID, ProxyURL: s.cfg.EgressProxyURL(t.Turn.TurnID, principalOf(r).Actor(), principalOf(r).CredentialID)})
}

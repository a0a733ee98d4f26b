package api

import (
	"encoding/hex"
	"net/http"

	"turnstile/internal/serverid"
)

// serverIdentity answers a client's nonce with the server's signature of it
// and of the addresses it listens on; it needs no credential, since the
// client asks before it sends one.
func (s *Server) serverIdentity(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Identity == nil {
		writeError(w, errNotFound)
		return
	}
	q := r.URL.Query().Get("nonce")
	nonce, err := hex.DecodeString(q)
	if err != nil || len(nonce) != serverid.NonceBytes || hex.EncodeToString(nonce) != q {
		writeError(w, errorf(http.StatusBadRequest, "invalid_field", map[string]any{"field": "nonce"},
			"nonce must be %d random bytes in lowercase hex, fresh for each connection", serverid.NonceBytes))
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, s.cfg.Identity.Sign(nonce))
}

package api

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"turnstile/domain"
	"turnstile/domain/turn"
)

// VerifyResponse is the hash-chain check of a turn's stream.
type VerifyResponse struct {
	TurnID string `json:"turn_id"`
	// Valid is set when every event's prev_hash is the hash of the event
	// before it.
	Valid    bool   `json:"valid"`
	Events   int    `json:"events"`
	LastHash string `json:"last_hash"`
	// Error says where the chain breaks.
	Error string `json:"error,omitempty"`
}

// verifyTurn recomputes the turn's hash chain from the stored events.
func (s *Server) verifyTurn(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "turn_id")
	if err := checkID("turn_id", id); err != nil {
		writeError(w, err)
		return
	}
	if err := s.authorizeTurn(r, domain.OpTurnHistory, id); err != nil {
		writeError(w, err)
		return
	}
	resp := VerifyResponse{TurnID: id, Valid: true}
	for from := uint64(0); ; {
		recs, err := s.cfg.Store.ReadStream(r.Context(), turn.StreamName(id), from, 1000)
		if err != nil {
			writeError(w, err)
			return
		}
		if len(recs) == 0 {
			break
		}
		last, err := turn.VerifyChain(recs, resp.LastHash)
		if err != nil {
			resp.Valid, resp.Error = false, err.Error()
			break
		}
		resp.LastHash, resp.Events, from = last, resp.Events+len(recs), recs[len(recs)-1].Revision+1
	}
	if resp.Events == 0 && resp.Valid {
		writeError(w, &turn.NotFoundError{Kind: "turn", ID: id})
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

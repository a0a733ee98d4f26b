package api

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"turnstile/domain"
	"turnstile/domain/turn"
	"turnstile/projections"
)

// MaxWait bounds the ?wait= of long polls.
const MaxWait = 120 * time.Second

func (s *Server) listApprovals(w http.ResponseWriter, r *http.Request) {
	if err := s.awaitAfter(r, "after"); err != nil {
		writeError(w, err)
		return
	}
	q := r.URL.Query()
	status := q.Get("status")
	switch status {
	case "", projections.ApprovalPending, projections.ApprovalResolved:
	case "all":
		status = ""
	default:
		writeError(w, &domain.InvalidEnumError{Field: "status", Value: status, Allowed: []string{"pending", "resolved", "all"}})
		return
	}
	p := principalOf(r)
	if ws := q.Get("workspace_id"); ws != "" {
		if err := p.AuthorizeIn(domain.OpApprovalRead, ws); err != nil {
			writeError(w, err)
			return
		}
	}
	// The position is read before the list: every event after it is on
	// the event stream subscribed from it (Last-Event-ID), and the list
	// may already show some of them (a client keys by request_id).
	release, err := s.lists.acquire(r.Context(), p.Name)
	if err != nil {
		writeError(w, err)
		return
	}
	defer release()
	pos := s.cfg.Projector.Position()
	list, err := s.approvalsOf(r.Context(), projections.ApprovalFilter{TurnID: q.Get("turn_id"), WorkspaceID: q.Get("workspace_id"), Status: status})
	if err != nil {
		writeError(w, err)
		return
	}
	// A scoped credential sees its workspaces' requests only.
	list = slices.DeleteFunc(list, func(a projections.ApprovalView) bool { return !p.InScope(a.Request.WorkspaceID) })
	if list == nil {
		list = []projections.ApprovalView{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"approvals": list, "position": pos.String()})
}

// parseWait reads ?wait= as a Go duration ("30s") or whole seconds ("30").
func parseWait(v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		n, err2 := strconv.Atoi(v)
		if err2 != nil {
			return 0, &domain.FieldError{Field: "wait", Value: v, Message: "must be a duration such as 30s"}
		}
		d = time.Duration(n) * time.Second
	}
	if d < 0 || d > MaxWait {
		return 0, &domain.FieldError{Field: "wait", Value: v, Message: "must be between 0 and " + MaxWait.String()}
	}
	return d, nil
}

func (s *Server) getApproval(w http.ResponseWriter, r *http.Request) {
	if err := s.awaitAfter(r, "after"); err != nil {
		writeError(w, err)
		return
	}
	wait, err := parseWait(r.URL.Query().Get("wait"))
	if err != nil {
		writeError(w, err)
		return
	}
	id := chi.URLParam(r, "request_id")
	if a, ok := s.cfg.Projector.Approval(id); ok {
		if err := s.authorizeTurn(r, domain.OpApprovalRead, a.Request.TurnID); err != nil {
			writeError(w, asMissingRequest(err, id, true))
			return
		}
	} else {
		if turnID := r.URL.Query().Get("turn_id"); turnID != "" {
			// A request of a turn that ended before the recent ones: from
			// its stream (it is resolved: there is nothing to wait for).
			if err := s.authorizeTurn(r, domain.OpApprovalRead, turnID); err != nil {
				writeError(w, err)
				return
			}
			if a, ok, err := s.oldApproval(r.Context(), turnID, id); err != nil || ok {
				if err != nil {
					writeError(w, err)
				} else {
					writeJSON(w, http.StatusOK, a)
				}
				return
			}
		}
		if principalOf(r).Scoped() {
			writeError(w, &turn.NotFoundError{Kind: "request", ID: id})
			return
		}
	}
	var ended <-chan struct{}
	if wait > 0 {
		// A wait ends at its credential's revocation, and what it waited
		// for is not given to a credential revoked meanwhile.
		var stop func()
		ended, stop = s.untilRevoked(r)
		defer stop()
	}
	a, err := s.awaitApproval(r.Context(), id, wait, ended)
	if err == nil && wait > 0 {
		err = s.stillAuthenticated(r.Context(), r)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, a)
}

// awaitApproval returns the request, waiting up to wait for it to be
// resolved (or the server to drain, or ended to close).
func (s *Server) awaitApproval(ctx context.Context, id string, wait time.Duration, ended <-chan struct{}) (projections.ApprovalView, error) {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	if wait > 0 {
		s.metrics.waiting.Inc()
		defer s.metrics.waiting.Dec()
	}
	for {
		changed := s.cfg.Projector.Changed()
		a, ok := s.cfg.Projector.Approval(id)
		if !ok {
			return a, &turn.NotFoundError{Kind: "request", ID: id}
		}
		if a.Status != projections.ApprovalPending || wait == 0 {
			return a, nil
		}
		select {
		case <-changed:
		case <-deadline.C:
			return a, nil
		case <-ctx.Done():
			return a, nil
		case <-s.draining:
			return a, nil
		case <-ended:
			return a, nil
		}
	}
}

// RespondRequest is the body of POST /v1/approvals/{id}/respond.
type RespondRequest struct {
	Resolution domain.ClientResolution `json:"resolution"`
	// TurnID, when given, saves looking the request up in the read models
	// (useful right after another instance opened it).
	TurnID string `json:"turn_id,omitempty"`
}

// RespondResponse answers a response.
type RespondResponse struct {
	RequestID  string            `json:"request_id"`
	Resolution domain.Resolution `json:"resolution"`
	// Reason is why the resolution was recorded: the answer's own, or
	// sandbox_denied when an allow was recorded as a deny because the
	// request's host, looked up at last, is one the network policy refuses.
	Reason domain.Reason `json:"reason,omitempty"`
	// Replayed is set when the same resolution had already been stored.
	Replayed bool `json:"replayed"`
	// Position is the store position of the resolution: pass it as
	// ?after= to a read that must include it.
	Position string `json:"position,omitempty"`
}

func (s *Server) respond(w http.ResponseWriter, r *http.Request) {
	var req RespondRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, err)
		return
	}
	resp, err := s.doRespond(r, chi.URLParam(r, "request_id"), req.TurnID, domain.Resolution(req.Resolution))
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

// requestTurn is the turn of approval request id as the read models know
// it ("" when they do not): every open request is there. A request's turn
// never changes (its id is derived from the turn and the tool call), so a
// read model that lags behind can miss a request but never name another
// turn, and the engine then decides on the turn's own events (a request
// the turn does not have is not found). What the read models miss, the
// engine finds (its own index, else a scan of the store's log: 2 s over 1M
// events, which every answer given without turn_id after a restart cost
// before this lookup).
func (s *Server) requestTurn(id string) string {
	if a, ok := s.cfg.Projector.Approval(id); ok {
		return a.Request.TurnID
	}
	return ""
}

func (s *Server) doRespond(r *http.Request, id, turnID string, res domain.Resolution) (*RespondResponse, error) {
	if err := principalOf(r).Authorize(domain.OpApprovalRespond); err != nil {
		return nil, err
	}
	if res == "" {
		return nil, &domain.FieldError{Field: "resolution", Message: "required"}
	}
	if len(id) > maxIDLen {
		return nil, checkID("request_id", id)
	}
	located := turnID == ""
	if located {
		turnID = s.requestTurn(id)
		if turnID == "" {
			ctx, cancel := context.WithTimeout(r.Context(), s.cfg.CommandTimeout)
			defer cancel()
			var err error
			if turnID, err = s.cfg.Engine.LocateRequest(ctx, id); err != nil {
				return nil, err
			}
		}
	} else if err := checkID("turn_id", turnID); err != nil {
		return nil, err
	}
	// The resolution's actor (resolved_by) is the authenticated principal;
	// a runtime credential, or one scoped to another workspace, is refused
	// before anything is appended.
	if err := s.authorizeTurn(r, domain.OpApprovalRespond, turnID); err != nil {
		return nil, asMissingRequest(err, id, located)
	}
	out, err := s.execute(r, turnID, &turn.RespondApproval{Meta: meta(r), RequestID: id, Resolution: res})
	if err != nil {
		return nil, err
	}
	if !out.Replayed {
		s.metrics.ApprovalWait(time.Since(out.Approval.OpenedAt))
	}
	return &RespondResponse{RequestID: id, Resolution: out.Approval.Resolution, Reason: out.Approval.ResolvedReason, Replayed: out.Replayed, Position: positionOf(out.Position)}, nil
}

// asMissingRequest answers a request whose turn the caller cannot find (a
// turn outside its workspaces, authorizeTurn) as a missing request when
// the caller named only the request: the answer is then the same as for an
// id that does not exist.
func asMissingRequest(err error, id string, located bool) error {
	var nf *turn.NotFoundError
	if located && errors.As(err, &nf) {
		return &turn.NotFoundError{Kind: "request", ID: id}
	}
	return err
}

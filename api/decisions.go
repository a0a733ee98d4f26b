package api

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
	"turnstile/projections"
)

// DecisionRequest is the body of POST /v1/turns/{id}/decisions.
type DecisionRequest struct {
	ToolCallID string           `json:"tool_call_id"`
	ItemID     string           `json:"item_id,omitempty"`
	ToolName   string           `json:"tool_name"`
	Arguments  json.RawMessage  `json:"arguments,omitempty"`
	MCP        *domain.MCPHints `json:"mcp,omitempty"`
	// Dynamic marks a tool a skill registered at run time.
	Dynamic bool `json:"dynamic,omitempty"`
}

// DecisionResponse answers a decision request.
type DecisionResponse struct {
	TurnID     string            `json:"turn_id"`
	ToolCallID string            `json:"tool_call_id"`
	Decision   string            `json:"decision"`
	Reason     domain.Reason     `json:"reason"`
	Action     domain.ActionKind `json:"action"`
	ScopeHash  string            `json:"scope_hash"`
	Cached     bool              `json:"cached"`
	DecidedBy  string            `json:"decided_by"`
	// Refusal is the sandbox's reason code when reason is sandbox_denied.
	Refusal string `json:"refusal,omitempty"`
	// Replayed is set when this tool call id had been decided before: the
	// answer is the stored one and nothing was appended.
	Replayed bool  `json:"replayed"`
	Version  int64 `json:"version"`
	// Position is the store position of the turn's last event when it
	// answered: pass it as ?after= to a read that must include it.
	Position string `json:"position,omitempty"`
	// Request is the approval request when the decision is (or was) ask.
	Request *turn.ApprovalRequest `json:"request,omitempty"`
	// RequestStatus is "pending" or "resolved", with its Resolution.
	RequestStatus string            `json:"request_status,omitempty"`
	Resolution    domain.Resolution `json:"resolution,omitempty"`
	ExpiresAt     *time.Time        `json:"expires_at,omitempty"`
	// Unclassified is set when the classifier does not know the tool
	// (action unknown): the mode's default_behavior decided it. The tools
	// it knows are in docs/tools.md (turnstile tools).
	Unclassified bool `json:"unclassified,omitempty"`
}

func (s *Server) decide(w http.ResponseWriter, r *http.Request) {
	var req DecisionRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, err)
		return
	}
	resp, err := s.doDecide(r, chi.URLParam(r, "turn_id"), &req)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) doDecide(r *http.Request, turnID string, req *DecisionRequest) (*DecisionResponse, error) {
	if req.ToolCallID == "" {
		return nil, &domain.FieldError{Field: "tool_call_id", Message: "required"}
	}
	if err := req.checkLengths(); err != nil {
		return nil, err
	}
	if err := s.authorizeTurn(r, domain.OpTurnDecide, turnID); err != nil {
		return nil, err
	}
	if err := s.admitCall(r, turnID, req.ToolCallID); err != nil {
		return nil, err
	}
	res, err := s.execute(r, turnID, &turn.EvaluateTool{
		Meta: meta(r), ToolCallID: req.ToolCallID, ItemID: req.ItemID,
		Invocation: domain.Invocation{ToolName: req.ToolName, Arguments: req.Arguments, MCP: req.MCP, Dynamic: req.Dynamic},
	})
	if err != nil {
		return nil, err
	}
	if !res.Replayed {
		s.metrics.Decision(res.Decision.Behavior.String(), string(res.Decision.Reason))
		if res.Decision.Action == domain.ActionUnknown {
			s.metrics.Unclassified()
		}
	}
	return s.decisionResponse(r, turnID, req.ToolCallID, res), nil
}

func (s *Server) decisionResponse(r *http.Request, turnID, toolCallID string, res engine.Result) *DecisionResponse {
	d := res.Decision
	out := &DecisionResponse{
		TurnID: turnID, ToolCallID: toolCallID, Decision: d.Behavior.String(), Reason: d.Reason, Action: d.Action,
		ScopeHash: d.ScopeHash, Cached: d.Cached, DecidedBy: d.DecidedBy, Refusal: res.Refusal, Replayed: res.Replayed, Version: res.Turn.Version,
		Unclassified: d.Action == domain.ActionUnknown, Position: positionOf(res.Position),
	}
	if q := res.Approval; q != nil {
		// The request as its approval_requested event stored it, as the
		// read model and the event stream show it too.
		req := q.Request
		out.Request, out.RequestStatus, out.Resolution = &req, projections.ApprovalPending, q.Resolution
		if q.Status == turn.RequestResolved {
			out.RequestStatus = projections.ApprovalResolved
		}
		exp := q.ExpiresAt
		out.ExpiresAt = &exp
	}
	return out
}

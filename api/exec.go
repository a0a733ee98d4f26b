package api

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
)

// ExecRequest is the body of POST /v1/turns/{id}/exec.
type ExecRequest struct {
	ToolCallID string            `json:"tool_call_id"`
	ItemID     string            `json:"item_id,omitempty"`
	Argv       []string          `json:"argv"`
	Cwd        string            `json:"cwd,omitempty"`
	Env        map[string]string `json:"env,omitempty"`
	TimeoutMs  int64             `json:"timeout_ms,omitempty"`
	Stdin      string            `json:"stdin,omitempty"`
}

// ExecResult is what a command did.
type ExecResult = engine.CommandResult

// ExecResponse is the decision, and the result when the command ran.
type ExecResponse struct {
	DecisionResponse
	// Ran is set when the command ran; Result holds what it did.
	Ran    bool        `json:"ran"`
	Result *ExecResult `json:"result,omitempty"`
	// Message explains why nothing ran.
	Message string `json:"message,omitempty"`
}

func (s *Server) exec(w http.ResponseWriter, r *http.Request) {
	var req ExecRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, err)
		return
	}
	wait, err := parseWait(r.URL.Query().Get("wait"))
	if err != nil {
		writeError(w, err)
		return
	}
	status, resp, err := s.doExec(r, chi.URLParam(r, "turn_id"), &req, wait)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, status, resp)
}

// doExec hands the command to the engine (decide, wait, record the start,
// run, record) and maps its step to a status: 202 while it waits for a
// person, 409 when the tool call id had already started, 200 otherwise.
func (s *Server) doExec(r *http.Request, turnID string, req *ExecRequest, wait time.Duration) (int, *ExecResponse, error) {
	if req.ToolCallID == "" {
		return 0, nil, &domain.FieldError{Field: "tool_call_id", Message: "required"}
	}
	if err := req.checkLengths(); err != nil {
		return 0, nil, err
	}
	if err := s.authorizeTurn(r, domain.OpTurnExec, turnID); err != nil {
		return 0, nil, err
	}
	m := meta(r)
	cmd := &engine.Command{ToolCallID: req.ToolCallID, ItemID: req.ItemID, Argv: req.Argv, Cwd: req.Cwd, Env: req.Env,
		TimeoutMs: req.TimeoutMs, Stdin: []byte(req.Stdin), Actor: m.Actor, CorrelationID: m.CorrelationID}
	cmd.Interrupt = s.draining // a drain ends the wait for approval, not a run
	cmd.StepTimeout = s.cfg.CommandTimeout
	res, err := s.cfg.Engine.Exec(r.Context(), turnID, cmd, wait)
	if err != nil {
		return 0, nil, err
	}
	if !res.Replayed {
		s.metrics.Decision(res.Decision.Behavior.String(), string(res.Decision.Reason))
	}
	out := &ExecResponse{DecisionResponse: *s.decisionResponse(r, turnID, req.ToolCallID, res.Result), Ran: res.Ran, Result: res.Output, Message: res.Message}
	switch {
	case res.Step == turn.ExecPending:
		return http.StatusAccepted, out, nil
	case res.Step == turn.ExecAlreadyStarted:
		return http.StatusConflict, out, nil
	case res.Decision.Reason == domain.ReasonSandboxDenied:
		out.DecidedBy = "sandbox"
	}
	return http.StatusOK, out, nil
}

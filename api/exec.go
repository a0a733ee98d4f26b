package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
)

// ExecRequest is the body of POST /v1/turns/{id}/exec.
type ExecRequest struct {
	ToolCallID string   `json:"tool_call_id"`
	ItemID     string   `json:"item_id,omitempty"`
	Argv       []string `json:"argv,omitempty"`
	// Cmd is the decision endpoint's name for the command: an argv array
	// (the same as argv) or a shell string, run as /bin/sh -c CMD, as a
	// decision classifies it. Give argv or cmd, not both.
	Cmd       json.RawMessage   `json:"cmd,omitempty"`
	Cwd       string            `json:"cwd,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	TimeoutMs int64             `json:"timeout_ms,omitempty"`
	Stdin     string            `json:"stdin,omitempty"`
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
	// DroppedEnv names the variables of the request's env that the turn's
	// environment policy did not pass to the command (or passed with
	// another value): the command ran without them.
	DroppedEnv []string `json:"dropped_env,omitempty"`
}

func (s *Server) exec(w http.ResponseWriter, r *http.Request) {
	s.withinCommands(w, r, func() { s.execWithin(w, r) })
}

func (s *Server) execWithin(w http.ResponseWriter, r *http.Request) {
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
	s.writeExecAnswer(w, status, resp)
}

// doExec hands the command to the engine (decide, wait, record the start,
// run, record) and maps its step to a status: 202 while it waits for a
// person, 409 when the tool call id had already started, 200 otherwise.
func (s *Server) doExec(r *http.Request, turnID string, req *ExecRequest, wait time.Duration) (int, *ExecResponse, error) {
	if req.ToolCallID == "" {
		return 0, nil, &domain.FieldError{Field: "tool_call_id", Message: "required"}
	}
	if err := req.resolveCmd(); err != nil {
		return 0, nil, err
	}
	if err := req.checkLengths(); err != nil {
		return 0, nil, err
	}
	if err := s.authorizeTurn(r, domain.OpTurnExec, turnID); err != nil {
		return 0, nil, err
	}
	if err := s.admitCall(r, turnID, req.ToolCallID); err != nil {
		return 0, nil, err
	}
	m := meta(r)
	cmd := &engine.Command{ToolCallID: req.ToolCallID, ItemID: req.ItemID, Argv: req.Argv, Cwd: req.Cwd, Env: req.Env,
		TimeoutMs: req.TimeoutMs, Stdin: []byte(req.Stdin), Actor: m.Actor, CorrelationID: m.CorrelationID}
	cmd.Interrupt = s.draining // a drain ends the wait for approval, not a run
	if wait > 0 {
		// So does the revocation of the credential that waits.
		ended, stop := s.untilRevoked(r)
		defer stop()
		cmd.Interrupt = ended
	}
	cmd.StepTimeout = s.cfg.CommandTimeout
	// A command of a credential revoked while it runs is killed, with
	// every process it started, as its waits and streams end: its access
	// ends with the credential.
	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	go s.cancelOnRevocation(ctx, r, cancel)
	res, err := s.cfg.Engine.Exec(ctx, turnID, cmd, wait)
	if err != nil {
		return 0, nil, err
	}
	if !res.Replayed {
		s.metrics.Decision(res.Decision.Behavior.String(), string(res.Decision.Reason))
	}
	out := &ExecResponse{DecisionResponse: *s.decisionResponse(r, turnID, req.ToolCallID, res.Result), Ran: res.Ran, Result: res.Output, Message: res.Message}
	if res.Ran && len(req.Env) > 0 {
		out.DroppedEnv = res.Turn.Snapshot.Process.Environment.DroppedEnv(req.Env)
	}
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

// resolveCmd reads cmd, the decision endpoint's name for the command, into
// Argv: an array as is, a shell string as /bin/sh -c CMD.
func (req *ExecRequest) resolveCmd() error {
	if len(req.Cmd) == 0 || string(req.Cmd) == "null" {
		return nil
	}
	if len(req.Argv) > 0 {
		return &domain.FieldError{Field: "cmd", Message: "give argv or cmd, not both"}
	}
	var shell string
	if err := json.Unmarshal(req.Cmd, &shell); err == nil {
		if strings.TrimSpace(shell) == "" {
			return &domain.FieldError{Field: "cmd", Message: "must not be empty"}
		}
		req.Argv = []string{"/bin/sh", "-c", shell}
		return nil
	}
	if err := json.Unmarshal(req.Cmd, &req.Argv); err != nil {
		return &domain.FieldError{Field: "cmd", Message: "must be a shell string or an argv array of strings"}
	}
	return nil
}

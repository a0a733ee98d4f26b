package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
	"turnstile/projections"
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
type ExecResult struct {
	ExitCode        int    `json:"exit_code"`
	Stdout          string `json:"stdout"`
	Stderr          string `json:"stderr"`
	StdoutTruncated bool   `json:"stdout_truncated"`
	StderrTruncated bool   `json:"stderr_truncated"`
	DurationMs      int64  `json:"duration_ms"`
	TimedOut        bool   `json:"timed_out"`
}

// Runner checks a command against a snapshot (the spawn plan) and runs it
// in the sandbox. A refusal is an error that implements engine.Refusal.
type Runner interface {
	Run(ctx context.Context, s *domain.TurnExecutionSecuritySnapshot, req ExecRequest) (*ExecResult, error)
}

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
	if s.cfg.Runner == nil {
		writeError(w, errorf(http.StatusNotImplemented, "exec_disabled", nil, "this server runs no commands"))
		return
	}
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

// execInvocation is the exec_command invocation the decision is about: the
// environment is named by its keys only.
func execInvocation(req *ExecRequest) (domain.Invocation, error) {
	if len(req.Argv) == 0 || req.Argv[0] == "" {
		return domain.Invocation{}, &domain.FieldError{Field: "argv", Message: "required: the program and its arguments"}
	}
	args := map[string]any{"argv": req.Argv}
	if req.Cwd != "" {
		args["cwd"] = req.Cwd
	}
	if req.TimeoutMs > 0 {
		args["timeout_ms"] = req.TimeoutMs
	}
	if len(req.Env) > 0 {
		keys := map[string]string{}
		for k := range req.Env {
			keys[k] = ""
		}
		args["env"] = keys
	}
	raw, err := json.Marshal(args)
	return domain.Invocation{ToolName: "exec_command", Arguments: raw}, err
}

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
	inv, err := execInvocation(req)
	if err != nil {
		return 0, nil, err
	}
	ctx := r.Context()
	res, err := s.execute(r, turnID, &turn.EvaluateTool{Meta: meta(r), ToolCallID: req.ToolCallID, ItemID: req.ItemID, Invocation: inv})
	if err != nil {
		return 0, nil, err
	}
	if !res.Replayed {
		s.metrics.Decision(res.Decision.Behavior.String(), string(res.Decision.Reason))
	}
	out := &ExecResponse{DecisionResponse: *s.decisionResponse(r, turnID, req.ToolCallID, res)}
	switch {
	case res.Decision.Behavior == domain.BehaviorDeny:
		out.Message = "denied: " + string(res.Decision.Reason)
		return http.StatusOK, out, nil
	case res.Decision.Behavior == domain.BehaviorAllow && res.Replayed:
		out.Message = "this tool call id has already run; use a new tool_call_id to run again"
		return http.StatusConflict, out, nil
	case res.Decision.Behavior == domain.BehaviorAsk:
		a, err := s.awaitApproval(ctx, res.Request.ID, wait)
		if err != nil {
			return 0, nil, err
		}
		out.RequestStatus, out.Resolution = a.Status, a.Resolution
		if a.Status == projections.ApprovalPending {
			out.Message = "waiting for approval: resolve the request, then send the same call again (or add ?wait=30s)"
			return http.StatusAccepted, out, nil
		}
		if !a.Resolution.Allows() {
			out.Decision, out.Reason = domain.BehaviorDeny.String(), a.Resolution.Reason()
			out.Message = "not approved: " + string(a.Resolution)
			return http.StatusOK, out, nil
		}
		run, err := s.execute(r, turnID, &turn.RunApproved{Meta: meta(r), ToolCallID: req.ToolCallID})
		if err != nil {
			return 0, nil, err
		}
		out.Decision, out.Reason, out.Version = domain.BehaviorAllow.String(), domain.ReasonUserApproved, run.Version
		if run.Replayed {
			out.Message = "this approved tool call id has already run; use a new tool_call_id to run again"
			return http.StatusConflict, out, nil
		}
		res = run
	}
	return s.runCommand(r, turnID, req, inv, &res.Turn.Snapshot, out)
}

// runCommand runs an allowed command under the snapshot in force when it
// was allowed; a sandbox refusal is appended to the turn as decision_denied
// (sandbox_denied).
func (s *Server) runCommand(r *http.Request, turnID string, req *ExecRequest, inv domain.Invocation, snap *domain.TurnExecutionSecuritySnapshot, out *ExecResponse) (int, *ExecResponse, error) {
	result, err := s.cfg.Runner.Run(r.Context(), snap, *req)
	var refusal engine.Refusal
	if errors.As(err, &refusal) {
		den, derr := s.execute(r, turnID, &turn.RecordDenial{Meta: meta(r), ToolCallID: req.ToolCallID,
			ItemID: req.ItemID, Invocation: inv, Refusal: refusal.RefusalCode(), Message: refusal.Error()})
		if derr != nil {
			return 0, nil, derr
		}
		s.metrics.Decision(domain.BehaviorDeny.String(), string(domain.ReasonSandboxDenied))
		out.Decision, out.Reason, out.Refusal, out.Version = domain.BehaviorDeny.String(), domain.ReasonSandboxDenied, refusal.RefusalCode(), den.Version
		out.DecidedBy, out.Message = "sandbox", strings.TrimSpace(domain.RedactText(refusal.Error()))
		return http.StatusOK, out, nil
	}
	if err != nil {
		return 0, nil, err
	}
	out.Ran, out.Result = true, result
	return http.StatusOK, out, nil
}

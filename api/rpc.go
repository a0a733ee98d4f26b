package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"turnstile/domain"
	"turnstile/domain/turn"
	"turnstile/projections"
)

// JSON-RPC 2.0 error codes.
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
	rpcMethodNotFound = -32601
	rpcInvalidParams  = -32602
	rpcServerError    = -32000
)

type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
	ID      json.RawMessage `json:"id,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
	ID      json.RawMessage `json:"id"`
}

// rpc serves JSON-RPC 2.0 (single calls and batches) with the reference
// method names.
func (s *Server) rpc(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		writeError(w, err)
		return
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(trimmed, &batch); err != nil {
			writeJSON(w, http.StatusOK, rpcFail(nil, rpcParseError, "parse error: "+err.Error(), nil))
			return
		}
		if len(batch) == 0 {
			writeJSON(w, http.StatusOK, rpcFail(nil, rpcInvalidRequest, "invalid request: empty batch", nil))
			return
		}
		held := budgetOf(r.Body)
		out := s.rpcBatch(r, batch, held)
		if out == nil {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(out)
		return
	}
	resp, ok := s.rpcOne(r, trimmed)
	if !ok {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

// rpcBatch answers a batch's calls in order, as one JSON array (nil when
// every call was a notification). The answers are held in memory until the
// batch is answered, and a batch of 1 MiB can ask for thousands of turns
// (a turn's security snapshot alone is up to 30 KB): each answer counts
// against the request's body budget (held, released with the request or
// by the socket), as its body does. Once an answer takes it past the
// budget, that answer is still given (its call ran) and the calls after
// it do not run: each is answered the budget's server_busy error.
//
// The credential is checked again as the batch runs, as a WebSocket's is
// (cancelOnRevocation, once a CredentialRecheck): once it is revoked, the
// calls not yet run are answered credential_revoked. A batch of thousands
// of calls ran for seconds after its credential was revoked, starting and
// ending turns as the revoked principal (the hundred-and-seventieth
// review).
func (s *Server) rpcBatch(r *http.Request, batch []json.RawMessage, held *budgetedBody) []byte {
	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	go s.cancelOnRevocation(ctx, r, cancel)
	r = r.WithContext(ctx)
	var out bytes.Buffer
	var refused error
	for _, raw := range batch {
		var resp rpcResponse
		var ok bool
		if refused == nil && errors.Is(context.Cause(ctx), errRevoked) {
			refused = errRevoked
		}
		if refused == nil {
			resp, ok = s.rpcOne(r, raw)
		} else {
			resp, ok = rpcRefused(raw, refused)
		}
		if !ok {
			continue
		}
		b := rpcEncode(resp)
		if refused == nil {
			if refused = held.hold(int64(len(b))); refused != nil && rpcReadOnly(raw) {
				// A read that changed nothing is refused its answer, as
				// alone (a batch of one turn/get answered a turn past the
				// share: the hundred-and-eighty-third review); a call that
				// ran is answered.
				resp, _ = rpcRefused(raw, refused)
				b = rpcEncode(resp)
			}
		}
		if out.Len() == 0 {
			out.WriteByte('[')
		} else {
			out.WriteByte(',')
		}
		out.Write(b)
	}
	if out.Len() == 0 {
		return nil
	}
	out.WriteString("]\n")
	return out.Bytes()
}

// rpcReadOnly reports whether the call raw is one that reads (turn/get,
// turn/items: domain.OpTurnRead) and changes nothing.
func rpcReadOnly(raw json.RawMessage) bool {
	var req struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(raw, &req) == nil && rpcOperations[req.Method] == domain.OpTurnRead
}

// rpcEncode is an answer's JSON, as writeJSON writes it (without its
// newline).
func rpcEncode(resp rpcResponse) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(resp); err != nil {
		b.Reset()
		_ = enc.Encode(rpcErrorResponse(resp.ID, err))
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// rpcRefused answers a batch's call that is not run with err (nothing for
// a notification).
func rpcRefused(raw json.RawMessage, err error) (rpcResponse, bool) {
	var req rpcRequest
	if !json.Valid(raw) || json.Unmarshal(raw, &req) != nil {
		return rpcFail(nil, rpcInvalidRequest, "invalid request", nil), true
	}
	if len(req.ID) == 0 {
		return rpcResponse{}, false
	}
	return rpcErrorResponse(req.ID, err), true
}

func rpcFail(id json.RawMessage, code int, msg string, data any) rpcResponse {
	if id == nil {
		id = json.RawMessage("null")
	}
	return rpcResponse{JSONRPC: "2.0", Error: &rpcError{Code: code, Message: msg, Data: data}, ID: id}
}

// rpcOne handles one call; ok is false for a notification (no id).
func (s *Server) rpcOne(r *http.Request, raw json.RawMessage) (rpcResponse, bool) {
	if !json.Valid(raw) {
		return rpcFail(nil, rpcParseError, "parse error: invalid JSON", nil), true
	}
	var req rpcRequest
	if err := json.Unmarshal(raw, &req); err != nil || req.JSONRPC != "2.0" || req.Method == "" {
		return rpcFail(nil, rpcInvalidRequest, `invalid request: an object with "jsonrpc":"2.0" and a "method" is required`, nil), true
	}
	notify := len(req.ID) == 0
	result, err := s.rpcCall(r, req.Method, req.Params)
	if notify {
		return rpcResponse{}, false
	}
	if err != nil {
		return rpcErrorResponse(req.ID, err), true
	}
	return rpcResponse{JSONRPC: "2.0", Result: result, ID: req.ID}, true
}

type errMethodNotFound struct{ method string }

func (e *errMethodNotFound) Error() string { return "method not found: " + e.method }

func rpcErrorResponse(id json.RawMessage, err error) rpcResponse {
	if m, ok := err.(*errMethodNotFound); ok {
		return rpcFail(id, rpcMethodNotFound, m.Error(), nil)
	}
	e := mapError(err)
	data := map[string]any{"code": e.Code, "status": e.Status}
	if e.Details != nil {
		data["details"] = e.Details
	}
	code := rpcServerError
	if e.Status == http.StatusBadRequest {
		code = rpcInvalidParams
	}
	return rpcFail(id, code, e.Message, data)
}

func params(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	return decodeBytes(raw, v)
}

type turnIDParams struct {
	TurnID string `json:"turn_id"`
	Reason string `json:"reason,omitempty"`
}

func (p *turnIDParams) check() error {
	if p.TurnID == "" {
		return &domain.FieldError{Field: "turn_id", Message: "required"}
	}
	if len(p.TurnID) > maxIDLen {
		return checkID("turn_id", p.TurnID)
	}
	return nil
}

func (s *Server) rpcCall(r *http.Request, method string, raw json.RawMessage) (any, error) {
	// A method missing from the table is the admin's only: a new method
	// fails closed until it is given its roles.
	op, ok := rpcOperations[method]
	if !ok {
		op = domain.Operation("rpc:" + method)
	}
	if err := principalOf(r).Authorize(op); err != nil {
		return nil, err
	}
	switch method {
	case "turn/start":
		var p rpcTurnStartParams
		if err := params(raw, &p); err != nil {
			return nil, err
		}
		input, client, err := p.split()
		if err != nil {
			return nil, err
		}
		resp, _, err := s.startTurnWith(r, &p.StartTurnRequest, input, client)
		return resp, err
	case "turn/get":
		var p turnIDParams
		if err := params(raw, &p); err != nil {
			return nil, err
		}
		if err := p.check(); err != nil {
			return nil, err
		}
		return s.readTurn(r, p.TurnID)
	case "turn/cancel":
		var p turnIDParams
		if err := params(raw, &p); err != nil {
			return nil, err
		}
		if err := p.check(); err != nil {
			return nil, err
		}
		if err := checkReason(p.Reason); err != nil {
			return nil, err
		}
		if err := s.authorizeTurn(r, domain.OpTurnEnd, p.TurnID); err != nil {
			return nil, err
		}
		res, err := s.execute(r, p.TurnID, &turn.EndTurn{Meta: meta(r), Status: turn.StatusInterrupted, Reason: p.Reason})
		if err != nil {
			return nil, err
		}
		return s.turnResponse(r, res), nil
	case "turn/items":
		var p turnIDParams
		if err := params(raw, &p); err != nil {
			return nil, err
		}
		if err := p.check(); err != nil {
			return nil, err
		}
		if err := s.authorizeTurn(r, domain.OpTurnRead, p.TurnID); err != nil {
			return nil, err
		}
		items, err := s.timelineRows(r.Context(), p.TurnID)
		if err != nil {
			return nil, err
		}
		if items == nil {
			items = []projections.TimelineRow{}
		}
		return map[string]any{"turn_id": p.TurnID, "items": items}, nil
	case "turn/permission/request/respond":
		var p struct {
			RequestID  string                  `json:"request_id"`
			Resolution domain.ClientResolution `json:"resolution"`
			TurnID     string                  `json:"turn_id,omitempty"`
		}
		if err := params(raw, &p); err != nil {
			return nil, err
		}
		if p.RequestID == "" {
			return nil, &domain.FieldError{Field: "request_id", Message: "required"}
		}
		if len(p.RequestID) > maxIDLen {
			return nil, checkID("request_id", p.RequestID)
		}
		return s.doRespond(r, p.RequestID, p.TurnID, domain.Resolution(p.Resolution))
	}
	return nil, &errMethodNotFound{method: method}
}

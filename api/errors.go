package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
)

// Error is the one error shape of the API:
// {"error":{"code":"…","message":"…","details":{…}}}.
type Error struct {
	Status  int            `json:"-"`
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details"`
}

func (e *Error) Error() string { return e.Message }

// errorf builds an *Error.
func errorf(status int, code string, details map[string]any, format string, args ...any) *Error {
	if details == nil {
		details = map[string]any{}
	}
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...), Details: details}
}

// errNotFound is the 404 of an unknown route.
var errNotFound = errorf(http.StatusNotFound, "not_found", nil, "no such endpoint")

// mapError is the only place where errors become HTTP statuses and codes;
// REST and JSON-RPC both go through it.
func mapError(err error) *Error {
	var (
		apiErr   *Error
		enumErr  *domain.InvalidEnumError
		fieldErr *domain.FieldError
		capErr   *domain.CapExceedsParentError
		notFound *turn.NotFoundError
		resolved *turn.AlreadyResolvedError
		conflict *turn.ConflictError
		illegal  *turn.IllegalTransitionError
		tooLarge *http.MaxBytesError
		typeErr  *json.UnmarshalTypeError
		unknown  *unknownFieldError
		denied   *domain.ForbiddenError
		credDup  *domain.CredentialExistsError
		credGone *domain.CredentialNotFoundError
		lagging  *AfterTimeoutError
		quota    *domain.QuotaError
		busy     *BodyBudgetError
		tooBig   *eventstore.AppendTooLargeError
	)
	switch {
	case errors.As(err, &apiErr):
		return apiErr
	case errors.As(err, &denied):
		d := map[string]any{"principal": denied.Principal, "role": denied.Role, "operation": denied.Operation, "allowed_roles": domain.RolesAllowed(denied.Operation)}
		if denied.WorkspaceID != "" || denied.Role.Allows(denied.Operation) {
			d["workspace_id"] = denied.WorkspaceID
		}
		return errorf(http.StatusForbidden, "forbidden", d, "%s", denied.Error())
	case errors.As(err, &credDup):
		return errorf(http.StatusConflict, "credential_exists", map[string]any{"name": credDup.Name}, "%s", credDup.Error())
	case errors.As(err, &credGone):
		return errorf(http.StatusNotFound, "not_found", map[string]any{"kind": "credential", "id": credGone.Name}, "%s", credGone.Error())
	case errors.As(err, &busy):
		return errorf(http.StatusServiceUnavailable, "server_busy", map[string]any{"limit_bytes": busy.Limit}, "%s", busy.Error())
	case errors.As(err, &tooLarge):
		return errorf(http.StatusRequestEntityTooLarge, "body_too_large", map[string]any{"limit_bytes": tooLarge.Limit}, "request body is larger than %d bytes", tooLarge.Limit)
	case errors.Is(err, errMalformed):
		return errorf(http.StatusBadRequest, "invalid_json", nil, "%v", err)
	case errors.As(err, &unknown):
		return errorf(http.StatusBadRequest, "unknown_field", map[string]any{"field": unknown.field}, "unknown field %q", unknown.field)
	case errors.As(err, &typeErr):
		return errorf(http.StatusBadRequest, "invalid_type", map[string]any{"field": typeErr.Field, "got": typeErr.Value},
			"field %s has the wrong JSON type (got %s)", typeErr.Field, typeErr.Value)
	case errors.As(err, &enumErr):
		return errorf(http.StatusBadRequest, "invalid_enum", map[string]any{"field": enumErr.Field, "value": enumErr.Value, "allowed": enumErr.Allowed}, "%s", enumErr.Error())
	case errors.As(err, &fieldErr):
		return errorf(http.StatusBadRequest, "invalid_field", map[string]any{"field": fieldErr.Field, "value": fieldErr.Value}, "%s", fieldErr.Error())
	case errors.As(err, &capErr):
		return errorf(http.StatusBadRequest, "cap_exceeds_parent", map[string]any{"dimensions": capErr.Dimensions, "fields": capErr.Fields}, "%s", capErr.Error())
	case errors.As(err, &notFound):
		return errorf(http.StatusNotFound, "not_found", map[string]any{"kind": notFound.Kind, "id": notFound.ID}, "%s", notFound.Error())
	case errors.As(err, &resolved):
		return errorf(http.StatusConflict, "already_resolved", map[string]any{"request_id": resolved.RequestID, "resolution": resolved.Stored}, "%s", resolved.Error())
	case errors.As(err, &conflict):
		return errorf(http.StatusConflict, conflict.Code, nil, "%s", conflict.Message)
	case errors.As(err, &illegal):
		return errorf(http.StatusUnprocessableEntity, "illegal_transition", map[string]any{"turn_id": illegal.TurnID, "state": illegal.State, "transition": illegal.Transition}, "%s", illegal.Error())
	case errors.As(err, &quota):
		return errorf(http.StatusTooManyRequests, "quota_exceeded", map[string]any{"quota": quota.Quota, "limit": quota.Limit, "of": quota.Of}, "%s", quota.Error())
	case errors.As(err, &lagging):
		return errorf(http.StatusGatewayTimeout, "read_model_lagging", map[string]any{"field": lagging.Param, "after": lagging.After.String(), "position": lagging.Position.String()}, "%s", lagging.Error())
	case errors.As(err, &tooBig):
		return errorf(http.StatusRequestEntityTooLarge, "event_too_large", map[string]any{"limit_bytes": tooBig.Limit},
			"the event store refuses a write of more than %d bytes (EventStoreDB's and KurrentDB's MaxAppendSize), and this one is larger: a turn's security snapshot grows with each writable root (the protected list, 40 to 200 KB a root); name fewer roots, or raise MaxAppendSize on the cluster (up to 3 MiB covers the largest snapshot turnstile makes)", tooBig.Limit)
	case errors.Is(err, turn.ErrUnknownEventType):
		return errorf(http.StatusInternalServerError, "unknown_event_type", nil, "%v", err)
	case errors.Is(err, eventstore.ErrUnavailable), errors.Is(err, eventstore.ErrClosed), errors.Is(err, context.DeadlineExceeded):
		return errorf(http.StatusServiceUnavailable, "store_unavailable", nil, "the event store is unavailable: %v", err)
	case errors.Is(err, engine.ErrNoRunner):
		return errorf(http.StatusNotImplemented, "exec_disabled", nil, "this server runs no commands")
	case errors.Is(err, engine.ErrTooManyConflicts):
		return errorf(http.StatusServiceUnavailable, "contended", nil, "%v; retry", err)
	}
	return errorf(http.StatusInternalServerError, "internal", nil, "internal error: %v", err)
}

// writeError writes err in the API's error shape.
func writeError(w http.ResponseWriter, err error) {
	e := mapError(err)
	writeJSON(w, e.Status, map[string]any{"error": e})
}

// writeJSON writes v with status. An answer of largeAnswer bytes or more
// (a long list, a large turn) is held against its request's share of the
// body budget while it is written, and written within answerWriteTimeout:
// an answer the client leaves unread ends its connection rather than stay
// in the server's memory, and one the budget cannot hold is a 503
// server_busy instead.
func writeJSON(w http.ResponseWriter, status int, v any) {
	buf := answerBufs.Get().(*bytes.Buffer)
	defer putAnswerBuf(buf)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	if buf.Len() >= largeAnswer {
		if h, ok := w.(answerHolder); ok {
			if err := h.holdAnswer(int64(buf.Len())); err != nil {
				e := mapError(err)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(e.Status)
				_ = json.NewEncoder(w).Encode(map[string]any{"error": e})
				return
			}
		}
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(answerWriteTimeout))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// answerBufs are writeJSON's buffers, reused: every decision's answer goes
// through it. One that grew past largeAnswer is left to the collector.
var answerBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func putAnswerBuf(b *bytes.Buffer) {
	if b.Cap() <= largeAnswer {
		b.Reset()
		answerBufs.Put(b)
	}
}

// largeAnswer is the size from which an answer is held against the body
// budget and written within answerWriteTimeout; below it, the socket's
// buffers take it whole.
const largeAnswer = 64 << 10

// answerWriteTimeout bounds the write of a large answer (as
// Config.SSEWriteTimeout bounds a stream's writes by default).
const answerWriteTimeout = 30 * time.Second

// answerHolder counts an answer's bytes against the request's share of the
// body budget until the request ends (budgetBodies).
type answerHolder interface {
	holdAnswer(n int64) error
}

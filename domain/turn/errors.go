package turn

import (
	"errors"
	"fmt"

	"turnstile/domain"
)

// ErrNotFound is wrapped by *NotFoundError.
var ErrNotFound = errors.New("not found")

// ErrConflict is wrapped by every conflict: a different request for an
// existing turn, a reused tool call id, a request already resolved otherwise.
var ErrConflict = errors.New("conflict")

// NotFoundError names what does not exist.
type NotFoundError struct {
	Kind string // "turn" or "request"
	ID   string
}

func (e *NotFoundError) Error() string { return fmt.Sprintf("%s %s not found", e.Kind, e.ID) }

// Unwrap makes errors.Is(err, ErrNotFound) hold.
func (e *NotFoundError) Unwrap() error { return ErrNotFound }

// ConflictError is a command that contradicts what is stored.
type ConflictError struct {
	Code    string
	Message string
}

func (e *ConflictError) Error() string { return e.Message }

// Unwrap makes errors.Is(err, ErrConflict) hold.
func (e *ConflictError) Unwrap() error { return ErrConflict }

// AlreadyResolvedError is a response that differs from the stored one: the
// first resolution wins.
type AlreadyResolvedError struct {
	RequestID string
	Stored    domain.Resolution
}

func (e *AlreadyResolvedError) Error() string {
	return fmt.Sprintf("request %s is already resolved as %s", e.RequestID, e.Stored)
}

// Unwrap makes errors.Is(err, ErrConflict) hold.
func (e *AlreadyResolvedError) Unwrap() error { return ErrConflict }

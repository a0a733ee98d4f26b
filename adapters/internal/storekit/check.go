package storekit

import (
	"fmt"

	"github.com/google/uuid"

	"turnstile/domain/eventstore"
)

// Limits on input, refused by both embedded stores.
const (
	MaxStreamName = 1024
	MaxEventType  = 1024
)

// CheckAppend checks an append's expected version, stream name and event
// count; a bad one is an error wrapping invalid (the store's ErrInvalid), or
// ErrNoExpectedVersion.
func CheckAppend(invalid error, stream string, expected eventstore.ExpectedVersion, events int) error {
	if err := expected.Check(); err != nil {
		return err
	}
	switch {
	case stream == "":
		return fmt.Errorf("%w: empty stream name", invalid)
	case len(stream) > MaxStreamName:
		return fmt.Errorf("%w: stream name longer than %d bytes", invalid, MaxStreamName)
	case events == 0:
		return fmt.Errorf("%w: no events for %s", invalid, stream)
	}
	return nil
}

// CheckEvent checks event i of an append to stream: it needs an id and a
// type of at most MaxEventType bytes.
func CheckEvent(invalid error, stream string, i int, ev eventstore.EventData) error {
	switch {
	case ev.ID == uuid.Nil:
		return fmt.Errorf("%w: event %d for %s has no id", invalid, i, stream)
	case ev.Type == "":
		return fmt.Errorf("%w: event %d for %s has no type", invalid, i, stream)
	case len(ev.Type) > MaxEventType:
		return fmt.Errorf("%w: event %d for %s has a type longer than %d bytes", invalid, i, stream, MaxEventType)
	}
	return nil
}

package follow

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"turnstile/domain/eventstore"
)

// TestLoop: a failure that is not final is reported and retried after the
// backoff; a Fatal one, a closed store and an ended context stop the loop
// with their error at once.
func TestLoop(t *testing.T) {
	transient := errors.New("subscription dropped")
	final := errors.New("bad event")
	for _, c := range []struct {
		name     string
		outcomes []error // attempt i returns outcomes[i]
		want     error
		reported int // how many reach onError
	}{
		{"retried then fatal", []error{transient, nil, Fatal(final)}, final, 2},
		{"closed store", []error{fmt.Errorf("recv: %w", eventstore.ErrClosed)}, eventstore.ErrClosed, 0},
		{"fatal at once", []error{Fatal(final)}, final, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			attempts, reported := 0, 0
			err := Loop(t.Context(), func() error {
				attempts++
				return c.outcomes[attempts-1]
			}, func(error) { reported++ })
			if !errors.Is(err, c.want) {
				t.Errorf("Loop = %v, want %v", err, c.want)
			}
			if attempts != len(c.outcomes) || reported != c.reported {
				t.Errorf("%d attempts, %d reported; want %d and %d", attempts, reported, len(c.outcomes), c.reported)
			}
		})
	}
	t.Run("context ended", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		attempts := 0
		err := Loop(ctx, func() error {
			attempts++
			cancel()
			return transient
		}, nil)
		if !errors.Is(err, context.Canceled) || attempts != 1 {
			t.Errorf("Loop = %v after %d attempts, want context.Canceled after 1", err, attempts)
		}
	})
}

package logstore

import (
	"context"

	"turnstile/domain/eventstore"
)

// Subscribe delivers every event of streams whose name starts with prefix
// (all streams when prefix is empty) strictly after from: first the stored
// ones, then one CaughtUp message, then live ones as they are committed. The
// subscription (adapters/internal/storekit) reads the log itself after each
// commit, so it never drops an event and a slow reader never holds up
// appends.
func (s *Store) Subscribe(ctx context.Context, from eventstore.Position, prefix string) (eventstore.Subscription, error) {
	if err := s.Ping(ctx); err != nil {
		return nil, err
	}
	return s.feed.Subscribe("logstore", from, prefix, s.scan), nil
}

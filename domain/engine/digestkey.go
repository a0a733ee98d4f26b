package engine

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"turnstile/domain"
	"turnstile/domain/eventstore"
)

// digestKeyEvent is the digest key stream's one event.
type digestKeyEvent struct {
	Key string `json:"key"` // base64
}

// LoadDigestKey returns the store's digest key (domain.DigestKey), writing
// a new random one when the store has none: the first server on a store
// writes it, every later one (and every instance sharing the store) reads
// it, so a grant binds the same digests after a restart and on another
// instance. Two first servers racing both try to write; the loser reads
// the winner's.
func LoadDigestKey(ctx context.Context, st eventstore.Store) (domain.DigestKey, error) {
	for range 3 {
		recs, err := st.ReadStream(ctx, domain.DigestKeyStream, 0, 1)
		if err != nil {
			return domain.DigestKey{}, fmt.Errorf("reading the digest key: %w", err)
		}
		if len(recs) > 0 {
			var ev digestKeyEvent
			if recs[0].Type != domain.DigestKeyCreated || json.Unmarshal(recs[0].Data, &ev) != nil {
				return domain.DigestKey{}, fmt.Errorf("the store's %s stream does not hold a digest key (event type %s)", domain.DigestKeyStream, recs[0].Type)
			}
			b, err := base64.StdEncoding.DecodeString(ev.Key)
			if err != nil {
				return domain.DigestKey{}, fmt.Errorf("the store's digest key: %w", err)
			}
			return domain.NewDigestKey(b)
		}
		key := domain.RandomDigestKey()
		data, _ := json.Marshal(digestKeyEvent{Key: base64.StdEncoding.EncodeToString(key.Bytes())})
		meta, _ := json.Marshal(map[string]any{"type": domain.DigestKeyCreated, "schema_version": 1})
		_, err = st.Append(ctx, domain.DigestKeyStream, eventstore.NoStream(),
			[]eventstore.EventData{{ID: uuid.New(), Type: domain.DigestKeyCreated, Data: data, Metadata: meta}})
		var wrong *eventstore.WrongExpectedVersionError
		if errors.As(err, &wrong) {
			continue // another server wrote it first
		}
		if err != nil {
			return domain.DigestKey{}, fmt.Errorf("writing the digest key: %w", err)
		}
		return key, nil
	}
	return domain.DigestKey{}, errors.New("the digest key: the store's stream changed three times while it was read")
}

// DigestKey returns the engine's digest key (Config.DigestKey), reading
// the store's the first time when it has none of its own.
func (e *Engine) DigestKey(ctx context.Context) (domain.DigestKey, error) {
	if k := e.key.Load(); k != nil {
		return *k, nil
	}
	if !e.cfg.DigestKey.IsZero() {
		return e.cfg.DigestKey, nil
	}
	e.keyMu.Lock()
	defer e.keyMu.Unlock()
	if k := e.key.Load(); k != nil {
		return *k, nil
	}
	k, err := LoadDigestKey(ctx, e.store)
	if err != nil {
		return domain.DigestKey{}, err
	}
	e.key.Store(&k)
	return k, nil
}

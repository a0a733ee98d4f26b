package engine_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/uuid"

	"turnstile/adapters/boltstore"
	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/eventstore"
)

// TestLoadDigestKey: the first server on a store writes its digest key,
// every later one reads the same (servers racing on a fresh store agree
// on one key and the stream holds one event); a stream that holds
// something else is refused, not replaced.
func TestLoadDigestKey(t *testing.T) {
	ctx := context.Background()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "events.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	keys := make([]domain.DigestKey, 8)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Go(func() {
			k, err := engine.LoadDigestKey(ctx, st)
			if err != nil {
				t.Error(err)
			}
			keys[i] = k
		})
	}
	wg.Wait()
	for _, k := range keys {
		if k.IsZero() || string(k.Bytes()) != string(keys[0].Bytes()) {
			t.Fatalf("the servers disagree on the key")
		}
	}
	again, err := engine.LoadDigestKey(ctx, st)
	if err != nil || string(again.Bytes()) != string(keys[0].Bytes()) {
		t.Fatalf("a later load: %v, another key", err)
	}
	recs, err := st.ReadStream(ctx, domain.DigestKeyStream, 0, 0)
	if err != nil || len(recs) != 1 {
		t.Fatalf("the key stream holds %d events (%v), want 1", len(recs), err)
	}

	other, err := boltstore.Open(filepath.Join(t.TempDir(), "events.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Append(ctx, domain.DigestKeyStream, eventstore.NoStream(), []eventstore.EventData{{ID: uuid.New(), Type: "Something", Data: []byte(`{}`)}}); err != nil {
		t.Fatal(err)
	}
	if k, err := engine.LoadDigestKey(ctx, other); err == nil {
		t.Fatalf("a stream holding another event gave a key (%v)", k)
	}
}

package embeddedtest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"turnstile/adapters/internal/storekit"
	"turnstile/domain/eventstore"
)

// testCloseWaitsForAppends closes the store while appends run: each append
// either succeeds (and is on disk) or fails with ErrClosed.
func testCloseWaitsForAppends(t *testing.T, k Kind) {
	path := k.path(t)
	s := k.open(t, path)
	ctx := Ctx(t)
	const writers = 32
	var (
		mu    sync.Mutex
		acked []uuid.UUID
		wg    sync.WaitGroup
	)
	errs := make(chan error, writers)
	closed := make(chan error, 1)
	var closeOnce sync.Once
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				evs := NewEvents(1)
				_, err := s.Append(ctx, fmt.Sprintf("w%d", w), eventstore.Any(), evs)
				if errors.Is(err, eventstore.ErrClosed) {
					return
				}
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				acked = append(acked, evs[0].ID)
				n := len(acked)
				mu.Unlock()
				if n >= writers*5 {
					closeOnce.Do(func() { go func() { closed <- s.Close() }() })
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("append during Close: %v", err)
	}
	if err := <-closed; err != nil {
		t.Fatalf("Close: %v", err)
	}
	s = k.open(t, path)
	defer s.Close()
	stored := map[uuid.UUID]bool{}
	for _, e := range MustReadAll(t, s) {
		stored[e.ID] = true
	}
	for _, id := range acked {
		if !stored[id] {
			t.Fatalf("acknowledged event %s lost", id)
		}
	}
}

// testBlockedRecvEndsOnClose waits until a Recv is blocked for a commit
// before closing the store.
func testBlockedRecvEndsOnClose(t *testing.T, k Kind) {
	s := k.open(t, k.path(t))
	ctx := Ctx(t)
	sub, err := s.Subscribe(ctx, eventstore.Start, "")
	if err != nil {
		t.Fatal(err)
	}
	if m, err := sub.Recv(ctx); err != nil || !m.CaughtUp {
		t.Fatalf("first Recv = %+v, %v; want CaughtUp", m, err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := sub.Recv(ctx)
		done <- err
	}()
	for s.Stats().WaitingSubscribers == 0 {
		select {
		case err := <-done:
			t.Fatalf("Recv returned before Close: %v", err)
		case <-ctx.Done():
			t.Fatal("Recv never blocked")
		case <-time.After(time.Millisecond):
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, eventstore.ErrClosed) {
		t.Fatalf("blocked Recv after Close: %v, want ErrClosed", err)
	}
}

// testSubscriptionScansPastOtherStreams checks a narrow prefix over a log
// mostly of other streams (longer than one scan's limit).
func testSubscriptionScansPastOtherStreams(t *testing.T, k Kind) {
	s := k.open(t, k.path(t))
	defer s.Close()
	ctx := Ctx(t)
	MustAppend(t, s, "turn-1", eventstore.NoStream(), NewEvents(1))
	for i := range 3 {
		MustAppend(t, s, fmt.Sprintf("other-%d", i), eventstore.NoStream(), NewEvents(storekit.SubscriptionScanLimit))
	}
	MustAppend(t, s, "turn-1", eventstore.Exactly(0), NewEvents(1))
	sub, err := s.Subscribe(ctx, eventstore.Start, "turn-")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	for want := range uint64(2) {
		m, err := sub.Recv(ctx)
		if err != nil || m.Event == nil || m.Event.Stream != "turn-1" || m.Event.Revision != want {
			t.Fatalf("Recv = %+v, %v; want turn-1@%d", m, err, want)
		}
	}
	if m, err := sub.Recv(ctx); err != nil || !m.CaughtUp {
		t.Fatalf("Recv = %+v, %v; want CaughtUp", m, err)
	}
}

func testOpenRefusesLockedFile(t *testing.T, k Kind) {
	path := k.path(t)
	s := k.open(t, path)
	defer s.Close()
	if s2, err := k.OpenShortLock(path); !errors.Is(err, k.ErrLocked) {
		if s2 != nil {
			s2.Close()
		}
		t.Fatalf("second Open: %v, want ErrLocked", err)
	}
}

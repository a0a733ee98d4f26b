package boltstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	bolt "go.etcd.io/bbolt"

	"turnstile/adapters/internal/storekit"
	"turnstile/domain/eventstore"
)

// testDeadline only turns a hang into a failure.
const testDeadline = time.Minute

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), testDeadline)
	t.Cleanup(cancel)
	return ctx
}

func newEvents(n int) []eventstore.EventData {
	out := make([]eventstore.EventData, n)
	for i := range out {
		out[i] = eventstore.EventData{ID: uuid.New(), Type: "test.event", Data: fmt.Appendf(nil, `{"i":%d}`, i)}
	}
	return out
}

func mustAppend(t *testing.T, s *Store, stream string, exp eventstore.ExpectedVersion, evs []eventstore.EventData) eventstore.AppendResult {
	t.Helper()
	res, err := s.Append(testCtx(t), stream, exp, evs)
	if err != nil {
		t.Fatalf("Append(%s, %s): %v", stream, exp, err)
	}
	return res
}

func mustReadAll(t *testing.T, s *Store) []eventstore.RecordedEvent {
	t.Helper()
	evs, err := s.ReadAll(testCtx(t), eventstore.Start, 0)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func TestReopenKeepsEverything(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := newEvents(3), newEvents(2)
	mustAppend(t, s, "turn-a", eventstore.NoStream(), a[:2])
	rb := mustAppend(t, s, "turn-b", eventstore.Any(), b)
	ra := mustAppend(t, s, "turn-a", eventstore.Exactly(1), a[2:])
	before := mustReadAll(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	after := mustReadAll(t, s)
	if len(after) != len(before) || len(after) != 5 {
		t.Fatalf("after reopen %d events, before %d", len(after), len(before))
	}
	for i := range before {
		x, y := before[i], after[i]
		if x.ID != y.ID || x.Stream != y.Stream || x.Revision != y.Revision || x.Position != y.Position ||
			x.Type != y.Type || string(x.Data) != string(y.Data) || !x.Created.Equal(y.Created) {
			t.Errorf("event %d: before %+v, after %+v", i, x, y)
		}
	}
	// Retries are still recognised (the indexes are durable)...
	if got := mustAppend(t, s, "turn-a", eventstore.Exactly(1), a[2:]); got != ra {
		t.Errorf("Exactly retry after reopen = %+v, want %+v", got, ra)
	}
	if got := mustAppend(t, s, "turn-b", eventstore.Any(), b); got != rb {
		t.Errorf("Any retry after reopen = %+v, want %+v", got, rb)
	}
	// ...and new appends continue the revisions and positions.
	r := mustAppend(t, s, "turn-a", eventstore.Exactly(2), newEvents(1))
	if r.NextExpectedRevision != 3 || r.Position.Commit != 6 {
		t.Errorf("append after reopen = %+v, want revision 3 at position 6", r)
	}
}

func TestWrongExpectedVersionActual(t *testing.T) {
	s := openTemp(t, Options{})
	defer s.Close()
	ctx := testCtx(t)
	mustAppend(t, s, "s", eventstore.NoStream(), newEvents(3))
	for _, c := range []struct {
		stream string
		exp    eventstore.ExpectedVersion
		actual int64
	}{
		{"s", eventstore.NoStream(), 2},
		{"s", eventstore.Exactly(0), 2},
		{"s", eventstore.Exactly(7), 2},
		{"missing", eventstore.Exactly(0), -1},
	} {
		_, err := s.Append(ctx, c.stream, c.exp, newEvents(1))
		var wev *eventstore.WrongExpectedVersionError
		if !errors.As(err, &wev) || wev.Actual != c.actual || wev.Stream != c.stream || wev.Expected != c.exp {
			t.Errorf("Append(%s, %s): %v, want wrong expected version with actual %d", c.stream, c.exp, err, c.actual)
		}
	}
}

func TestAnyRetryRules(t *testing.T) {
	s := openTemp(t, Options{})
	defer s.Close()
	ctx := testCtx(t)
	ab := newEvents(2)
	orig := mustAppend(t, s, "s", eventstore.Any(), ab)
	mustAppend(t, s, "s", eventstore.Any(), newEvents(1))

	// A retry of events that are no longer the latest is still recognised.
	if got := mustAppend(t, s, "s", eventstore.Any(), ab); got != orig {
		t.Errorf("late Any retry = %+v, want %+v", got, orig)
	}
	// A prefix of a stored append is a retry of its first events.
	if got := mustAppend(t, s, "s", eventstore.Any(), ab[:1]); got.NextExpectedRevision != 0 {
		t.Errorf("Any retry of the first event = %+v, want revision 0", got)
	}
	// A stored first id followed by a new one conflicts.
	_, err := s.Append(ctx, "s", eventstore.Any(), []eventstore.EventData{ab[0], newEvents(1)[0]})
	var wev *eventstore.WrongExpectedVersionError
	if !errors.As(err, &wev) || wev.Actual != 2 {
		t.Errorf("Any with a stored then a new id: %v, want wrong expected version (actual 2)", err)
	}
	// The same id in another stream is a different event.
	if got := mustAppend(t, s, "other", eventstore.Any(), ab[:1]); got.NextExpectedRevision != 0 || got.Position.Commit != 4 {
		t.Errorf("same id in another stream = %+v, want a new event at position 4", got)
	}
	if n := len(mustReadAll(t, s)); n != 4 {
		t.Errorf("log has %d events, want 4", n)
	}
}

// TestBatchSemantics drives one transaction with several requests directly:
// each gets its own result and later ones see earlier ones' effects.
func TestBatchSemantics(t *testing.T) {
	s := openTemp(t, Options{})
	defer s.Close()
	ctx := testCtx(t)
	mustAppend(t, s, "x", eventstore.NoStream(), newEvents(1))
	commits := s.Stats().Commits

	a1, a2, b1 := newEvents(1), newEvents(2), newEvents(1)
	req := func(stream string, exp eventstore.ExpectedVersion, evs []eventstore.EventData) *appendReq {
		r, err := newAppendReq(ctx, stream, exp, evs)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	reqs := []*appendReq{
		req("a", eventstore.NoStream(), a1),           // writes a@0
		req("a", eventstore.NoStream(), newEvents(1)), // conflicts with the request above
		req("a", eventstore.Exactly(0), a2),           // sees a@0, writes a@1..2
		req("a", eventstore.NoStream(), a1),           // retry of the first request
		req("x", eventstore.Exactly(5), b1),           // conflicts with the stored stream
		req("b", eventstore.Any(), b1),                // writes b@0
	}
	s.commitBatch(reqs)
	var got []appendResp
	for _, r := range reqs {
		got = append(got, <-r.done)
	}
	if got[0].err != nil || got[0].res.NextExpectedRevision != 0 || got[0].res.Position.Commit != 2 {
		t.Errorf("request 0: %+v", got[0])
	}
	var wev *eventstore.WrongExpectedVersionError
	if !errors.As(got[1].err, &wev) || wev.Actual != 0 {
		t.Errorf("request 1: %+v, want wrong expected version with actual 0", got[1])
	}
	if got[2].err != nil || got[2].res.NextExpectedRevision != 2 || got[2].res.Position.Commit != 4 {
		t.Errorf("request 2: %+v", got[2])
	}
	if got[3].err != nil || got[3].res != got[0].res {
		t.Errorf("request 3 (retry): %+v, want %+v", got[3], got[0].res)
	}
	if !errors.As(got[4].err, &wev) || wev.Actual != 0 {
		t.Errorf("request 4: %+v, want wrong expected version with actual 0", got[4])
	}
	if got[5].err != nil || got[5].res.NextExpectedRevision != 0 || got[5].res.Position.Commit != 5 {
		t.Errorf("request 5: %+v", got[5])
	}
	if st := s.Stats(); st.Commits != commits+1 {
		t.Errorf("batch took %d commits, want 1", st.Commits-commits)
	}
	if n := len(mustReadAll(t, s)); n != 5 {
		t.Errorf("log has %d events, want 5", n)
	}
}

// TestCloseWaitsForAppends closes the store while appends run: each append
// either succeeds (and is on disk) or fails with ErrClosed.
func TestCloseWaitsForAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
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
				evs := newEvents(1)
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
	s, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	stored := map[uuid.UUID]bool{}
	for _, e := range mustReadAll(t, s) {
		stored[e.ID] = true
	}
	for _, id := range acked {
		if !stored[id] {
			t.Fatalf("acknowledged event %s lost", id)
		}
	}
}

// TestBlockedRecvEndsOnClose waits until a Recv is blocked for a commit
// before closing the store.
func TestBlockedRecvEndsOnClose(t *testing.T) {
	s := openTemp(t, Options{})
	ctx := testCtx(t)
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

// TestSubscriptionScansPastOtherStreams checks a narrow prefix over a log
// mostly of other streams (longer than one scan's limit).
func TestSubscriptionScansPastOtherStreams(t *testing.T) {
	s := openTemp(t, Options{})
	defer s.Close()
	ctx := testCtx(t)
	mustAppend(t, s, "turn-1", eventstore.NoStream(), newEvents(1))
	for i := range 3 {
		mustAppend(t, s, fmt.Sprintf("other-%d", i), eventstore.NoStream(), newEvents(storekit.SubscriptionScanLimit))
	}
	mustAppend(t, s, "turn-1", eventstore.Exactly(0), newEvents(1))
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

func TestOpenCreatesPrivateDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	s, err := Open(filepath.Join(dir, "events.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v, want 0700", fi.Mode().Perm())
	}
	if fi, err := os.Stat(s.Path()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file: %v, %v; want mode 0600", fi, err)
	}
}

func TestOpenRefusesLockedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s2, err := Open(path, Options{LockTimeout: 50 * time.Millisecond}); !errors.Is(err, ErrLocked) {
		if s2 != nil {
			s2.Close()
		}
		t.Fatalf("second Open: %v, want ErrLocked", err)
	}
}

func TestOpenRefusesForeignFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "other.db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("log")); return err }); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := Open(path, Options{}); !errors.Is(err, ErrFormat) {
		t.Fatalf("Open of a foreign bbolt file: %v, want ErrFormat", err)
	}
	junk := filepath.Join(t.TempDir(), "junk.db")
	if err := os.WriteFile(junk, make([]byte, 8192), 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := Open(junk, Options{}); err == nil {
		s.Close()
		t.Fatal("Open of a junk file succeeded")
	}
}

func TestInvalidInput(t *testing.T) {
	s := openTemp(t, Options{})
	defer s.Close()
	ctx := testCtx(t)
	noType := newEvents(1)
	noType[0].Type = ""
	for name, c := range map[string]struct {
		stream string
		evs    []eventstore.EventData
	}{
		"empty stream name": {"", newEvents(1)},
		"long stream name":  {string(make([]byte, maxStreamName+1)), newEvents(1)},
		"no events":         {"s", nil},
		"no type":           {"s", noType},
	} {
		if _, err := s.Append(ctx, c.stream, eventstore.Any(), c.evs); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Append(cancelled, "s", eventstore.Any(), newEvents(1)); !errors.Is(err, context.Canceled) {
		t.Errorf("append with a cancelled context: %v", err)
	}
	if n := len(mustReadAll(t, s)); n != 0 {
		t.Errorf("refused appends wrote %d events", n)
	}
}

package esdbstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/google/uuid"

	"turnstile/domain/eventstore"
	"turnstile/internal/esdbtest"
)

// The tests here never assert durations as performance: the bounds only tell
// "returned within the deadline" from "hung".

const shortTimeout = 300 * time.Millisecond

// hangBound is how long past its Timeout a call may take before the test
// calls it a hang (goroutine scheduling under -race on two cores).
const hangBound = 3 * time.Second

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func newEvents(n int, tag string) []eventstore.EventData {
	out := make([]eventstore.EventData, n)
	for i := range out {
		out[i] = eventstore.EventData{
			ID: uuid.New(), Type: "test.event",
			Data: fmt.Appendf(nil, `{"tag":%q,"i":%d}`, tag, i), Metadata: []byte(`{}`),
		}
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

// wantUnavailable runs op and checks it fails with ErrUnavailable before
// timeout+hangBound.
func wantUnavailable(t *testing.T, what string, timeout time.Duration, op func(ctx context.Context) error) {
	t.Helper()
	start := time.Now()
	err := op(testCtx(t))
	took := time.Since(start)
	if !errors.Is(err, eventstore.ErrUnavailable) {
		t.Errorf("%s: error %v, want ErrUnavailable", what, err)
	}
	if took > timeout+hangBound {
		t.Errorf("%s: returned after %v with a %v timeout (hang)", what, took, timeout)
	}
}

// allOps checks that every operation of s fails with ErrUnavailable.
func allOps(t *testing.T, s *Store, timeout time.Duration) {
	t.Helper()
	wantUnavailable(t, "Append", timeout, func(ctx context.Context) error {
		_, err := s.Append(ctx, "turn-x", eventstore.Any(), newEvents(1, "x"))
		return err
	})
	wantUnavailable(t, "ReadStream", timeout, func(ctx context.Context) error {
		_, err := s.ReadStream(ctx, "turn-x", 0, 0)
		return err
	})
	wantUnavailable(t, "ReadAll", timeout, func(ctx context.Context) error {
		_, err := s.ReadAll(ctx, eventstore.Start, 10)
		return err
	})
	wantUnavailable(t, "Subscribe", timeout, func(ctx context.Context) error {
		sub, err := s.Subscribe(ctx, eventstore.Start, "turn-")
		if err == nil {
			_ = sub.Close()
		}
		return err
	})
	wantUnavailable(t, "Ping", timeout, func(ctx context.Context) error { return s.Ping(ctx) })
}

func TestServerDownIsUnavailable(t *testing.T) {
	srv := esdbtest.Start(t)
	s := openStore(t, srv.ConnString(), Options{Timeout: shortTimeout})
	before := mustAppend(t, s, "turn-a", eventstore.NoStream(), newEvents(1, "before"))

	srv.Down()
	allOps(t, s, shortTimeout)

	// Back up on the same address: the store recovers (with a fresh client
	// if the old one gave up during discovery) without being reopened.
	if err := srv.Up(); err != nil {
		t.Fatal(err)
	}
	after := mustAppend(t, s, "turn-a", eventstore.Exactly(0), newEvents(1, "after"))
	if !before.Position.Less(after.Position) || after.NextExpectedRevision != 1 {
		t.Fatalf("after recovery: %+v (before %+v)", after, before)
	}
	if err := s.Ping(testCtx(t)); err != nil {
		t.Fatalf("Ping after recovery: %v", err)
	}
}

func TestHungServerIsUnavailable(t *testing.T) {
	srv := esdbtest.Start(t)
	connected := openStore(t, srv.ConnString(), Options{Timeout: shortTimeout})
	mustAppend(t, connected, "turn-a", eventstore.NoStream(), newEvents(1, "before"))
	fresh := openStore(t, srv.ConnString(), Options{Timeout: shortTimeout})

	srv.Hang()
	t.Run("Connected", func(t *testing.T) { allOps(t, connected, shortTimeout) })
	// A store that never connected blocks inside the client's discovery,
	// which has no deadline of its own.
	t.Run("Fresh", func(t *testing.T) { allOps(t, fresh, shortTimeout) })

	srv.Unhang()
	mustAppend(t, connected, "turn-a", eventstore.Exactly(0), newEvents(1, "after"))
	if err := fresh.Ping(testCtx(t)); err != nil {
		t.Fatalf("Ping after the server answers again: %v", err)
	}
}

func TestNothingListening(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	s := openStore(t, "esdb://"+addr+"?tls=false", Options{Timeout: shortTimeout})
	allOps(t, s, shortTimeout)
}

func TestCallerCancellationIsNotUnavailable(t *testing.T) {
	srv := esdbtest.Start(t)
	s := openStore(t, srv.ConnString(), Options{Timeout: shortTimeout})
	srv.Hang()
	defer srv.Unhang()
	ctx, cancel := context.WithCancel(testCtx(t))
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := s.Append(ctx, "turn-a", eventstore.Any(), newEvents(1, "x"))
	if !errors.Is(err, context.Canceled) || errors.Is(err, eventstore.ErrUnavailable) {
		t.Fatalf("Append cancelled by its caller: %v, want context.Canceled", err)
	}
}

// TestIdempotentRetryThroughClient loses the reply of appends after the
// server committed them: the adapter's retry resends the same ids with the
// same expected version and the server answers with the original result.
func TestIdempotentRetryThroughClient(t *testing.T) {
	srv := esdbtest.Start(t)
	s := openStore(t, srv.ConnString(), Options{Timeout: 5 * time.Second})
	ctx := testCtx(t)

	cases := []struct {
		name  string
		exp   func(stream string) eventstore.ExpectedVersion
		setup int // events stored first
	}{
		{"NoStream", func(string) eventstore.ExpectedVersion { return eventstore.NoStream() }, 0},
		{"Exactly", func(string) eventstore.ExpectedVersion { return eventstore.Exactly(1) }, 2},
		{"Any", func(string) eventstore.ExpectedVersion { return eventstore.Any() }, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stream := "turn-" + uuid.NewString()
			if tc.setup > 0 {
				mustAppend(t, s, stream, eventstore.NoStream(), newEvents(tc.setup, "setup"))
			}
			evs := newEvents(2, "retried")
			srv.InjectAppendFaults(esdbtest.FailAfterCommit, esdbtest.FailBeforeCommit, esdbtest.FailAfterCommit)
			res, err := s.Append(ctx, stream, tc.exp(stream), evs)
			if err != nil {
				t.Fatalf("Append with lost replies: %v", err)
			}
			stored, err := s.ReadStream(ctx, stream, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(stored) != tc.setup+2 {
				t.Fatalf("stream holds %d events, want %d (written once)", len(stored), tc.setup+2)
			}
			last := stored[len(stored)-1]
			if last.ID != evs[1].ID || res.NextExpectedRevision != last.Revision || res.Position != last.Position {
				t.Fatalf("result %+v, want revision %d at %s", res, last.Revision, last.Position)
			}
			// A later retry by the caller gets the same answer.
			again, err := s.Append(ctx, stream, tc.exp(stream), evs)
			if err != nil || again != res {
				t.Fatalf("caller's retry: %+v %v, want %+v", again, err, res)
			}
		})
	}
}

func TestWrongExpectedVersionActual(t *testing.T) {
	srv := esdbtest.Start(t)
	s := openStore(t, srv.ConnString(), Options{})
	mustAppend(t, s, "turn-a", eventstore.NoStream(), newEvents(2, "a"))
	for _, tc := range []struct {
		stream string
		exp    eventstore.ExpectedVersion
		actual int64
	}{
		{"turn-a", eventstore.Exactly(5), 1},
		{"turn-a", eventstore.NoStream(), 1},
		{"turn-missing", eventstore.Exactly(0), -1},
	} {
		_, err := s.Append(testCtx(t), tc.stream, tc.exp, newEvents(1, "x"))
		var wev *eventstore.WrongExpectedVersionError
		if !errors.As(err, &wev) || wev.Actual != tc.actual || wev.Stream != tc.stream || wev.Expected != tc.exp {
			t.Errorf("%s %s: %#v, want actual %d", tc.stream, tc.exp, err, tc.actual)
		}
	}
	for msg, want := range map[string]int64{
		"wrong expected version: expecting '5' but got '1'":         1,
		"wrong expected version: expecting '0' but got 'no_stream'": -1,
		"wrong expected version":                                    -2,
		"expecting 'any' but got 'what'":                            -2,
	} {
		if got := actualRevision(msg); got != want {
			t.Errorf("actualRevision(%q) = %d, want %d", msg, got, want)
		}
	}
}

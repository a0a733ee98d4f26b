package esdbstore

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	esdbc "github.com/EventStore/EventStore-Client-Go/v4/esdb"
	"github.com/google/uuid"

	"turnstile/internal/esdbtest"
)

// TestServerParity drives the raw v4 client through the documented
// semantics of a real node (NOTES-eventstore.md, KurrentDB's CheckCommit
// and read enumerators) against the test server and, when
// TURNSTILE_TEST_ESDB is set, against that real server, with the same
// expectations: the test server is only useful as far as it behaves like
// the real one.
func TestServerParity(t *testing.T) {
	t.Run("TestServer", func(t *testing.T) { paritySuite(t, esdbtest.Start(t).ConnString()) })
	t.Run("RealServer", func(t *testing.T) {
		conn := os.Getenv(envServer)
		if conn == "" {
			t.Skip(envServer + " is not set")
		}
		paritySuite(t, conn)
	})
}

func rawClient(t *testing.T, conn string) *esdbc.Client {
	t.Helper()
	cfg, err := esdbc.ParseConnectionString(conn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = esdbc.NoopLogging()
	c, err := esdbc.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func rawEvents(n int) []esdbc.EventData {
	out := make([]esdbc.EventData, n)
	for i := range out {
		out[i] = esdbc.EventData{EventID: uuid.New(), EventType: "parity", ContentType: esdbc.ContentTypeJson, Data: []byte(`{}`)}
	}
	return out
}

func paritySuite(t *testing.T, conn string) {
	c := rawClient(t, conn)
	ctx := testCtx(t)
	ns := "parity-" + strings.ReplaceAll(uuid.NewString(), "-", "")
	s, missing := ns+"-s", ns+"-missing"
	app := func(stream string, exp esdbc.ExpectedRevision, evs ...esdbc.EventData) (*esdbc.WriteResult, error) {
		return c.AppendToStream(ctx, stream, esdbc.AppendToStreamOptions{ExpectedRevision: exp}, evs...)
	}
	wrongVersion := func(what string, err error, got string) {
		t.Helper()
		var e *esdbc.Error
		if !errors.As(err, &e) || e.Code() != esdbc.ErrorCodeWrongExpectedVersion {
			t.Fatalf("%s: %v, want ErrorCodeWrongExpectedVersion", what, err)
		}
		if !strings.Contains(e.Error(), "but got '"+got+"'") {
			t.Errorf("%s: message %q does not report the current revision %s", what, e.Error(), got)
		}
	}
	read := func(stream string, opts esdbc.ReadStreamOptions, n uint64) ([]*esdbc.ResolvedEvent, error) {
		rs, err := c.ReadStream(ctx, stream, opts, n)
		if err != nil {
			return nil, err
		}
		defer rs.Close()
		var out []*esdbc.ResolvedEvent
		for {
			e, err := rs.Recv()
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			if err != nil {
				return out, err
			}
			out = append(out, e)
		}
	}

	// Expected versions and idempotency (IndexWriter.CheckCommit).
	orig := rawEvents(2)
	first, err := app(s, esdbc.NoStream{}, orig...)
	if err != nil || first.NextExpectedVersion != 1 {
		t.Fatalf("first append: %+v %v", first, err)
	}
	_, err = app(s, esdbc.NoStream{}, rawEvents(1)...)
	wrongVersion("no_stream on an existing stream", err, "1")
	_, err = app(s, esdbc.Revision(5), rawEvents(1)...)
	wrongVersion("revision ahead of the head", err, "1")
	_, err = app(s, esdbc.Revision(0), rawEvents(1)...)
	wrongVersion("revision behind the head with a new id", err, "1")
	_, err = app(s, esdbc.Revision(0), orig[1], rawEvents(1)[0])
	wrongVersion("first id replayed, second new", err, "1")
	_, err = app(missing, esdbc.Revision(0), rawEvents(1)...)
	wrongVersion("revision on a missing stream", err, "no_stream")
	_, err = app(missing, esdbc.StreamExists{}, rawEvents(1)...)
	wrongVersion("stream_exists on a missing stream", err, "no_stream")
	for _, replay := range []struct {
		what string
		exp  esdbc.ExpectedRevision
		evs  []esdbc.EventData
	}{
		{"no_stream replay", esdbc.NoStream{}, orig},
		{"any replay", esdbc.Any{}, orig},
		{"revision 0 replay of the second event", esdbc.Revision(0), orig[1:]},
	} {
		r, err := app(s, replay.exp, replay.evs...)
		if err != nil || *r != *first {
			t.Errorf("%s: %+v %v, want the original %+v", replay.what, r, err, first)
		}
	}

	// Reads.
	got, err := read(s, esdbc.ReadStreamOptions{From: esdbc.Start{}}, 10)
	if err != nil || len(got) != 2 {
		t.Fatalf("stream holds %d events (%v), want 2: replays wrote nothing", len(got), err)
	}
	e0, e1 := got[0].Event, got[1].Event
	if e1.Position.Commit != first.CommitPosition || !(e0.Position.Commit < e1.Position.Commit) {
		t.Errorf("positions %+v %+v, append result %+v", e0.Position, e1.Position, first)
	}
	if e0.CreatedDate.IsZero() || e0.ContentType != "application/json" || e0.EventType != "parity" {
		t.Errorf("system metadata: %+v", e0)
	}
	var nf *esdbc.Error
	if _, err := read(missing, esdbc.ReadStreamOptions{}, 10); !errors.As(err, &nf) || nf.Code() != esdbc.ErrorCodeResourceNotFound {
		t.Errorf("missing stream: %v, want ErrorCodeResourceNotFound", err)
	}
	if past, err := read(s, esdbc.ReadStreamOptions{From: esdbc.Revision(10)}, 10); err != nil || len(past) != 0 {
		t.Errorf("past the end: %d events, %v", len(past), err)
	}
	if back, err := read(s, esdbc.ReadStreamOptions{Direction: esdbc.Backwards, From: esdbc.End{}}, 1); err != nil || len(back) != 1 || back[0].Event.EventNumber != 1 {
		t.Errorf("backwards from the end: %v", err)
	}
	all := func(opts esdbc.ReadAllOptions) *esdbc.RecordedEvent {
		rs, err := c.ReadAll(ctx, opts, 1)
		if err != nil {
			t.Fatal(err)
		}
		defer rs.Close()
		e, err := rs.Recv()
		if err != nil {
			t.Fatalf("ReadAll %+v: %v", opts, err)
		}
		return e.Event
	}
	if e := all(esdbc.ReadAllOptions{From: e0.Position}); e.EventID != e0.EventID {
		t.Errorf("$all forwards from a position does not start with the event at it: got %s", e.EventID)
	}
	if e := all(esdbc.ReadAllOptions{From: e1.Position, Direction: esdbc.Backwards}); e.EventID != e0.EventID {
		t.Errorf("$all backwards from a position does not start with the event before it: got %s", e.EventID)
	}

	// Subscriptions: exclusive of the start, confirmation (else the client
	// fails), stored events, caught_up, live events.
	sub, err := c.SubscribeToAll(ctx, esdbc.SubscribeToAllOptions{
		From: e0.Position, Filter: &esdbc.SubscriptionFilter{Type: esdbc.StreamFilterType, Prefixes: []string{ns}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	ssub, err := c.SubscribeToStream(ctx, s, esdbc.SubscribeToStreamOptions{From: esdbc.Revision(0)})
	if err != nil {
		t.Fatal(err)
	}
	defer ssub.Close()
	untilCaughtUp := func(what string, sub *esdbc.Subscription) []*esdbc.RecordedEvent {
		var out []*esdbc.RecordedEvent
		for {
			m := sub.Recv()
			switch {
			case m.SubscriptionDropped != nil:
				t.Fatalf("%s dropped: %v", what, m.SubscriptionDropped.Error)
			case m.EventAppeared != nil:
				out = append(out, m.EventAppeared.Event)
			case m.CaughtUp != nil:
				return out
			}
		}
	}
	for _, x := range []struct {
		what string
		sub  *esdbc.Subscription
	}{{"$all subscription", sub}, {"stream subscription", ssub}} {
		if stored := untilCaughtUp(x.what, x.sub); len(stored) != 1 || stored[0].EventID != e1.EventID {
			t.Errorf("%s from event 0: %d stored events, want only event 1", x.what, len(stored))
		}
	}
	live := rawEvents(1)
	if _, err := app(s, esdbc.Revision(1), live...); err != nil {
		t.Fatal(err)
	}
	for _, x := range []*esdbc.Subscription{sub, ssub} {
		for {
			m := x.Recv()
			if m.SubscriptionDropped != nil {
				t.Fatalf("dropped: %v", m.SubscriptionDropped.Error)
			}
			if m.EventAppeared != nil {
				if m.EventAppeared.Event.EventID != live[0].EventID {
					t.Errorf("live event %s, want %s", m.EventAppeared.Event.EventID, live[0].EventID)
				}
				break
			}
		}
	}
}

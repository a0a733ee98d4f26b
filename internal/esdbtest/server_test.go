package esdbtest_test

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/EventStore/EventStore-Client-Go/v4/esdb"
	"github.com/google/uuid"

	"turnstile/internal/esdbtest"
)

// These tests drive the server with the real v4 client, so that every reply
// goes through the client code that a real node's replies go through.

func newClient(t *testing.T, conn string) *esdb.Client {
	t.Helper()
	cfg, err := esdb.ParseConnectionString(conn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = esdb.NoopLogging()
	c, err := esdb.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func evs(n int, typ string) []esdb.EventData {
	out := make([]esdb.EventData, n)
	for i := range out {
		out[i] = esdb.EventData{
			EventID: uuid.New(), EventType: typ, ContentType: esdb.ContentTypeJson,
			Data: []byte(`{"i":` + strconv.Itoa(i) + `}`), Metadata: []byte(`{"m":1}`),
		}
	}
	return out
}

func readStream(t *testing.T, c *esdb.Client, stream string, opts esdb.ReadStreamOptions, count uint64) ([]*esdb.ResolvedEvent, error) {
	t.Helper()
	rs, err := c.ReadStream(testCtx(t), stream, opts, count)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []*esdb.ResolvedEvent
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

func readAll(t *testing.T, c *esdb.Client, opts esdb.ReadAllOptions, count uint64) []*esdb.ResolvedEvent {
	t.Helper()
	rs, err := c.ReadAll(testCtx(t), opts, count)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	var out []*esdb.ResolvedEvent
	for {
		e, err := rs.Recv()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("ReadAll: %v", err)
		}
		out = append(out, e)
	}
}

func wantCode(t *testing.T, err error, code esdb.ErrorCode) *esdb.Error {
	t.Helper()
	var e *esdb.Error
	if !errors.As(err, &e) || e.Code() != code {
		t.Fatalf("error %v (%T), want *esdb.Error with code %d", err, err, code)
	}
	return e
}

func TestAppendAndReadStream(t *testing.T) {
	srv := esdbtest.Start(t)
	c := newClient(t, srv.ConnString())
	ctx := testCtx(t)

	events := evs(3, "thing-happened")
	res, err := c.AppendToStream(ctx, "orders-1", esdb.AppendToStreamOptions{ExpectedRevision: esdb.NoStream{}}, events...)
	if err != nil {
		t.Fatal(err)
	}
	if res.NextExpectedVersion != 2 || res.CommitPosition == 0 || res.CommitPosition != res.PreparePosition {
		t.Fatalf("result %+v", res)
	}
	got, err := readStream(t, c, "orders-1", esdb.ReadStreamOptions{From: esdb.Start{}}, 100)
	if err != nil || len(got) != 3 {
		t.Fatalf("read %d events, %v", len(got), err)
	}
	var prev uint64
	for i, e := range got {
		ev := e.Event
		if ev.EventID != events[i].EventID || ev.EventNumber != uint64(i) || ev.EventType != "thing-happened" ||
			ev.ContentType != "application/json" || string(ev.Data) != string(events[i].Data) || string(ev.UserMetadata) != `{"m":1}` {
			t.Errorf("event %d: %+v", i, ev)
		}
		if ev.CreatedDate.IsZero() || time.Since(ev.CreatedDate) > time.Minute {
			t.Errorf("event %d created %v", i, ev.CreatedDate)
		}
		if ev.Position.Commit != ev.Position.Prepare || ev.Position.Commit <= prev || e.Commit == nil || *e.Commit != ev.Position.Commit {
			t.Errorf("event %d position %+v after %d", i, ev.Position, prev)
		}
		prev = ev.Position.Commit
	}
	if prev != res.CommitPosition {
		t.Errorf("append position %d, last event at %d", res.CommitPosition, prev)
	}

	back, err := readStream(t, c, "orders-1", esdb.ReadStreamOptions{Direction: esdb.Backwards, From: esdb.End{}}, 2)
	if err != nil || len(back) != 2 || back[0].Event.EventNumber != 2 || back[1].Event.EventNumber != 1 {
		t.Fatalf("backwards: %d events, %v", len(back), err)
	}
	from1, err := readStream(t, c, "orders-1", esdb.ReadStreamOptions{From: esdb.Revision(1)}, 1)
	if err != nil || len(from1) != 1 || from1[0].Event.EventNumber != 1 {
		t.Fatalf("from revision 1: %d events, %v", len(from1), err)
	}
	past, err := readStream(t, c, "orders-1", esdb.ReadStreamOptions{From: esdb.Revision(10)}, 10)
	if err != nil || len(past) != 0 {
		t.Fatalf("past the end: %d events, %v", len(past), err)
	}
}

func TestReadMissingStream(t *testing.T) {
	srv := esdbtest.Start(t)
	c := newClient(t, srv.ConnString())
	rs, err := c.ReadStream(testCtx(t), "nope", esdb.ReadStreamOptions{}, 10)
	if err != nil {
		t.Fatalf("ReadStream itself failed: %v", err)
	}
	defer rs.Close()
	_, err = rs.Recv()
	e := wantCode(t, err, esdb.ErrorCodeResourceNotFound)
	if !strings.Contains(e.Error(), "'nope' is not found") {
		t.Errorf("message %q", e.Error())
	}
}

func TestWrongExpectedVersionReplies(t *testing.T) {
	srv := esdbtest.Start(t)
	c := newClient(t, srv.ConnString())
	ctx := testCtx(t)
	if _, err := c.AppendToStream(ctx, "s", esdb.AppendToStreamOptions{ExpectedRevision: esdb.NoStream{}}, evs(2, "a")...); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		stream string
		exp    esdb.ExpectedRevision
		msg    string
	}{
		{"s", esdb.NoStream{}, "expecting 'no_stream' but got '1'"},
		{"s", esdb.Revision(5), "expecting '5' but got '1'"},
		{"s", esdb.Revision(0), "expecting '0' but got '1'"},
		{"missing", esdb.Revision(0), "expecting '0' but got 'no_stream'"},
		{"missing", esdb.StreamExists{}, "expecting 'stream_exists' but got 'no_stream'"},
	}
	for _, tc := range cases {
		_, err := c.AppendToStream(ctx, tc.stream, esdb.AppendToStreamOptions{ExpectedRevision: tc.exp}, evs(1, "x")...)
		e := wantCode(t, err, esdb.ErrorCodeWrongExpectedVersion)
		if !strings.Contains(e.Error(), tc.msg) {
			t.Errorf("%s %v: message %q, want %q", tc.stream, tc.exp, e.Error(), tc.msg)
		}
	}
	got, _ := readStream(t, c, "s", esdb.ReadStreamOptions{}, 100)
	if len(got) != 2 {
		t.Fatalf("refused appends wrote: %d events", len(got))
	}
}

func TestIdempotentReplay(t *testing.T) {
	srv := esdbtest.Start(t)
	c := newClient(t, srv.ConnString())
	ctx := testCtx(t)
	app := func(stream string, exp esdb.ExpectedRevision, e ...esdb.EventData) (*esdb.WriteResult, error) {
		return c.AppendToStream(ctx, stream, esdb.AppendToStreamOptions{ExpectedRevision: exp}, e...)
	}
	a, bc, d := evs(1, "a"), evs(2, "bc"), evs(1, "d")
	if _, err := app("s", esdb.NoStream{}, a...); err != nil {
		t.Fatal(err)
	}
	orig, err := app("s", esdb.Revision(0), bc...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app("s", esdb.Revision(2), d...); err != nil {
		t.Fatal(err)
	}
	// Revision n < head with the same ids: the original result.
	again, err := app("s", esdb.Revision(0), bc...)
	if err != nil || *again != *orig {
		t.Fatalf("replay: %+v %v, want %+v", again, err, orig)
	}
	// no_stream counts as "before revision 0".
	if r, err := app("s", esdb.NoStream{}, a...); err != nil || r.NextExpectedVersion != 0 {
		t.Fatalf("no_stream replay: %+v %v", r, err)
	}
	// Any: the recent-ids cache.
	if r, err := app("s", esdb.Any{}, d...); err != nil || r.NextExpectedVersion != 3 {
		t.Fatalf("any replay: %+v %v", r, err)
	}
	// First id matches, the second does not: a wrong expected version.
	_, err = app("s", esdb.Revision(0), bc[0], evs(1, "x")[0])
	wantCode(t, err, esdb.ErrorCodeWrongExpectedVersion)
	// n == head writes even with ids already stored (KurrentDB does too).
	if r, err := app("s", esdb.Revision(3), d...); err != nil || r.NextExpectedVersion != 4 {
		t.Fatalf("same ids at the head: %+v %v", r, err)
	}
	// Once the cache has forgotten the ids, Any writes a duplicate.
	srv.ForgetRecentIDs()
	if r, err := app("s", esdb.Any{}, d...); err != nil || r.NextExpectedVersion != 5 {
		t.Fatalf("any after the cache forgot: %+v %v", r, err)
	}
	got, _ := readStream(t, c, "s", esdb.ReadStreamOptions{}, 100)
	if len(got) != 6 {
		t.Fatalf("stream has %d events, want 6", len(got))
	}
}

func TestAppendRequestValidation(t *testing.T) {
	srv := esdbtest.Start(t, esdbtest.WithMaxAppendSize(1000))
	c := newClient(t, srv.ConnString())
	big := evs(1, "big")
	big[0].Data = make([]byte, 2000)
	_, err := c.AppendToStream(testCtx(t), "s", esdb.AppendToStreamOptions{}, big...)
	if err == nil || !strings.Contains(err.Error(), "Maximum Append Size of 1000 Exceeded") {
		t.Fatalf("oversized append: %v", err)
	}
}

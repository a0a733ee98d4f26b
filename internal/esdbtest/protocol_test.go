package esdbtest_test

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/EventStore/EventStore-Client-Go/v4/esdb"
	"github.com/EventStore/EventStore-Client-Go/v4/protos/shared"
	api "github.com/EventStore/EventStore-Client-Go/v4/protos/streams"
	"github.com/google/uuid"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"turnstile/internal/esdbtest"
)

// These tests speak gRPC directly, for the parts of the protocol the v4
// client never uses or cannot show.

func rawStreams(t *testing.T, srv *esdbtest.Server) api.StreamsClient {
	t.Helper()
	cc, err := grpc.NewClient(srv.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cc.Close() })
	return api.NewStreamsClient(cc)
}

func empty() *shared.Empty { return &shared.Empty{} }

func streamReadReq(stream string, compat uint32, structured bool) *api.ReadReq {
	uuidOpt := &api.ReadReq_Options_UUIDOption{Content: &api.ReadReq_Options_UUIDOption_String_{String_: empty()}}
	if structured {
		uuidOpt = &api.ReadReq_Options_UUIDOption{Content: &api.ReadReq_Options_UUIDOption_Structured{Structured: empty()}}
	}
	return &api.ReadReq{Options: &api.ReadReq_Options{
		StreamOption: &api.ReadReq_Options_Stream{Stream: &api.ReadReq_Options_StreamOptions{
			StreamIdentifier: &shared.StreamIdentifier{StreamName: []byte(stream)},
			RevisionOption:   &api.ReadReq_Options_StreamOptions_Start{Start: empty()},
		}},
		CountOption:   &api.ReadReq_Options_Count{Count: 100},
		FilterOption:  &api.ReadReq_Options_NoFilter{NoFilter: empty()},
		UuidOption:    uuidOpt,
		ControlOption: &api.ReadReq_Options_ControlOption{Compatibility: compat},
	}}
}

func readAllReplies(t *testing.T, c api.StreamsClient, req *api.ReadReq) ([]*api.ReadResp, error) {
	t.Helper()
	rc, err := c.Read(testCtx(t), req)
	if err != nil {
		return nil, err
	}
	var out []*api.ReadResp
	for {
		r, err := rc.Recv()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
}

func TestReadCompatibilityAndUUIDOptions(t *testing.T) {
	srv := esdbtest.Start(t)
	c := newClient(t, srv.ConnString())
	if _, err := c.AppendToStream(testCtx(t), "s", esdb.AppendToStreamOptions{}, evs(2, "x")...); err != nil {
		t.Fatal(err)
	}
	raw := rawStreams(t, srv)

	// compatibility 0 (the v4 client): events only, then the end of the call.
	got, err := readAllReplies(t, raw, streamReadReq("s", 0, true))
	if err != nil || len(got) != 2 || got[0].GetEvent() == nil || got[1].GetEvent() == nil {
		t.Fatalf("compatibility 0: %v %v", got, err)
	}
	if got[0].GetEvent().GetEvent().GetId().GetStructured() == nil {
		t.Error("structured uuid option answered without structured ids")
	}
	// compatibility 1: a last_stream_position reply ends the read.
	got, err = readAllReplies(t, raw, streamReadReq("s", 1, false))
	if err != nil || len(got) != 3 || got[2].GetContent().(*api.ReadResp_LastStreamPosition).LastStreamPosition != 1 {
		t.Fatalf("compatibility 1: %v %v", got, err)
	}
	if _, err := uuid.Parse(got[0].GetEvent().GetEvent().GetId().GetString_()); err != nil {
		t.Errorf("string uuid option: %v", err)
	}
	// A missing stream: stream_not_found, then the end of the call.
	got, err = readAllReplies(t, raw, streamReadReq("missing", 0, true))
	if err != nil || len(got) != 1 || string(got[0].GetStreamNotFound().GetStreamIdentifier().GetStreamName()) != "missing" {
		t.Fatalf("missing stream: %v %v", got, err)
	}
	// No uuid option and impossible combinations are refused.
	bad := streamReadReq("s", 0, true)
	bad.Options.UuidOption = nil
	if _, err := readAllReplies(t, raw, bad); status.Code(err) != codes.InvalidArgument {
		t.Errorf("no uuid option: %v", err)
	}
	bad = streamReadReq("s", 0, true)
	bad.Options.FilterOption = &api.ReadReq_Options_Filter{Filter: &api.ReadReq_Options_FilterOptions{}}
	if _, err := readAllReplies(t, raw, bad); status.Code(err) != codes.InvalidArgument {
		t.Errorf("a filter on a stream read: %v", err)
	}
}

func TestAppendMetadataRequired(t *testing.T) {
	srv := esdbtest.Start(t)
	raw := rawStreams(t, srv)
	var trailer metadata.MD
	ac, err := raw.Append(testCtx(t), grpc.Trailer(&trailer))
	if err != nil {
		t.Fatal(err)
	}
	_ = ac.Send(&api.AppendReq{Content: &api.AppendReq_Options_{Options: &api.AppendReq_Options{
		StreamIdentifier:       &shared.StreamIdentifier{StreamName: []byte("s")},
		ExpectedStreamRevision: &api.AppendReq_Options_Any{Any: empty()},
	}}})
	_ = ac.Send(&api.AppendReq{Content: &api.AppendReq_ProposedMessage_{ProposedMessage: &api.AppendReq_ProposedMessage{
		Id:       &shared.UUID{Value: &shared.UUID_String_{String_: uuid.NewString()}},
		Metadata: map[string]string{"type": "t"}, // no content-type
	}}})
	_, err = ac.CloseAndRecv()
	if status.Code(err) != codes.InvalidArgument || trailer.Get("exception")[0] != "missing-required-metadata-property" {
		t.Fatalf("append without content-type: %v, trailers %v", err, trailer)
	}
}

func TestAllReadsAndPositions(t *testing.T) {
	srv := esdbtest.Start(t)
	c := newClient(t, srv.ConnString())
	ctx := testCtx(t)
	if _, err := c.AppendToStream(ctx, "a", esdb.AppendToStreamOptions{}, evs(3, "x")...); err != nil {
		t.Fatal(err)
	}
	all := readAll(t, c, esdb.ReadAllOptions{From: esdb.Start{}}, 100)
	var user []*esdb.ResolvedEvent
	system := 0
	for _, e := range all {
		if e.Event.StreamID[0] == '$' {
			system++
		} else {
			user = append(user, e)
		}
	}
	if system == 0 || len(user) != 3 {
		t.Fatalf("$all holds %d system and %d user events; a fresh node has system events", system, len(user))
	}
	p1 := user[1].Event.Position
	if got := readAll(t, c, esdb.ReadAllOptions{From: p1}, 1); got[0].Event.EventNumber != 1 {
		t.Errorf("forwards from a position must include the event at it")
	}
	if got := readAll(t, c, esdb.ReadAllOptions{From: p1, Direction: esdb.Backwards}, 1); got[0].Event.EventNumber != 0 {
		t.Errorf("backwards from a position must start before it")
	}
	if got := readAll(t, c, esdb.ReadAllOptions{From: esdb.End{}, Direction: esdb.Backwards}, 1); got[0].Event.EventNumber != 2 {
		t.Errorf("backwards from the end must start with the last event")
	}
	// A position inside a record is refused.
	rs, err := c.ReadAll(ctx, esdb.ReadAllOptions{From: esdb.Position{Commit: p1.Commit + 1, Prepare: p1.Commit + 1}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	if _, err := rs.Recv(); status.Code(err) != codes.InvalidArgument {
		t.Errorf("read from inside a record: %v, want InvalidArgument", err)
	}
}

func TestFilteredSubscriptionOrder(t *testing.T) {
	srv := esdbtest.Start(t)
	c := newClient(t, srv.ConnString())
	ctx := testCtx(t)
	for range 5 {
		if _, err := c.AppendToStream(ctx, "other", esdb.AppendToStreamOptions{}, evs(10, "noise")...); err != nil {
			t.Fatal(err)
		}
		if _, err := c.AppendToStream(ctx, "turn-1", esdb.AppendToStreamOptions{}, evs(1, "x")...); err != nil {
			t.Fatal(err)
		}
	}
	sub, err := c.SubscribeToAll(ctx, esdb.SubscribeToAllOptions{
		From: esdb.Start{}, MaxSearchWindow: 4, CheckpointInterval: 2,
		Filter: &esdb.SubscriptionFilter{Type: esdb.StreamFilterType, Prefixes: []string{"turn-"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	var events, checkpoints int
	var lastCheckpoint uint64
	for {
		m := sub.Recv()
		if m.SubscriptionDropped != nil {
			t.Fatal(m.SubscriptionDropped.Error)
		}
		if m.EventAppeared != nil {
			events++
			if m.EventAppeared.Event.StreamID != "turn-1" {
				t.Fatalf("filtered subscription delivered %s", m.EventAppeared.Event.StreamID)
			}
		}
		if m.CheckPointReached != nil {
			checkpoints++
			if m.CheckPointReached.Commit <= lastCheckpoint {
				t.Fatalf("checkpoint %d after %d", m.CheckPointReached.Commit, lastCheckpoint)
			}
			lastCheckpoint = m.CheckPointReached.Commit
		}
		if m.CaughtUp != nil {
			break
		}
	}
	if events != 5 || checkpoints < 55/8 {
		t.Fatalf("%d events and %d checkpoints before caught up; want 5 and one per 8 records", events, checkpoints)
	}
	// Live, then dropped by the server.
	if _, err := c.AppendToStream(ctx, "turn-2", esdb.AppendToStreamOptions{}, evs(1, "live")...); err != nil {
		t.Fatal(err)
	}
	for m := sub.Recv(); m.EventAppeared == nil; m = sub.Recv() {
		if m.SubscriptionDropped != nil {
			t.Fatal(m.SubscriptionDropped.Error)
		}
	}
	srv.DropSubscriptions()
	for m := sub.Recv(); m.SubscriptionDropped == nil; m = sub.Recv() {
	}
}

func TestHangDownUp(t *testing.T) {
	srv := esdbtest.Start(t)
	c := newClient(t, srv.ConnString())
	first := evs(1, "x")
	if _, err := c.AppendToStream(testCtx(t), "s", esdb.AppendToStreamOptions{}, first...); err != nil {
		t.Fatal(err)
	}
	srv.Hang()
	ctx, cancel := context.WithTimeout(testCtx(t), 200*time.Millisecond)
	_, err := c.AppendToStream(ctx, "s", esdb.AppendToStreamOptions{}, evs(1, "x")...)
	cancel()
	wantCode(t, err, esdb.ErrorCodeDeadlineExceeded)
	// The timed-out append may still commit once the server answers again
	// (its messages had all arrived): an ambiguous outcome, as on a real
	// node.
	srv.Unhang()

	srv.Down()
	lost := evs(1, "x")
	_, err = c.AppendToStream(testCtx(t), "s", esdb.AppendToStreamOptions{}, lost...)
	// The client reports a broken connection as Unavailable, or, when the
	// break hits a Send of the append, as an unknown error wrapping io.EOF.
	var e *esdb.Error
	if !errors.As(err, &e) || (e.Code() != esdb.ErrorUnavailable && !errors.Is(err, io.EOF)) {
		t.Fatalf("append while down: %v", err)
	}
	if err := srv.Up(); err != nil {
		t.Fatal(err)
	}
	// The data survived; a new client connects to the same address.
	c2 := newClient(t, srv.ConnString())
	got, err := readStream(t, c2, "s", esdb.ReadStreamOptions{}, 10)
	if err != nil || len(got) == 0 || got[0].Event.EventID != first[0].EventID {
		t.Fatalf("after Up: %d events, %v", len(got), err)
	}
	for _, e := range got {
		if e.Event.EventID == lost[0].EventID {
			t.Fatal("an append made while the server was down was stored")
		}
	}
}

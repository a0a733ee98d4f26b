package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"turnstile/adapters/boltstore"
	"turnstile/api"
	"turnstile/domain/engine"
	"turnstile/domain/eventstore"
	"turnstile/projections"
)

// sseServer is an api.Server on a real embedded store, with the SSE
// settings a test chooses; its listener can shrink the server's socket
// send buffer so that a client that stops reading blocks the server's
// writes after a few frames instead of megabytes.
type sseServer struct {
	*inProcess
	srv   *api.Server
	store *boltstore.Store
	proj  *projections.Projector
	root  string // a workspace root for the turns
}

func startSSE(t *testing.T, cfg api.Config, sndbuf int) *sseServer {
	t.Helper()
	return startSSEWith(t, cfg, sndbuf, nil)
}

// startSSEWith is startSSE with the server's view of the store wrapped by
// wrap (the engine and the projector use the store itself).
func startSSEWith(t *testing.T, cfg api.Config, sndbuf int, wrap func(eventstore.Store) eventstore.Store) *sseServer {
	t.Helper()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "events.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	proj := projections.New()
	cfg.Engine, cfg.Projector, cfg.Store, cfg.Token = engine.New(st, engine.Config{}), proj, st, "in-process-test-token-0123456789"
	if cfg.Credentials == nil {
		cfg.Credentials = api.NewCredentialStore(st)
	}
	if wrap != nil {
		cfg.Store = wrap(st)
	}
	srv := api.New(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- proj.Follow(ctx, st, func() { srv.SetReady(); close(ready) }) }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("projector: %v", err)
	}
	hs := httptest.NewUnstartedServer(srv.Handler())
	if sndbuf > 0 {
		hs.Listener = &smallSendBuf{Listener: hs.Listener, size: sndbuf}
	}
	hs.Start()
	t.Cleanup(func() {
		srv.Drain()
		hs.Close()
		cancel()
		<-done
		st.Close()
	})
	return &sseServer{inProcess: &inProcess{t: t, url: hs.URL, token: cfg.Token}, srv: srv, store: st, proj: proj, root: t.TempDir()}
}

type smallSendBuf struct {
	net.Listener
	size int
}

func (l *smallSendBuf) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		err = c.(*net.TCPConn).SetWriteBuffer(l.size)
	}
	return c, err
}

// sseFrame is one frame a client read.
type sseFrame struct{ id, event, data string }

// sseClient is an open event stream read frame by frame.
type sseClient struct {
	resp *http.Response
	rd   *bufio.Reader
}

// openSSE opens /v1/events with query q and, when lastID is set, a
// Last-Event-ID header; rcvbuf > 0 shrinks the client's receive buffer.
func (s *sseServer) openSSE(q, lastID string, rcvbuf int) *sseClient {
	s.t.Helper()
	req, err := http.NewRequest("GET", s.url+"/v1/events?"+q, nil)
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	tr := &http.Transport{DialContext: rcvbufDialer(rcvbuf).DialContext, DisableKeepAlives: true}
	s.t.Cleanup(tr.CloseIdleConnections)
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		s.t.Fatalf("events: %d %s", resp.StatusCode, b)
	}
	s.t.Cleanup(func() { resp.Body.Close() })
	c := &sseClient{resp: resp, rd: bufio.NewReader(resp.Body)}
	return c
}

// rcvbufDialer dials with a receive buffer of rcvbuf bytes (the system's
// default when rcvbuf is 0).
func rcvbufDialer(rcvbuf int) *net.Dialer {
	d := &net.Dialer{}
	if rcvbuf > 0 {
		d.Control = func(_, _ string, c syscall.RawConn) error {
			var serr error
			if err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, rcvbuf) }); err != nil {
				return err
			}
			return serr
		}
	}
	return d
}

// next reads the next frame (comments are skipped); io.EOF at the end.
func (c *sseClient) next() (sseFrame, error) {
	var f sseFrame
	for {
		line, err := c.rd.ReadString('\n')
		if err != nil {
			return f, err
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if f.event != "" || f.id != "" {
				return f, nil
			}
		case strings.HasPrefix(line, "id: "):
			f.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			f.event = line[7:]
		case strings.HasPrefix(line, "data: "):
			f.data = line[6:]
		}
	}
}

// until reads frames until one with id last arrives (or the stream ends),
// returning the ids read and the frames that were not events.
func (c *sseClient) until(t *testing.T, last string) (ids []string, other []sseFrame) {
	t.Helper()
	for {
		f, err := c.next()
		if err != nil {
			t.Fatalf("stream ended after %d events (want one with id %s): %v", len(ids), last, err)
		}
		if f.id == "" {
			other = append(other, f)
			continue
		}
		ids = append(ids, f.id)
		if f.id == last {
			return ids, other
		}
	}
}

// turnPositions lists the positions of every turn event after from, from
// the store itself.
func (s *sseServer) turnPositions(from eventstore.Position) []string {
	s.t.Helper()
	return s.positionsWhere(from, func(stream string) bool { return strings.HasPrefix(stream, "turn-") })
}

// positionsWhere lists the positions of the events after from whose stream
// is one of those keep wants, from the store itself.
func (s *sseServer) positionsWhere(from eventstore.Position, keep func(stream string) bool) []string {
	s.t.Helper()
	recs, err := s.store.ReadAll(context.Background(), from, 0)
	if err != nil {
		s.t.Fatal(err)
	}
	var out []string
	for _, r := range recs {
		if keep(r.Stream) {
			out = append(out, r.Position.String())
		}
	}
	return out
}

// decisions makes n allowed decisions (one event each) on turn id,
// numbered from from, starting the turn (full access) when from is 0.
func (s *sseServer) decisions(id string, from, n int) {
	s.t.Helper()
	if from == 0 {
		if st, b := s.do("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws-" + id, "workspace_root": s.root}); st != http.StatusCreated && st != http.StatusOK {
			s.t.Errorf("start %s: %d %s", id, st, b)
			return
		}
	}
	var last api.DecisionResponse
	for i := from; i < from+n; i++ {
		st, b := s.do("POST", "/v1/turns/"+id+"/decisions", map[string]any{"tool_call_id": "c" + strconv.Itoa(i), "tool_name": "exec_command",
			"arguments": map[string]any{"cmd": "make t" + strconv.Itoa(i)}})
		if st != http.StatusOK || json.Unmarshal(b, &last) != nil {
			s.t.Errorf("decide %s/%d: %d %s", id, i, st, b)
			return
		}
	}
	// Commands do not wait for the read models; these tests read the
	// server's position (from=now, the projector's) after them, so they
	// wait, as a client passing ?after= would, until it includes them.
	if last.Position != "" {
		p, err := eventstore.ParsePosition(last.Position)
		if err != nil {
			s.t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := s.proj.WaitFor(ctx, p); err != nil {
			s.t.Fatalf("the read models did not reach %s: %v", p, err)
		}
	}
}

// decideUntilCut makes decisions on turn id, numbered from from, 25 at a
// time, until the server has cut a slow consumer off (at most 5,000), and
// returns the next number.
func (s *sseServer) decideUntilCut(id string, from int) int {
	s.t.Helper()
	n := from
	for s.metric("turnstile_sse_slow_consumer_disconnects_total") == 0 {
		if n > 5000 {
			s.t.Fatal("5,000 events and the reader that stopped reading was never cut off")
		}
		s.decisions(id, n, 25)
		n += 25
	}
	return n
}

// metric reads one sample of the server's /metrics.
func (s *sseServer) metric(name string) float64 {
	s.t.Helper()
	st, b := s.do("GET", "/metrics", nil)
	if st != http.StatusOK {
		s.t.Fatalf("metrics: %d", st)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				s.t.Fatal(err)
			}
			return f
		}
	}
	return 0
}

func equalIDs(t *testing.T, who string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		seen := map[string]int{}
		for _, id := range got {
			seen[id]++
		}
		var missing, twice []string
		for _, id := range want {
			if seen[id] == 0 {
				missing = append(missing, id)
			}
		}
		for id, n := range seen {
			if n > 1 {
				twice = append(twice, id)
			}
		}
		t.Fatalf("%s: %d events, want %d (missing %v, twice %v, first got %v)", who, len(got), len(want), head(missing), head(twice), head(got))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: event %d has id %s, want %s (a gap, a duplicate or a reordering)", who, i, got[i], want[i])
		}
	}
}

func head(s []string) []string { return s[:min(len(s), 5)] }

// TestSSEEncodesEachEventOnce: ten live clients each get every event, in
// order, while the server decodes and encodes each event once (the
// broadcast), not once per client.
func TestSSEEncodesEachEventOnce(t *testing.T) {
	s := startSSE(t, api.Config{}, 0)
	s.decisions("warm", 0, 1)
	start := s.proj.Position()
	clients := make([]*sseClient, 10)
	for i := range clients {
		clients[i] = s.openSSE("from=now", "", 0)
	}
	s.decisions("warm", 1, 20)
	s.decisions("t2", 0, 20)
	want := s.turnPositions(start)
	if t.Failed() || len(want) < 40 {
		t.Fatalf("%d events appended, want 40 decisions and a turn's start", len(want))
	}
	for i, c := range clients {
		ids, _ := c.until(t, want[len(want)-1])
		equalIDs(t, fmt.Sprintf("client %d", i), ids, want)
	}
	if got := s.metric(`turnstile_sse_frames_encoded_total{path="broadcast"}`); got != float64(len(want)) {
		t.Fatalf("frames encoded for the broadcast: %v, want %d (one per event, not one per client)", got, len(want))
	}
	if got := s.metric(`turnstile_sse_frames_encoded_total{path="catch_up"}`); got != 0 {
		t.Fatalf("live clients read the store themselves: %v catch-up frames", got)
	}
	if got := s.metric("turnstile_sse_clients"); got != 10 {
		t.Fatalf("turnstile_sse_clients = %v, want 10", got)
	}
}

// TestSSEResumeHandOverUnderConcurrentAppends: clients that resume from
// many positions while four turns append concurrently each get exactly the
// log after their position: nothing lost at the hand-over from the store
// read to the broadcast, nothing twice. One more client resumes with events
// appended (and broadcast) exactly between its store read and its joining.
func TestSSEResumeHandOverUnderConcurrentAppends(t *testing.T) {
	s := startSSE(t, api.Config{}, 0)
	s.decisions("seed", 0, 30)
	all := s.turnPositions(eventstore.Start)
	s.openSSE("from=now", "", 0) // the broadcaster runs before the appends

	var appenders sync.WaitGroup
	for i := range 4 {
		appenders.Go(func() { s.decisions(fmt.Sprintf("w%d", i), 0, 40) })
	}
	type resumed struct {
		from string
		c    *sseClient
	}
	var clients []resumed
	for i := 0; i < 24; i++ {
		from := all[(i*7)%len(all)]
		if i%6 == 5 {
			clients = append(clients, resumed{"start", s.openSSE("from=start", "", 0)})
			continue
		}
		clients = append(clients, resumed{from, s.openSSE("", from, 0)})
		if cur := s.turnPositions(eventstore.Start); len(cur) > len(all) {
			all = cur // later clients resume from positions appended meanwhile
		}
	}
	appenders.Wait()
	if t.Failed() {
		return
	}

	// The exact boundary: events appended and broadcast after the client's
	// store read, before it joins, must come from its second store read.
	boundaryFrom := all[len(all)-1]
	hooked := make(chan struct{})
	api.SetBeforeJoinHook(func(r *http.Request) {
		if r.Header.Get("Last-Event-ID") != boundaryFrom {
			return // another client
		}
		defer close(hooked)
		s.decisions("boundary", 0, 5)
		want := s.proj.Position()
		for api.BroadcastHead(s.srv).Less(want) {
			<-time.After(time.Millisecond) // polls the broadcaster's head: the event waited for
		}
	})
	t.Cleanup(func() { api.SetBeforeJoinHook(nil) })
	boundary := s.openSSE("", boundaryFrom, 0)
	<-hooked
	s.decisions("after", 0, 5)

	final := s.turnPositions(eventstore.Start)
	last := final[len(final)-1]
	for i, r := range clients {
		ids, _ := r.c.until(t, last)
		var want []string
		if r.from == "start" {
			want = final
		} else {
			p, _ := eventstore.ParsePosition(r.from)
			want = s.turnPositions(p)
		}
		equalIDs(t, fmt.Sprintf("client %d (from %s)", i, r.from), ids, want)
	}
	p, _ := eventstore.ParsePosition(boundaryFrom)
	ids, _ := boundary.until(t, last)
	equalIDs(t, "boundary client", ids, s.turnPositions(p))
}

// TestSSESlowConsumerCutOffAndResume: a client that stops reading falls
// more than the buffer behind; it is cut off with an error frame naming
// slow_consumer and where to resume, then resumes with Last-Event-ID and
// gets the rest exactly once. A client reading at the same time is not cut
// off and gets everything (the control).
func TestSSESlowConsumerCutOffAndResume(t *testing.T) {
	s := startSSE(t, api.Config{SSEBuffer: 256, SSESlowGrace: time.Minute}, 8192)
	s.decisions("t", 0, 1)
	start := s.proj.Position()
	fast := s.openSSE("from=now", "", 0)
	slow := s.openSSE("from=now", "", 4096)
	// The control client reads all along, on its own goroutine.
	fastIDs := make(chan string, 10000)
	go func() {
		defer close(fastIDs)
		for {
			f, err := fast.next()
			if err != nil {
				return
			}
			if f.id == "" {
				t.Errorf("the reading client got a non-event frame: %+v", f)
				return
			}
			fastIDs <- f.id
		}
	}()
	n := s.decideUntilCut("t", 1)
	s.decisions("t", n, 10) // after the cut: the resume must fetch them from the store
	want := s.turnPositions(start)
	last := want[len(want)-1]

	// The slow client now reads: what was queued, then the reason, then EOF.
	var got []string
	var reason *sseFrame
	for {
		f, err := slow.next()
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			t.Fatalf("slow client: %v", err)
		}
		if f.id == "" {
			reason = &f
			continue
		}
		if reason != nil {
			t.Fatalf("an event after the close reason: %+v", f)
		}
		got = append(got, f.id)
	}
	if reason == nil || reason.event != "error" || !strings.Contains(reason.data, `"slow_consumer"`) {
		t.Fatalf("cut off without a slow_consumer error frame: %+v", reason)
	}
	if len(got) == 0 || len(got) >= len(want) {
		t.Fatalf("the slow client got %d of %d events before the cut", len(got), len(want))
	}
	if !strings.Contains(reason.data, `"last_event_id":"`+got[len(got)-1]+`"`) {
		t.Fatalf("the close reason does not name the last event delivered (%s): %s", got[len(got)-1], reason.data)
	}
	rest, _ := s.openSSE("", got[len(got)-1], 0).until(t, last)
	equalIDs(t, "slow client, cut then resumed", append(got, rest...), want)

	// The control: the client that kept reading was never cut off.
	var ids []string
	for id := range fastIDs {
		ids = append(ids, id)
		if id == last {
			break
		}
	}
	equalIDs(t, "reading client", ids, want)
	if v := s.metric("turnstile_sse_slow_consumer_disconnects_total"); v != 1 {
		t.Fatalf("slow consumer disconnects = %v, want 1", v)
	}
}

// TestSSEStuckClientIsClosedAfterGrace: a client that never reads again,
// once cut off, does not hold its connection (and the goroutine writing to
// it) past the grace: the server closes it.
func TestSSEStuckClientIsClosedAfterGrace(t *testing.T) {
	s := startSSE(t, api.Config{SSEBuffer: 64, SSESlowGrace: 200 * time.Millisecond}, 8192)
	s.decisions("t", 0, 1)
	s.openSSE("from=now", "", 4096) // never read
	if got := s.metric("turnstile_sse_clients"); got != 1 {
		t.Fatalf("turnstile_sse_clients = %v, want 1", got)
	}
	s.decideUntilCut("t", 1)
	deadline := time.Now().Add(30 * time.Second)
	for s.metric("turnstile_sse_clients") != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the stuck client's stream is still open 30 s after it was cut off (grace 200ms)")
		}
		<-time.After(10 * time.Millisecond) // polls the gauge: the event waited for
	}
}

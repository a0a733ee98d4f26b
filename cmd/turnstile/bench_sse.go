package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"turnstile/domain/eventstore"
)

// benchSSE is `turnstile bench --sse-clients N`: N Server-Sent Events
// clients, each reading every event the server publishes while the bench
// runs (from now on, no filter), or the events of one of the run's turns
// (--sse-follow turn), counting the events it gets.
type benchSSE struct {
	c       *client
	cpu0    float64             // the server's CPU seconds when they connected
	from    eventstore.Position // the server's position when they connected
	clients []*sseCounter
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// sseCounter is one streaming client.
type sseCounter struct {
	turn string // the turn it follows ("": every event)
	// from is the position its stream announced it starts after (the
	// broadcast's, which may be behind the read models' a moment).
	from   eventstore.Position
	events atomic.Int64
	last   atomic.Pointer[eventstore.Position]
	err    atomic.Value // why it ended early
	cut    atomic.Bool  // it was cut off as a slow consumer
}

// startBenchSSE opens n streams and returns once each has its first line;
// with turns, client i follows turns[i % len(turns)] only.
func startBenchSSE(c *client, n int, turns []string) (*benchSSE, error) {
	from, err := c.serverPosition()
	if err != nil {
		return nil, err
	}
	cpu0, err := c.serverCPU()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	b := &benchSSE{c: c, from: from, cancel: cancel, cpu0: cpu0}
	tr := &http.Transport{MaxIdleConnsPerHost: -1, DisableCompression: true,
		DialContext: c.users.dial}
	hc := &http.Client{Transport: tr}
	started := make(chan error, n)
	for i := range n {
		sc := &sseCounter{}
		if len(turns) > 0 {
			sc.turn = turns[i%len(turns)]
		}
		b.clients = append(b.clients, sc)
		b.wg.Go(func() { sc.read(ctx, hc, c, started) })
	}
	for range n {
		if err := <-started; err != nil {
			cancel()
			b.wg.Wait()
			return nil, fmt.Errorf("opening %d event streams: %w (raise the open-file limit: ulimit -n)", n, err)
		}
	}
	// Each stream starts where the broadcast was when it joined, which may
	// be before the read models' position read above: count from the
	// earliest.
	for _, sc := range b.clients {
		if sc.from.Less(b.from) {
			b.from = sc.from
		}
	}
	return b, nil
}

// read follows the stream until ctx ends, counting events.
func (sc *sseCounter) read(ctx context.Context, hc *http.Client, c *client, started chan<- error) {
	u := c.base + "/v1/events?from=now"
	if sc.turn != "" {
		u += "&turn_id=" + url.QueryEscape(sc.turn)
	}
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	if err != nil {
		started <- err
		return
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := hc.Do(req)
	if err != nil {
		started <- err
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		started <- fmt.Errorf("HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(b))
		return
	}
	rd := bufio.NewReaderSize(resp.Body, 64<<10)
	first, err := rd.ReadSlice('\n') // ": turnstile events from <position>"
	if err != nil {
		started <- err
		return
	}
	from, ok := bytes.CutPrefix(bytes.TrimSpace(first), []byte(": turnstile events from "))
	if !ok {
		started <- fmt.Errorf("the stream began with %q, not its position", first)
		return
	}
	if sc.from, err = eventstore.ParsePosition(string(from)); err != nil {
		started <- fmt.Errorf("the stream's position: %w", err)
		return
	}
	started <- nil
	for {
		line, err := rd.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			for err == bufio.ErrBufferFull { // a long data line: skip the rest
				_, err = rd.ReadSlice('\n')
			}
			continue
		}
		if err != nil {
			if ctx.Err() == nil {
				sc.err.Store(err.Error())
			}
			return
		}
		switch {
		case bytes.HasPrefix(line, []byte("id: ")):
			if p, err := eventstore.ParsePosition(string(bytes.TrimSpace(line[4:]))); err == nil {
				sc.last.Store(&p)
			}
			sc.events.Add(1)
		case bytes.Contains(line, []byte(`"slow_consumer"`)):
			sc.cut.Store(true)
		}
	}
}

// finish waits (at most a minute) until every client has the event at the
// server's position, or has ended, then reports what each got against the
// events appended meanwhile, and closes the streams.
func (b *benchSSE) finish(stdout io.Writer, base benchCost, decisions int) {
	defer b.wg.Wait()
	defer b.cancel()
	to, err := b.c.serverPosition()
	if err != nil {
		fmt.Fprintf(stdout, "  SSE clients: cannot read the server's position: %v\n", err)
		return
	}
	// The read models may lag behind the last command (commands do not
	// wait for them): count up to the later of the two.
	if last := b.c.lastPosition(); to.Less(last) {
		to = last
	}
	appended, err := b.c.countEvents(b.from, to)
	if err != nil {
		fmt.Fprintf(stdout, "  SSE clients: cannot count the events appended: %v\n", err)
	}
	// What each client must get: every event after its stream's start, or
	// its turn's.
	target := func(sc *sseCounter) (int, eventstore.Position) {
		return appended.after(sc.from, sc.turn)
	}
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		behind := 0
		for _, sc := range b.clients {
			if sc.err.Load() != nil || sc.cut.Load() {
				continue
			}
			if n, last := target(sc); n > 0 {
				if p := sc.last.Load(); p == nil || p.Less(last) {
					behind++
				}
			}
		}
		if behind == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond) // polls the clients' progress (a report, not a test)
	}
	counts := make([]int64, len(b.clients))
	complete, cut, ended, delivered := 0, 0, 0, 0
	for i, sc := range b.clients {
		counts[i] = sc.events.Load()
		switch {
		case sc.cut.Load():
			cut++
		case sc.err.Load() != nil:
			ended++
		}
		n, _ := target(sc)
		delivered += n
		if counts[i] == int64(n) {
			complete++
		}
	}
	slices.Sort(counts)
	what := "every event"
	if b.clients[0].turn != "" {
		what = "every event of its turn"
	}
	fmt.Fprintf(stdout, "  SSE clients: %d; events appended during the run: %d; events per client: min %d, median %d, max %d; %d got %s, %d cut off as slow consumers, %d ended otherwise\n",
		len(b.clients), len(appended.events), counts[0], counts[len(counts)/2], counts[len(counts)-1], complete, what, cut, ended)
	cpu, err := b.c.serverCPU()
	if err != nil || decisions == 0 || base.decisions == 0 {
		return
	}
	with := (cpu - b.cpu0) / float64(decisions)
	without := base.cpu / float64(base.decisions)
	if delivered == 0 { // clients of quiet turns
		fmt.Fprintf(stdout, "  server CPU per decision: %.3f ms without SSE clients, %.3f ms with them (none of their turns' events)\n", without*1e3, with*1e3)
		return
	}
	perEvent := (with - without) * float64(decisions) / float64(delivered)
	fmt.Fprintf(stdout, "  server CPU per decision: %.3f ms without SSE clients, %.3f ms with them: %.2f µs per event delivered to a client\n",
		without*1e3, with*1e3, perEvent*1e6)
}

// benchCost is what a run without SSE clients cost the server.
type benchCost struct {
	rate      float64 // durable decisions/s
	decisions int
	cpu       float64 // server CPU seconds
}

// serverCPU is the server process's CPU seconds (its /metrics).
func (c *client) serverCPU() (float64, error) {
	m, ok := serverMetrics(c)
	if !ok || !m.cpuOK {
		return 0, fmt.Errorf("the server's /metrics has no process_cpu_seconds_total")
	}
	return m.cpu, nil
}

// serverPosition is the position the server's read models have applied.
func (c *client) serverPosition() (eventstore.Position, error) {
	var r struct {
		Position string `json:"position"`
	}
	if _, err := c.do("GET", "/readyz", nil, &r); err != nil {
		return eventstore.Position{}, err
	}
	return eventstore.ParsePosition(r.Position)
}

// eventTally is a stretch of the log: each turn event's position and turn.
type eventTally struct {
	events []talliedEvent
}

type talliedEvent struct {
	at   eventstore.Position
	turn string
}

// after counts the events after from (of turn, unless it is ""), with the
// last one's position.
func (t eventTally) after(from eventstore.Position, turn string) (n int, last eventstore.Position) {
	i, _ := slices.BinarySearchFunc(t.events, from, func(e talliedEvent, p eventstore.Position) int {
		switch {
		case e.at.Less(p):
			return -1
		case p.Less(e.at):
			return 1
		}
		return 0
	})
	for _, e := range t.events[i:] {
		if !from.Less(e.at) || (turn != "" && e.turn != turn) {
			continue
		}
		n, last = n+1, e.at
	}
	return n, last
}

// countEvents counts the turn events in (from, to] with one resumed stream.
func (c *client) countEvents(from, to eventstore.Position) (eventTally, error) {
	var t eventTally
	turns := map[string]string{} // one copy of each turn id
	if !from.Less(to) {
		return t, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", c.base+"/v1/events", nil)
	if err != nil {
		return t, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Last-Event-ID", from.String())
	resp, err := (&http.Client{Transport: c.http.Transport}).Do(req)
	if err != nil {
		return t, err
	}
	defer resp.Body.Close()
	rd := bufio.NewReaderSize(resp.Body, 1<<20)
	var at *eventstore.Position // the id of the event whose data comes next
	for {
		line, err := rd.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			return t, fmt.Errorf("an event of more than %d bytes", rd.Size())
		}
		if err != nil {
			return t, err
		}
		switch {
		case bytes.HasPrefix(line, []byte("id: ")):
			p, err := eventstore.ParsePosition(string(bytes.TrimSpace(line[4:])))
			if err != nil {
				return t, err
			}
			if to.Less(p) {
				return t, nil
			}
			at = &p
		case at != nil && bytes.HasPrefix(line, []byte("data: ")):
			var m struct {
				Params struct {
					TurnID string `json:"turn_id"`
				} `json:"params"`
			}
			if err := json.Unmarshal(line[6:], &m); err != nil {
				return t, fmt.Errorf("the event at %s: %w", at, err)
			}
			id, ok := turns[m.Params.TurnID]
			if !ok {
				id = m.Params.TurnID
				turns[id] = id
			}
			t.events = append(t.events, talliedEvent{*at, id})
			if *at == to {
				return t, nil
			}
			at = nil
		}
	}
}

// benchBaseline runs the same bench without SSE clients first, for the
// with/without comparison, and returns its decisions/s and what it cost
// the server.
func benchBaseline(c *client, args []string, stdout, stderr io.Writer) (benchCost, error) {
	var base []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--sse-clients" || a == "-sse-clients" {
			i++
			continue
		}
		if strings.HasPrefix(a, "--sse-clients=") || strings.HasPrefix(a, "-sse-clients=") {
			continue
		}
		base = append(base, a)
	}
	cpu0, err := c.serverCPU()
	if err != nil {
		return benchCost{}, err
	}
	var out bytes.Buffer
	if rc := benchCmd(base, &out, stderr); rc != 0 {
		stdout.Write(out.Bytes())
		return benchCost{}, fmt.Errorf("the run without SSE clients failed (exit %d)", rc)
	}
	cpu1, err := c.serverCPU()
	if err != nil {
		return benchCost{}, err
	}
	// The "durable decisions/s" figure of the report, and the number of
	// decisions.
	benchRate := regexp.MustCompile(`durable decisions/s: ([0-9.]+)`)
	benchCount := regexp.MustCompile(`turns, ([0-9]+) decisions in`)
	m, n := benchRate.FindStringSubmatch(out.String()), benchCount.FindStringSubmatch(out.String())
	if m == nil || n == nil {
		return benchCost{}, fmt.Errorf("no throughput in the run without SSE clients: %s", out.String())
	}
	cost := benchCost{cpu: cpu1 - cpu0}
	cost.rate, _ = strconv.ParseFloat(m[1], 64)
	cost.decisions, _ = strconv.Atoi(n[1])
	return cost, nil
}

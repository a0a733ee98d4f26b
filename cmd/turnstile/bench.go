package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/google/uuid"

	"turnstile/api"
	"turnstile/domain"
)

func benchCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cf clientFlags
	cf.register(fs)
	turns := fs.Int("turns", 64, "concurrent turns (one client goroutine each)")
	workspace := fs.String("workspace", "", "workspace root the turns use, on the server's machine, holding src/main.go (default: a temporary one created here, for a local server)")
	decisions := fs.Int("decisions", 20000, "decisions in all")
	httpClient := fs.String("http", "raw", "the HTTP client of the hot requests: raw (a minimal HTTP/1.1 client, one keep-alive connection per turn, http:// only: it takes less of the CPU the server runs on) or std (net/http)")
	latencyLog := fs.String("latency-log", "", "also write every decision request's completion time (Unix µs) and latency (µs), one a line, to this file (to tell periodic stalls from queueing)")
	sseClients := fs.Int("sse-clients", 0, "also run with N Server-Sent Events clients reading every event (after a run without them, for comparison); each needs a file descriptor here and on the server (ulimit -n)")
	sseFollow := fs.String("sse-follow", "all", "what each SSE client follows: all (every event, GET /v1/events) turn (one of the run's turns each, ?turn_id=, as a runtime follows its own; the clients spread evenly over the turns) or quiet (one each of --turns more turns, started and left idle: runtimes whose turns are quiet while others work)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: turnstile bench [--turns 64] [--decisions N]\n\nDrives a running server over HTTP: each turn (supervised, web_fetch denied) asks for\ndecisions in a mix of 70% allow (read_file), 20% ask (exec_command, then answered\nallow_once through /v1/approvals) and 10% deny (web_fetch). Prints durable decisions\nper second and latency percentiles of the decision requests. Its turns are permanent:\nthey go to a workspace of their own, bench-RUN, named on stderr.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	if *sseFollow != "all" && *sseFollow != "turn" && *sseFollow != "quiet" {
		fmt.Fprintf(stderr, "turnstile bench: --sse-follow must be all, turn or quiet, not %q\n", *sseFollow)
		return 2
	}
	if *turns < 1 || *decisions < *turns {
		fmt.Fprintln(stderr, "turnstile bench: need --turns >= 1 and --decisions >= --turns")
		return 2
	}
	c, err := cf.client()
	if err != nil {
		fmt.Fprintln(stderr, "turnstile bench:", err)
		return 1
	}
	var newPoster func() (benchPoster, error)
	switch *httpClient {
	case "std":
		newPoster = func() (benchPoster, error) { return stdPoster{c}, nil }
	case "raw":
		if _, err := newRawPoster(c); err != nil {
			fmt.Fprintln(stderr, "turnstile bench: --http raw:", err, "(use --http std)")
			return 2
		}
		newPoster = func() (benchPoster, error) { return newRawPoster(c) }
	default:
		fmt.Fprintf(stderr, "turnstile bench: --http must be raw or std, not %q\n", *httpClient)
		return 2
	}
	var baseline benchCost
	if *sseClients > 0 {
		if baseline, err = benchBaseline(c, args, stdout, stderr); err != nil {
			fmt.Fprintln(stderr, "turnstile bench:", err)
			return 1
		}
		fmt.Fprintf(stdout, "turnstile bench: without SSE clients: %.0f durable decisions/s; now with %d\n", baseline.rate, *sseClients)
	}
	c.http.Transport = &http.Transport{MaxIdleConns: *turns * 2, MaxIdleConnsPerHost: *turns * 2, IdleConnTimeout: time.Minute, DialContext: c.users.dial}
	if *workspace == "" {
		dir, err := os.MkdirTemp("", "turnstile-bench-")
		if err != nil {
			fmt.Fprintln(stderr, "turnstile bench:", err)
			return 1
		}
		defer os.RemoveAll(dir)
		err = os.MkdirAll(filepath.Join(dir, "src"), 0o755)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, "src", "main.go"), []byte("package main\n"), 0o644)
		}
		if err != nil {
			fmt.Fprintln(stderr, "turnstile bench:", err)
			return 1
		}
		*workspace = dir
	}
	run := uuid.NewString()[:8]
	// The run's turns are permanent events of the server's store: they go
	// to a workspace of their own, named here, so that they can be told
	// (and filtered) apart from real work.
	wsID := "bench-" + run
	fmt.Fprintf(stderr, "turnstile bench: writing %d turns (bench-%s-0…%d) in workspace %s to the store of %s; they stay in its audit log (use a scratch server: serve --data DIR)\n",
		*turns, run, *turns-1, wsID, c.base)
	ids := make([]string, *turns)
	// startTurn starts a supervised turn of the run's workspace.
	startTurn := func(id string, denied ...string) error {
		req := api.StartTurnRequest{TurnID: id, WorkspaceID: wsID, ThreadID: run, WorkspaceRoot: *workspace,
			PermissionProfile: &domain.ProfileRequest{Mode: domain.ModeSupervised, DeniedTools: denied}}
		_, err := c.do("POST", "/v1/turns", req, nil)
		return err
	}
	for i := range ids {
		ids[i] = fmt.Sprintf("bench-%s-%d", run, i)
		if err := startTurn(ids[i], "web_fetch"); err != nil {
			fmt.Fprintln(stderr, "turnstile bench: starting a turn:", err)
			return 1
		}
	}
	var (
		next                     atomic.Int64
		allow, ask, deny, errors atomic.Int64
		mu                       sync.Mutex
		lat                      []time.Duration
		done                     []benchDone
		firstErr                 atomic.Value
		wg                       sync.WaitGroup
	)
	var sse *benchSSE
	if *sseClients > 0 {
		var follow []string // every event
		switch *sseFollow {
		case "turn":
			follow = ids
		case "quiet": // as many turns again, which the run leaves idle
			for i := range ids {
				id := fmt.Sprintf("bench-%s-quiet-%d", run, i)
				if err := startTurn(id); err != nil {
					fmt.Fprintln(stderr, "turnstile bench: starting a quiet turn:", err)
					return 1
				}
				follow = append(follow, id)
			}
		}
		if sse, err = startBenchSSE(c, *sseClients, follow); err != nil {
			fmt.Fprintln(stderr, "turnstile bench:", err)
			return 1
		}
	}
	m0, _ := serverMetrics(c)
	self0 := selfCPU()
	start := time.Now()
	for _, id := range ids {
		wg.Add(1)
		poster, err := newPoster()
		if err != nil {
			fmt.Fprintln(stderr, "turnstile bench:", err)
			return 1
		}
		go func() {
			defer wg.Done()
			if rp, ok := poster.(*rawPoster); ok {
				defer rp.close()
			}
			var mine []time.Duration
			var ends []benchDone
			defer func() { mu.Lock(); lat = append(lat, mine...); done = append(done, ends...); mu.Unlock() }()
			for {
				n := next.Add(1)
				if n > int64(*decisions) {
					return
				}
				req := api.DecisionRequest{ToolCallID: fmt.Sprintf("c%d", n)}
				switch n % 10 {
				case 7, 8:
					req.ToolName, req.Arguments = "exec_command", json.RawMessage(fmt.Sprintf(`{"cmd":["make","t%d"]}`, n))
				case 9:
					req.ToolName, req.Arguments = "web_fetch", json.RawMessage(`{"url":"https://example.com/"}`)
				default:
					req.ToolName, req.Arguments = "read_file", json.RawMessage(`{"path":"src/main.go"}`)
				}
				t0 := time.Now()
				var out benchAnswer
				err := benchPost(poster, "/v1/turns/"+id+"/decisions", req, &out)
				t1 := time.Now()
				mine = append(mine, t1.Sub(t0))
				if *latencyLog != "" {
					ends = append(ends, benchDone{t1, t1.Sub(t0)})
				}
				if err != nil {
					errors.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				switch out.Decision {
				case "allow":
					allow.Add(1)
				case "deny":
					deny.Add(1)
				case "ask":
					ask.Add(1)
					if out.Request == nil {
						errors.Add(1)
						firstErr.CompareAndSwap(nil, "an ask without its request")
						continue
					}
					if err := benchPost(poster, "/v1/approvals/"+url.PathEscape(out.Request.RequestID)+"/respond", map[string]string{"resolution": "allow_once", "turn_id": id}, nil); err != nil {
						errors.Add(1)
						firstErr.CompareAndSwap(nil, err.Error())
					}
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	m1, _ := serverMetrics(c)
	self1 := selfCPU()
	for _, id := range ids {
		_, _ = c.do("POST", "/v1/turns/"+id+"/complete", nil, nil)
	}
	if *latencyLog != "" {
		if err := writeLatencyLog(*latencyLog, done); err != nil {
			fmt.Fprintln(stderr, "turnstile bench:", err)
			return 1
		}
	}
	slices.Sort(lat)
	pct := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	n := len(lat)
	fmt.Fprintf(stdout, "turnstile bench: %d turns, %d decisions in %.2fs\n", *turns, n, elapsed.Seconds())
	fmt.Fprintf(stdout, "  durable decisions/s: %.0f (plus %d approval responses)\n", float64(n)/elapsed.Seconds(), ask.Load())
	fmt.Fprintf(stdout, "  decision latency: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms\n", ms(pct(0.50)), ms(pct(0.90)), ms(pct(0.99)), ms(lat[n-1]))
	if sse != nil {
		sse.finish(stdout, baseline, n)
		fmt.Fprintf(stdout, "  with %d SSE clients (following %s): %.2f× the throughput without them (%.0f/s)\n", *sseClients, *sseFollow, float64(n)/elapsed.Seconds()/baseline.rate, baseline.rate)
	}
	fmt.Fprintf(stdout, "  mix: allow %d, ask %d, deny %d, errors %d\n", allow.Load(), ask.Load(), deny.Load(), errors.Load())
	if m0.cpuOK && m1.cpuOK {
		fmt.Fprintf(stdout, "  server CPU: %.0f µs per decision (process_cpu_seconds_total; approval responses included), %.2f cores\n",
			(m1.cpu-m0.cpu)/float64(n)*1e6, (m1.cpu-m0.cpu)/elapsed.Seconds())
	}
	if m0.gcOK && m1.gcOK {
		// Each collection's marking runs beside the requests and takes a
		// quarter of the cores: the decisions in flight queue behind it
		// (docs/benchmarks.md, "where the p99 comes from"). Its pauses are
		// the small part.
		fmt.Fprintf(stdout, "  server collections: %.0f during the run, pauses %.2f ms in all (go_gc_duration_seconds)\n",
			m1.gcs-m0.gcs, (m1.gcPause-m0.gcPause)*1e3)
	}
	fmt.Fprintf(stdout, "  this client's CPU: %.0f µs per decision, %.2f cores\n", (self1-self0).Seconds()/float64(n)*1e6, (self1-self0).Seconds()/elapsed.Seconds())
	if allow.Load() == 0 || deny.Load() == 0 {
		fmt.Fprintln(stdout, "  the mix is off: the server must be able to read <workspace>/src/main.go (see --workspace)")
		return 1
	}
	if e := firstErr.Load(); e != nil {
		fmt.Fprintf(stdout, "  first error: %s\n", e)
		return 1
	}
	return 0
}

// benchDone is one decision request: when it completed and how long it took.
type benchDone struct {
	end time.Time
	lat time.Duration
}

// writeLatencyLog writes done in order of completion, "END_UNIX_µS LATENCY_µS" a line.
func writeLatencyLog(path string, done []benchDone) error {
	slices.SortFunc(done, func(a, b benchDone) int { return a.end.Compare(b.end) })
	var b []byte
	for _, d := range done {
		b = strconv.AppendInt(b, d.end.UnixMicro(), 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, d.lat.Microseconds(), 10)
		b = append(b, '\n')
	}
	return os.WriteFile(path, b, 0o644)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// benchMetrics are the server's counters bench reports the difference of.
type benchMetrics struct {
	cpu          float64 // process_cpu_seconds_total
	gcs, gcPause float64 // go_gc_duration_seconds_count and _sum (stop-the-world pauses)
	cpuOK, gcOK  bool
}

// serverMetrics reads them from the server's /metrics (its admin token).
func serverMetrics(c *client) (benchMetrics, bool) {
	var m benchMetrics
	req, err := http.NewRequest("GET", c.base+"/metrics", nil)
	if err != nil {
		return m, false
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := c.http.Do(req)
	if err != nil {
		return m, false
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return m, false
	}
	var gcCount, gcSum bool
	for line := range strings.Lines(string(data)) {
		name, v, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			continue
		}
		switch name {
		case "process_cpu_seconds_total":
			m.cpu, m.cpuOK = f, true
		case "go_gc_duration_seconds_count":
			m.gcs, gcCount = f, true
		case "go_gc_duration_seconds_sum":
			m.gcPause, gcSum = f, true
		}
	}
	m.gcOK = gcCount && gcSum
	return m, true
}

// selfCPU is the CPU time (user and system) this process has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchAnswer is what bench reads of a decision (api.DecisionResponse):
// the client shares the machine with the server, so it decodes no more.
type benchAnswer struct {
	Decision string `json:"decision"`
	Request  *struct {
		RequestID string `json:"request_id"`
	} `json:"request"`
}

// benchPost posts body as JSON with poster and decodes a 2xx answer into
// out (when not nil).
func benchPost(p benchPoster, path string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	status, data, err := p.post(path, b)
	if err != nil {
		return err
	}
	if status >= 300 {
		return fmt.Errorf("POST %s: HTTP %d: %s", path, status, strings.TrimSpace(string(data)))
	}
	if out != nil {
		return json.Unmarshal(data, out)
	}
	return nil
}

// postRaw is client.do for bench's two hot requests, without its second
// decode of every answer (as an error) and of the whole response type.
func (c *client) postRaw(path string, body []byte) (int, []byte, error) {
	req, err := http.NewRequest("POST", c.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, c.unreachable(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, data, err
}

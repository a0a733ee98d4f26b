package tests

import (
	"regexp"
	"strconv"
	"testing"
)

// TestBenchReportsServerCPU: bench reports the server's CPU time per
// decision (read from its /metrics before and after the run) and its own,
// so that a run on a shared machine says where the CPU went; with either
// HTTP client (the minimal one it uses by default, and net/http), each
// decision decided (the mix holds all three answers, no errors).
func TestBenchReportsServerCPU(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	for _, client := range []string{"raw", "std"} {
		t.Run(client, func(t *testing.T) { benchReportsCPU(t, s, client) })
	}
}

func benchReportsCPU(t *testing.T, s *Server, client string) {
	out, errOut, code := s.CLI("bench", "--turns", "2", "--decisions", "200", "--http", client)
	if code != 0 {
		t.Fatalf("bench: %d\n%s%s", code, out, errOut)
	}
	if !regexp.MustCompile(`mix: allow \d+, ask \d+, deny \d+, errors 0`).MatchString(out) || !regexp.MustCompile(`2 turns, 200 decisions`).MatchString(out) {
		t.Fatalf("the run was not whole:\n%s", out)
	}
	m := regexp.MustCompile(`server CPU: (\d+) µs per decision \(process_cpu_seconds_total; approval responses included\), ([0-9.]+) cores`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no server CPU line:\n%s", out)
	}
	if us, _ := strconv.Atoi(m[1]); us <= 0 {
		t.Fatalf("server CPU per decision %s µs: the counter did not move\n%s", m[1], out)
	}
	if !regexp.MustCompile(`this client's CPU: \d+ µs per decision`).MatchString(out) {
		t.Fatalf("no client CPU line:\n%s", out)
	}
}

// TestBenchReportsServerCollections: bench reports the server's garbage
// collections during the run (go_gc_duration_seconds from its /metrics),
// which is where a p99 comes from on a full machine. A server run with
// GOGC=1 collects at every few allocations: the run counts some.
func TestBenchReportsServerCollections(t *testing.T) {
	t.Parallel()
	s := StartServerEnv(t, []string{"GOGC=1"})
	out, errOut, code := s.CLI("bench", "--turns", "2", "--decisions", "200")
	if code != 0 {
		t.Fatalf("bench: %d\n%s%s", code, out, errOut)
	}
	m := regexp.MustCompile(`server collections: (\d+) during the run, pauses ([0-9.]+) ms in all \(go_gc_duration_seconds\)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no collections line:\n%s", out)
	}
	if n, _ := strconv.Atoi(m[1]); n <= 0 {
		t.Fatalf("%s collections during 200 decisions with GOGC=1: the counter did not move\n%s", m[1], out)
	}
}

// TestBenchWithSSEClients: bench --sse-clients runs once without clients
// and once with them reading every event, and reports that each client got
// every event appended meanwhile, the server's CPU per event delivered and
// the throughput ratio; with --sse-follow turn each client follows one of
// the run's turns and gets every event of it, fewer than all.
func TestBenchWithSSEClients(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	for _, follow := range []string{"all", "turn"} {
		out, errOut, code := s.CLI("bench", "--turns", "2", "--decisions", "200", "--data", s.Data, "--sse-clients", "4", "--sse-follow", follow)
		if code != 0 {
			t.Fatalf("bench --sse-clients --sse-follow %s: %d\n%s%s", follow, code, out, errOut)
		}
		got := "every event"
		if follow == "turn" {
			got = "every event of its turn"
		}
		for _, re := range []string{
			`SSE clients: 4; events appended during the run: (\d+); events per client: min (\d+), median \d+, max (\d+); 4 got ` + got + `, 0 cut off`,
			`server CPU per decision: [0-9.]+ ms without SSE clients, [0-9.]+ ms with them`,
			`with 4 SSE clients \(following ` + follow + `\): [0-9.]+× the throughput without them`,
		} {
			m := regexp.MustCompile(re).FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("--sse-follow %s: no line matching %q:\n%s", follow, re, out)
			}
			if len(m) < 4 {
				continue
			}
			all, fewest, most := atoi(t, m[1]), atoi(t, m[2]), atoi(t, m[3])
			switch {
			case all == 0:
				t.Fatalf("--sse-follow %s: no events appended:\n%s", follow, out)
			case follow == "all" && (fewest != all || most != all):
				t.Fatalf("events appended %d, clients got %d to %d:\n%s", all, fewest, most, out)
			case follow == "turn" && (fewest == 0 || most >= all || fewest+most > all):
				// Two turns, two clients each: each client gets its
				// turn's events, the two turns' adding up to at most all.
				t.Fatalf("following a turn each of two, clients got %d to %d of %d:\n%s", fewest, most, all, out)
			}
		}
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

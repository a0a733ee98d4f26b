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
// every event appended meanwhile, the server's CPU per event per client and
// the throughput ratio.
func TestBenchWithSSEClients(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	out, errOut, code := s.CLI("bench", "--turns", "2", "--decisions", "200", "--data", s.Data, "--sse-clients", "3")
	if code != 0 {
		t.Fatalf("bench --sse-clients: %d\n%s%s", code, out, errOut)
	}
	for _, re := range []string{
		`SSE clients: 3; events appended during the run: (\d+); events per client: min (\d+), median \d+, max \d+; 3 got every event, 0 cut off`,
		`server CPU per decision: [0-9.]+ ms without SSE clients, [0-9.]+ ms with them`,
		`with 3 SSE clients: [0-9.]+× the throughput without them`,
	} {
		m := regexp.MustCompile(re).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no line matching %q:\n%s", re, out)
		}
		if len(m) == 3 && (m[1] == "0" || m[1] != m[2]) {
			t.Fatalf("events appended %s, fewest a client got %s:\n%s", m[1], m[2], out)
		}
	}
}

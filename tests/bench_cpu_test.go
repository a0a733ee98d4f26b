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

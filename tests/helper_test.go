package tests

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestServerUsesLeanHelper: a server whose directory holds turnstile-sandbox
// pins it (after the start-up probe verified it) and runs commands through
// it; doctor names it. A supervised write is still refused and a read works.
func TestServerUsesLeanHelper(t *testing.T) {
	t.Parallel()
	helper := filepath.Join(filepath.Dir(bin), "turnstile-sandbox")
	out, _, code := runCLI(t, "doctor")
	if code != 0 || !strings.Contains(out, "helper:          lean helper "+helper) {
		t.Fatalf("doctor: %d\n%s", code, out)
	}
	s := StartServer(t, "")
	pinned := ""
	fds, _ := os.ReadDir("/proc/" + strconv.Itoa(s.cmd.Process.Pid) + "/fd")
	for _, fd := range fds {
		if l, err := os.Readlink("/proc/" + strconv.Itoa(s.cmd.Process.Pid) + "/fd/" + fd.Name()); err == nil && l == helper {
			pinned = fd.Name()
		}
	}
	if pinned == "" {
		t.Fatalf("the server holds no descriptor of %s", helper)
	}
	root := workspace(t)
	s.startTurn("lean", "ws", "supervised", root)
	target := filepath.Join(root, "ro.txt")
	run := s.execApproved("lean", "w", map[string]any{"argv": []string{"sh", "-c", "cat a.txt; echo x > " + target}})
	if !run.Ran || run.Result.ExitCode == 0 || exists(target) || !strings.Contains(run.Result.Stdout, "hello") {
		t.Fatalf("supervised exec through the lean helper: %+v", run.Result)
	}
}

// TestBinaryAloneReexecsItself: the binary with no helper next to it (as
// `go run ./cmd/turnstile` leaves it) says so in doctor and still runs
// sandboxed commands, through itself, from the command line and as a
// server: a write in the workspace works in auto_accept_edits, a write
// outside is refused.
func TestBinaryAloneReexecsItself(t *testing.T) {
	t.Parallel()
	alone := filepath.Join(t.TempDir(), "turnstile")
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cli := func(args ...string) (string, string, int) {
		cmd := exec.Command(alone, args...)
		var o, e strings.Builder
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return o.String(), e.String(), ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return o.String(), e.String(), 0
	}
	out, _, code := cli("doctor")
	if code != 0 || !strings.Contains(out, "helper:          this binary re-executed ("+alone+"): no "+filepath.Join(filepath.Dir(alone), "turnstile-sandbox")) {
		t.Fatalf("doctor: %d\n%s", code, out)
	}
	root, outside := workspace(t), workspace(t)
	out, errOut, code := cli("sandbox", "--mode", "auto_accept_edits", "--root", root, "--", "sh", "-c", "echo in > in.txt; cat in.txt; echo x > "+outside+"/x")
	if code == 0 || out != "in\n" || exists(filepath.Join(outside, "x")) {
		t.Fatalf("sandbox through the binary itself: exit %d %q %s", code, out, errOut)
	}
	// The server alone runs commands through itself too.
	s := StartServerBin(t, alone, "")
	s.startTurn("alone", "ws", "auto_accept_edits", root)
	run := s.execApproved("alone", "w", map[string]any{"argv": []string{"sh", "-c", "echo srv > srv.txt; cat srv.txt; echo x > " + outside + "/y"}})
	if !run.Ran || run.Result.ExitCode == 0 || run.Result.Stdout != "srv\n" || exists(filepath.Join(outside, "y")) {
		t.Fatalf("server alone: %+v", run.Result)
	}
}

// BenchmarkExecAPI measures POST /v1/turns/{id}/exec of /bin/true, in
// rotation: full_access (no sandbox: the API, the decision and its fsynced
// events), and auto_accept_edits under an allow_for_turn grant (everything
// enforced) on a server with the lean helper next to it and on one without
// (the binary re-executes itself, as under `go run`). It reports each
// median in ms.
func BenchmarkExecAPI(b *testing.B) {
	alone := filepath.Join(b.TempDir(), "turnstile")
	data, err := os.ReadFile(bin)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(alone, data, 0o755); err != nil {
		b.Fatal(err)
	}
	lean := StartServer(b, "")
	solo := StartServerBin(b, alone, "")
	type target struct {
		name string
		s    *Server
		turn string
	}
	var targets []target
	for _, c := range []struct {
		name, mode string
		s          *Server
	}{{"full_access", "full_access", lean}, {"lean_helper", "auto_accept_edits", lean}, {"binary_alone", "auto_accept_edits", solo}} {
		turn := "bench-" + c.name
		c.s.startTurn(turn, "ws", c.mode, workspace(b))
		if c.mode != "full_access" {
			status, first := c.s.exec(turn, "", map[string]any{"tool_call_id": "grant", "argv": []string{"/bin/true"}})
			if status != http.StatusAccepted || first.Request == nil {
				b.Fatalf("%s: %d %+v", c.name, status, first)
			}
			c.s.respond(first.Request.RequestID, "allow_for_turn")
		}
		targets = append(targets, target{c.name, c.s, turn})
	}
	ds := make([][]time.Duration, len(targets))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, tg := range targets {
			start := time.Now()
			status, run := tg.s.exec(tg.turn, "", map[string]any{"tool_call_id": "c" + strconv.Itoa(i), "argv": []string{"/bin/true"}})
			ds[j] = append(ds[j], time.Since(start))
			if status != http.StatusOK || !run.Ran || run.Result.ExitCode != 0 {
				b.Fatalf("%s: %d %+v", tg.name, status, run)
			}
		}
	}
	b.StopTimer()
	for j, tg := range targets {
		slices.Sort(ds[j])
		b.ReportMetric(float64(ds[j][len(ds[j])/2].Microseconds())/1000, tg.name+"-p50-ms")
	}
}

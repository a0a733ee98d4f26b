package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// gone reports whether pid no longer runs (absent, or a zombie waiting for
// its new parent to reap it).
func gone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && len(s) > i+2 && s[i+2] == 'Z'
}

var tokenSeq atomic.Int64

// token returns a number unique to this test run, usable as a sleep
// duration: processes started with it in their argv are found by
// processesWith (a pid written inside a PID namespace means nothing here).
func token() string {
	return fmt.Sprintf("%d.%06d%03d", 1000+tokenSeq.Add(1), os.Getpid()%1000000, time.Now().Nanosecond()%1000)
}

// processesWith returns the host pids of running (not zombie) processes
// whose argv contains the argument tok.
func processesWith(tok string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		for _, a := range bytes.Split(b, []byte{0}) {
			if string(a) == tok && !gone(pid) {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// waitNoProcess waits until no process has tok in its argv; the bound is a
// hang guard, not a timing assertion (the kill was already sent).
func waitNoProcess(t *testing.T, tok string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		pids := processesWith(tok)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, pid := range pids {
				unix.Kill(pid, unix.SIGKILL)
			}
			t.Fatalf("processes %v (argv with %s) are still running", pids, tok)
		}
	}
}

// TestRunTimeoutKillsGroup: a command that outlives its timeout is killed
// together with its children.
func TestRunTimeoutKillsGroup(t *testing.T) {
	f := requireKernel(t, false)
	for _, mode := range []domain.Mode{domain.ModeAutoAcceptEdits, domain.ModeFullAccess} {
		t.Run(string(mode), func(t *testing.T) {
			ws := tempWorkspace(t)
			s := snapshotFor(t, mode, ws, f.Kernel)
			tok := token()
			r, err := run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c", "sleep " + tok + " & echo started > started; wait"}, TimeoutMs: 2000}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !r.TimedOut || r.ExitCode != 128+int(unix.SIGKILL) || !exists(ws+"/started") {
				t.Fatalf("result %+v", r)
			}
			waitNoProcess(t, tok)
		})
	}
}

// TestRunCancelKillsGroup: cancelling the context kills the group too (and
// is not reported as a timeout).
func TestRunCancelKillsGroup(t *testing.T) {
	f := requireKernel(t, false)
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	tok := token()
	p, err := PlanSpawn(s, SpawnRequest{Argv: []string{"/bin/sh", "-c", "sleep " + tok + " & echo started > started; wait"}}, os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *Result, 1)
	go func() {
		r, _ := Run(ctx, p)
		done <- r
	}()
	for deadline := time.Now().Add(30 * time.Second); len(processesWith(tok)) == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			cancel()
			t.Fatal("the command never started")
		}
	}
	cancel()
	r := <-done
	if r == nil || r.TimedOut || r.ExitCode != 128+int(unix.SIGKILL) {
		t.Fatalf("result %+v", r)
	}
	waitNoProcess(t, tok)
}

// TestRunKillsLeftovers: background children left in the group when the
// command exits are killed.
func TestRunKillsLeftovers(t *testing.T) {
	f := requireKernel(t, false)
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	tok := token()
	r := sh(t, s, "sleep "+tok+" >/dev/null 2>&1 & echo started > started")
	if r.ExitCode != 0 || r.TimedOut || !exists(ws+"/started") {
		t.Fatalf("result %+v", r)
	}
	waitNoProcess(t, tok)
}

// TestRunOutputAndStdin: output is capped with a flag; stdin is passed.
func TestRunOutputAndStdin(t *testing.T) {
	f := requireKernel(t, false)
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeSupervised, ws, f.Kernel)
	r := sh(t, s, "head -c 3000000 /dev/zero; echo err >&2")
	if len(r.Stdout) != MaxOutputBytes || !r.StdoutTruncated || string(r.Stderr) != "err\n" || r.StderrTruncated {
		t.Fatalf("stdout %d bytes (truncated %v), stderr %q", len(r.Stdout), r.StdoutTruncated, r.Stderr)
	}
	res, err := run(t, s, SpawnRequest{Argv: []string{"cat"}, Stdin: strings.NewReader("from stdin")}, nil)
	if err != nil || string(res.Stdout) != "from stdin" {
		t.Fatalf("stdin: %q, %v", res.Stdout, err)
	}
	r = sh(t, s, "exit 7")
	if r.ExitCode != 7 || r.TimedOut {
		t.Fatalf("exit code %+v", r)
	}
}

// TestSandboxCommand drives the CLI entry: output, exit code, refusals and
// usage errors.
func TestSandboxCommand(t *testing.T) {
	requireKernel(t, false)
	ws := tempWorkspace(t)
	var out, errb bytes.Buffer
	code := SandboxCommand([]string{"--mode", "supervised", "--root", ws, "--", "/bin/sh", "-c", "echo hi; echo x > f; exit 3"}, &out, &errb)
	if code != 3 || out.String() != "hi\n" || exists(ws+"/f") {
		t.Fatalf("code %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	code = SandboxCommand([]string{"--mode", "auto_accept_edits", "--root", ws, "--timeout-ms", "20000", "--", "/bin/sh", "-c", "echo x > f"}, &out, &errb)
	if code != 0 || !exists(ws+"/f") {
		t.Fatalf("code %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	if code := SandboxCommand([]string{"--mode", "supervised", "--root", ws, "--", "sudo", "id"}, &out, &errb); code != ExitSandboxFailure ||
		!strings.Contains(errb.String(), CodeCommandDenied) {
		t.Fatalf("refusal: code %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	if code := SandboxCommand([]string{"--mode", "supervised", "--root", ws, "--cwd", "/root", "--", "true"}, &out, &errb); code != ExitSandboxFailure ||
		!strings.Contains(errb.String(), CodeCwdNotReadable) {
		t.Fatalf("cwd refusal: code %d, stderr %q", code, errb.String())
	}
	for _, args := range [][]string{{"--root", ws}, {"--mode", "bogus", "--root", ws, "--", "true"}, {"--", "true"}, {"--nope"}} {
		if code := SandboxCommand(args, &out, &errb); code != 2 {
			t.Errorf("%q: code %d", args, code)
		}
	}
}

// TestDoctor prints every mode with this machine's status.
func TestDoctor(t *testing.T) {
	var b bytes.Buffer
	Doctor(&b, machine())
	out := b.String()
	for _, want := range []string{"landlock:", "seccomp:", "user namespaces:", "full_access", "auto_accept_edits", "supervised", "not enforced"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
	// As root with cgroup v2 (here), commands get kill groups; switched
	// off, doctor says they do not.
	if _, err := cgroup2Mount(); err == nil && os.Geteuid() == 0 && !strings.Contains(out, "kill groups:     yes") {
		t.Errorf("doctor does not report kill groups as root with cgroup v2:\n%s", out)
	}
	killGroupsEnabled = false
	b.Reset()
	Doctor(&b, machine())
	killGroupsEnabled = true
	if !strings.Contains(b.String(), "kill groups:     no: kill groups need root") {
		t.Errorf("doctor with kill groups switched off:\n%s", b.String())
	}
	b.Reset()
	Doctor(&b, Features{LandlockDetail: "Landlock unavailable: test", SeccompDetail: "none"})
	if !strings.Contains(b.String(), "unavailable") || !strings.Contains(b.String(), "commands are refused") {
		t.Errorf("doctor without features:\n%s", b.String())
	}
	t.Logf("\n%s", out)
}

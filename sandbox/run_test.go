package sandbox

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
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

// waitGone waits until pid is gone after SIGKILL was sent; the bound is a
// hang guard, not a timing assertion.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !gone(pid); {
		if time.Now().After(deadline) {
			unix.Kill(pid, unix.SIGKILL)
			t.Fatalf("process %d is still running", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func readPid(t *testing.T, p string) int {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(readFile(t, p)))
	if err != nil {
		t.Fatalf("pid file %s: %v", p, err)
	}
	return pid
}

// TestRunTimeoutKillsGroup: a command that outlives its timeout is killed
// together with its children.
func TestRunTimeoutKillsGroup(t *testing.T) {
	f := requireKernel(t, false)
	for _, mode := range []domain.Mode{domain.ModeAutoAcceptEdits, domain.ModeFullAccess} {
		t.Run(string(mode), func(t *testing.T) {
			ws := tempWorkspace(t)
			s := snapshotFor(t, mode, ws, f.Kernel)
			r, err := run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c", "sleep 1000 & echo $! > gc.pid; wait"}, TimeoutMs: 2000}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !r.TimedOut || r.ExitCode != 128+int(unix.SIGKILL) {
				t.Fatalf("result %+v", r)
			}
			waitGone(t, readPid(t, ws+"/gc.pid"))
		})
	}
}

// TestRunCancelKillsGroup: cancelling the context kills the group too (and
// is not reported as a timeout).
func TestRunCancelKillsGroup(t *testing.T) {
	f := requireKernel(t, false)
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	p, err := PlanSpawn(s, SpawnRequest{Argv: []string{"/bin/sh", "-c", "sleep 1000 & echo $! > gc.pid; wait"}}, os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *Result, 1)
	go func() {
		r, _ := Run(ctx, p)
		done <- r
	}()
	written := func() bool { b, _ := os.ReadFile(ws + "/gc.pid"); return strings.HasSuffix(string(b), "\n") }
	for deadline := time.Now().Add(30 * time.Second); !written(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			cancel()
			t.Fatal("the command never started")
		}
	}
	pid := readPid(t, ws+"/gc.pid")
	cancel()
	r := <-done
	if r == nil || r.TimedOut || r.ExitCode != 128+int(unix.SIGKILL) {
		t.Fatalf("result %+v", r)
	}
	waitGone(t, pid)
}

// TestRunKillsLeftovers: background children left in the group when the
// command exits are killed.
func TestRunKillsLeftovers(t *testing.T) {
	f := requireKernel(t, false)
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r := sh(t, s, "sleep 1000 >/dev/null 2>&1 & echo $! > gc.pid")
	if r.ExitCode != 0 || r.TimedOut {
		t.Fatalf("result %+v", r)
	}
	waitGone(t, readPid(t, ws+"/gc.pid"))
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
	b.Reset()
	Doctor(&b, Features{LandlockDetail: "Landlock unavailable: test", SeccompDetail: "none"})
	if !strings.Contains(b.String(), "unavailable") || !strings.Contains(b.String(), "commands are refused") {
		t.Errorf("doctor without features:\n%s", b.String())
	}
	t.Logf("\n%s", out)
}

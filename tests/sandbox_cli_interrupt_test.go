package tests

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestSandboxCLIInterruptEndsEverything (issue 9.6): an interrupt (SIGINT,
// as from a terminal's Ctrl-C, SIGQUIT from its Ctrl-\, SIGTERM, or SIGHUP
// when the terminal closes) to `turnstile sandbox` ends the
// command and everything it started (here a setsid daemon that keeps
// appending to a file), removes the protected names it held (.codex and
// .agents, which did not exist) and its isolated temp dir, and the CLI
// exits. The daemon is seen running, and the names held, before the signal
// (so nothing passes because it never started); control: without a signal
// the same daemon is ended with the command (TestPIDNamespaceKillsDaemons
// covers Run).
func TestSandboxCLIInterruptEndsEverything(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			root := workspace(t)
			tok := "turnstile-interrupt-" + strconv.FormatInt(time.Now().UnixNano(), 36)
			// The daemon leaves a new session and keeps writing; its
			// temp dir (the isolated TMPDIR) is named in tmpdir.
			daemon := "setsid sh -c 'while :; do echo x >> grow; sleep 0.02; done' " + tok + " </dev/null >/dev/null 2>&1 & " +
				"while [ ! -s grow ]; do sleep 0.01; done; echo \"$TMPDIR\" > tmpdir; "
			for _, f := range []string{"ready", "release"} {
				if err := syscall.Mkfifo(filepath.Join(root, f), 0o666); err != nil {
					t.Fatal(err)
				}
			}
			cmd := startSandboxScript(t, bin, root, daemon+"echo up > ready; read x < release")
			tmp, err := os.ReadFile(filepath.Join(root, "tmpdir"))
			tmpDir := string(bytes.TrimSpace(tmp))
			if err != nil || tmpDir == "" || !exists(tmpDir) {
				t.Fatalf("the command's temp dir %q (%v) does not exist while it runs", tmpDir, err)
			}
			if len(pidsWith(t, tok)) == 0 {
				t.Fatal("the daemon is not running before the signal: the test would prove nothing")
			}
			for _, held := range []string{".codex", ".agents"} {
				if !exists(filepath.Join(root, held)) {
					t.Fatalf("%s is not held while the command runs: the test would prove nothing", held)
				}
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			waited := make(chan error, 1)
			go func() { waited <- cmd.Wait() }()
			select {
			case <-waited:
			case <-time.After(30 * time.Second):
				t.Fatal("turnstile sandbox did not exit after the signal")
			}
			if pids := pidsWith(t, tok); len(pids) != 0 {
				t.Fatalf("the daemon outlived the interrupted CLI: %v", pids)
			}
			size := func() int64 { fi, _ := os.Stat(filepath.Join(root, "grow")); return fi.Size() }
			before := size()
			time.Sleep(100 * time.Millisecond) // the daemon wrote every 20 ms: five writes if it lived
			if size() != before {
				t.Fatal("the file still grows after the CLI exited")
			}
			for _, gone := range []string{filepath.Join(root, ".codex"), filepath.Join(root, ".agents"), tmpDir} {
				if exists(gone) {
					t.Errorf("%s is left after the interrupt", gone)
				}
			}
		})
	}
}

// startSandboxScript starts `BIN sandbox --mode auto_accept_edits --root
// ROOT -- sh -c SCRIPT`, where SCRIPT writes "up" to the FIFO ROOT/ready
// (which the caller made), and returns once it did.
func startSandboxScript(t *testing.T, bin, root, script string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, "sandbox", "--mode", "auto_accept_edits", "--root", root, "--", "sh", "-c", script)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ready, err := os.Open(filepath.Join(root, "ready")) // blocks until the command opens it
	if err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(ready).ReadString('\n')
	ready.Close()
	if line != "up\n" {
		t.Fatalf("the command did not come up: %q", line)
	}
	return cmd
}

// TestSandboxCLIKilledTakesItsCommandAlong (issue 9.6): `turnstile sandbox`
// killed with SIGKILL (an agent runtime's hard timeout), which cannot clean
// up, does not leave its command running: the helper asked the kernel for
// a SIGKILL when its starter ends (PR_SET_PDEATHSIG, set after the switch
// to the sandbox's user), and the command is its PID namespace's init. The
// protected names it held are left (nothing runs to remove them); the next
// run over the root adopts and removes them. The daemon is seen running
// before the kill, so the test cannot pass by its never starting.
func TestSandboxCLIKilledTakesItsCommandAlong(t *testing.T) {
	t.Parallel()
	root := workspace(t)
	tok := "turnstile-killed-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	daemon := "setsid sh -c 'while :; do echo x >> grow; sleep 0.02; done' " + tok + " </dev/null >/dev/null 2>&1 & " +
		"while [ ! -s grow ]; do sleep 0.01; done; "
	if err := syscall.Mkfifo(filepath.Join(root, "ready"), 0o666); err != nil {
		t.Fatal(err)
	}
	cmd := startSandboxScript(t, bin, root, daemon+"echo up > ready; sleep 1000")
	if len(pidsWith(t, tok)) == 0 {
		t.Fatal("the daemon is not running before the kill: the test would prove nothing")
	}
	cmd.Process.Kill()
	cmd.Wait()
	for deadline := time.Now().Add(10 * time.Second); len(pidsWith(t, tok)) != 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the command outlived the killed CLI: %v", pidsWith(t, tok))
		}
	}
	if !exists(filepath.Join(root, ".codex")) {
		t.Log("note: .codex was not left by the killed run")
	}
	out, errOut, code := runCLI(t, "sandbox", "--mode", "auto_accept_edits", "--root", root, "--", "true")
	if code != 0 {
		t.Fatalf("the next run over the root: exit %d\n%s%s", code, out, errOut)
	}
	for _, held := range []string{".codex", ".agents"} {
		if exists(filepath.Join(root, held)) {
			t.Errorf("%s is still there after the next run ended", held)
		}
	}
}

// pidsWith lists the processes whose command line contains tok.
func pidsWith(t *testing.T, tok string) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && bytes.Contains(b, []byte(tok)) {
			out = append(out, pid)
		}
	}
	return out
}

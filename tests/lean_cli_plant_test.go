package tests

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSandboxCLICommandCannotPlantTheLeanProgram: with the turnstile binary
// in the command's writable root (bin/ of a workspace) and no usable
// turnstile-sandbox next to it (none at all, or one refused for being
// writable by its group), the command can neither create nor make usable a
// turnstile-sandbox there: the next `turnstile sandbox` would exec it before
// anything is enforced (the early entry). The planted program is a copy of
// /bin/sh, which runs the file __turnstile-sandbox-cli in the next run's
// directory (its first argument) as a script writing outside any root. The
// control is the same command's write of bin/other, which works.
func TestSandboxCLICommandCannotPlantTheLeanProgram(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		mode os.FileMode // of the turnstile-sandbox next to the binary; 0: none
	}{{"missing", 0}, {"refused", 0o775}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root, outside := workspace(t), workspace(t)
			tb := copyBinaries(t, filepath.Join(root, "bin"), c.mode)
			helper := filepath.Join(root, "bin", "turnstile-sandbox")
			before, _ := os.ReadFile(helper)
			cmd := exec.Command(tb, "sandbox", "--mode", "auto_accept_edits", "--root", root, "--", "sh", "-c",
				"cat /bin/sh > bin/turnstile-sandbox 2>/dev/null && chmod 755 bin/turnstile-sandbox && echo planted; echo y > bin/other && echo wrote")
			cmd.Dir = root
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if string(out) != "wrote\n" {
				t.Errorf("stdout %q, want only the control's write", out)
			}
			after, _ := os.ReadFile(helper)
			if !bytes.Equal(before, after) || (c.mode == 0) == exists(helper) {
				t.Errorf("bin/turnstile-sandbox changed (%d bytes, was %d)", len(after), len(before))
			}
			// The next run, from a directory holding the planted
			// program's script.
			next := t.TempDir()
			marker := filepath.Join(outside, "planted-ran")
			if err := os.WriteFile(filepath.Join(next, "__turnstile-sandbox-cli"), []byte("echo ran > "+marker+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd = exec.Command(tb, "sandbox", "--mode", "auto_accept_edits", "--root", root, "--", "echo", "hi")
			cmd.Dir = next
			out, err = cmd.CombinedOutput()
			if err != nil || string(out) != "hi\n" || exists(marker) {
				t.Fatalf("next run: %v, output %q, planted program ran: %v", err, out, exists(marker))
			}
		})
	}
}

// TestSandboxCLIHeldNamesOutliveTheFirstRunToEnd: two `turnstile sandbox`
// runs over one root. Since the roots' lock (sandbox/rootlock.go) the
// second waits, before it plans, for the first to end and release its
// held names (the missing turnstile-sandbox next to the binary in bin/,
// the missing .agents); then it holds them itself, its command cannot
// create them, and at its end they are removed. (Before the lock the two
// ran at once and shared the holds.) The control is the second command's
// write of bin/other, which works.
func TestSandboxCLIHeldNamesOutliveTheFirstRunToEnd(t *testing.T) {
	t.Parallel()
	root := workspace(t)
	tb := copyBinaries(t, filepath.Join(root, "bin"), 0)
	helper, agents := filepath.Join(root, "bin", "turnstile-sandbox"), filepath.Join(root, ".agents")
	firstUp, first := startCLI(t, tb, root, "first", "")
	firstUp()
	if !exists(helper) || !exists(agents) {
		t.Fatalf("while the first runs: held %v %v, want both", exists(helper), exists(agents))
	}
	secondUp, second := startCLI(t, tb, root, "second",
		"cat /bin/sh > bin/turnstile-sandbox 2>/dev/null && echo planted; mkdir -p .agents/x 2>/dev/null && echo made; echo y > bin/other && echo wrote")
	if out, errOut, code := first(); code != 0 {
		t.Fatalf("first run: exit %d, %q %s", code, out, errOut)
	}
	secondUp()
	if !exists(helper) || !exists(agents) {
		t.Fatalf("while the second runs: held %v %v, want both", exists(helper), exists(agents))
	}
	out, errOut, code := second()
	if code != 0 || out != "wrote\n" {
		t.Fatalf("second run: exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	if exists(helper) || exists(agents) {
		t.Fatalf("after both: %s %v, %s %v, want both removed", helper, exists(helper), agents, exists(agents))
	}
}

// startCLI starts `BIN sandbox` over root with a command that says it is up
// on the FIFO root/TAG-ready and waits for a line on root/TAG-release before
// it runs extra; it returns the function that waits until the command is
// up, and the one that releases it and returns the run's stdout, stderr and
// exit code.
func startCLI(t *testing.T, bin, root, tag, extra string) (func(), func() (string, string, int)) {
	t.Helper()
	ready, release := filepath.Join(root, tag+"-ready"), filepath.Join(root, tag+"-release")
	for _, f := range []string{ready, release} {
		if err := syscall.Mkfifo(f, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "sandbox", "--mode", "auto_accept_edits", "--root", root, "--",
		"sh", "-c", "echo up > "+tag+"-ready; read x < "+tag+"-release; "+extra)
	cmd.Dir = root
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	up := func() {
		t.Helper()
		r, err := os.Open(ready) // blocks until the command opens it to write
		if err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(r).ReadString('\n')
		r.Close()
		if line != "up\n" {
			t.Fatalf("%s: the command did not come up: %q", tag, line)
		}
	}
	return up, func() (string, string, int) {
		w, err := os.OpenFile(release, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		w.WriteString("go\n")
		w.Close()
		code := 0
		if err := cmd.Wait(); err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatal(err)
			}
			code = ee.ExitCode()
		}
		return out.String(), errOut.String(), code
	}
}

// TestSandboxCLIThroughASymlinkUsesTheRealSibling: `turnstile sandbox` run
// through a symlink in a directory that holds another turnstile-sandbox
// (one that would run a script outside any root) starts the program next to
// the real binary, as the server's siblingHelperPath chooses; the control
// is a copy of the binary in that directory, which does start the program
// beside it (so the planted program would have shown).
func TestSandboxCLIThroughASymlinkUsesTheRealSibling(t *testing.T) {
	t.Parallel()
	root, outside := workspace(t), workspace(t)
	for _, viaLink := range []bool{true, false} {
		dir := t.TempDir()
		sh, err := os.ReadFile("/bin/sh")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "turnstile-sandbox"), sh, 0o755); err != nil {
			t.Fatal(err)
		}
		marker := filepath.Join(outside, "planted-ran")
		os.Remove(marker)
		if err := os.WriteFile(filepath.Join(dir, "__turnstile-sandbox-cli"), []byte("echo ran > "+marker+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		tb := filepath.Join(dir, "turnstile")
		if viaLink {
			err = os.Symlink(bin, tb)
		} else {
			copyBinaries(t, dir, 0)
		}
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(tb, "sandbox", "--mode", "auto_accept_edits", "--root", root, "--", "echo", "hi")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if viaLink && (err != nil || string(out) != "hi\n" || exists(marker)) {
			t.Fatalf("through a symlink: %v, output %q, planted program ran: %v", err, out, exists(marker))
		}
		if !viaLink && !exists(marker) {
			t.Fatalf("control: the program beside a copy of the binary did not run (%v, %q)", err, out)
		}
	}
}

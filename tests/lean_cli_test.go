package tests

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// heldSandbox starts `BIN sandbox --mode auto_accept_edits --root ROOT --
// CMD` whose command writes "up" to the FIFO ROOT/ready and then waits for a
// line on the FIFO ROOT/release, and returns the running CLI once the
// command is up, and a function that releases the command and returns the
// CLI's stdout, stderr and exit code. extra runs in the command after the
// release.
func heldSandbox(t *testing.T, bin, root, extra string, files ...*os.File) (*exec.Cmd, func() (string, string, int)) {
	t.Helper()
	for _, f := range []string{"ready", "release"} {
		if err := syscall.Mkfifo(filepath.Join(root, f), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "sandbox", "--mode", "auto_accept_edits", "--root", root, "--",
		"sh", "-c", "echo up > ready; read x < release; "+extra)
	cmd.ExtraFiles = files
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// Blocks until the command opens the FIFO to write.
	ready, err := os.Open(filepath.Join(root, "ready"))
	if err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(ready).ReadString('\n')
	ready.Close()
	if line != "up\n" {
		t.Fatalf("the command did not come up: %q", line)
	}
	return cmd, func() (string, string, int) {
		rel, err := os.OpenFile(filepath.Join(root, "release"), os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		rel.WriteString("go\n")
		rel.Close()
		err = cmd.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), errOut.String(), code
	}
}

// exeOf is the program process pid runs.
func exeOf(t *testing.T, pid int) string {
	t.Helper()
	exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// copyBinaries copies the suite's turnstile and, unless helperMode is 0,
// turnstile-sandbox (with that mode) into dir.
func copyBinaries(t *testing.T, dir string, helperMode os.FileMode) string {
	t.Helper()
	// Copied by cp, not through a descriptor of this process: a parallel
	// test's fork holds every descriptor open here until its exec, and an
	// executable open for writing anywhere cannot be run (ETXTBSY: "text
	// file busy", seen once in a full run).
	cp := func(src, dst string, mode os.FileMode) {
		if out, err := exec.Command("cp", src, dst).CombinedOutput(); err != nil {
			t.Fatalf("cp %s: %v: %s", src, err, out)
		}
		if err := os.Chmod(dst, mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cp(bin, filepath.Join(dir, "turnstile"), 0o755)
	if helperMode != 0 {
		cp(filepath.Join(filepath.Dir(bin), "turnstile-sandbox"), filepath.Join(dir, "turnstile-sandbox"), helperMode)
	}
	return filepath.Join(dir, "turnstile")
}

// TestSandboxCLIRunsInTheLeanProgram: `turnstile sandbox` becomes the lean
// program next to the binary before the server's packages start (the early
// entry, cmd/turnstile/early): while the command runs, the CLI's process is
// turnstile-sandbox, and the command inherits no descriptor of the
// turnstile binary (it lists only its standard ones); the command is enforced (a write in the root
// works, one outside is refused) and its output and exit code come back.
func TestSandboxCLIRunsInTheLeanProgram(t *testing.T) {
	t.Parallel()
	root, outside := workspace(t), workspace(t)
	cmd, release := heldSandbox(t, bin, root, "echo in > in.txt; cat in.txt; ls /proc/self/fd; echo x > "+outside+"/x; exit 3")
	lean := filepath.Join(filepath.Dir(bin), "turnstile-sandbox")
	if got := exeOf(t, cmd.Process.Pid); got != lean {
		t.Fatalf("the CLI runs %s, want the lean program %s", got, lean)
	}
	out, errOut, code := release()
	// ls lists its own directory descriptor (3) besides 0-2.
	if code != 3 || out != "in\n0\n1\n2\n3\n" || exists(filepath.Join(outside, "x")) || !exists(filepath.Join(root, "in.txt")) {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errOut)
	}
}

// leanInitTraces splits GODEBUG=inittrace=1 output into each program's
// packages, in the order they were initialised (each program starts again
// at runtime), and checks that there were two: the turnstile binary up to
// its early entry, then the lean program, which links turnstile/sandbox.
func leanInitTraces(t *testing.T, stderr string) [][]string {
	t.Helper()
	var programs [][]string
	for line := range strings.Lines(stderr) {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "init" {
			continue
		}
		if f[1] == "runtime" {
			programs = append(programs, nil)
		}
		if len(programs) > 0 {
			programs[len(programs)-1] = append(programs[len(programs)-1], f[1])
		}
	}
	if len(programs) != 2 || !slices.Contains(programs[1], "turnstile/sandbox") {
		t.Fatalf("want the turnstile binary's trace, then the lean program's (with turnstile/sandbox); got %d traces:\n%.3000s", len(programs), stderr)
	}
	return programs
}

// TestEarlyEntryComesFirst: the turnstile binary initialises nothing but
// the runtime and the packages that sort before the early entry's path
// before the entry execs the lean program (GODEBUG=inittrace=1 prints a line
// for each package as it is initialised, the turnstile binary's first, then
// the lean program's, which starts again at runtime). The linker
// initialises, at each step, the ready package with the lexically first
// path, and the entry imports nothing (but unsafe), so it is ready at once.
// When it imported syscall, runtime/metrics, sync, internal/godebug,
// encoding/base64 and hash/crc32 ran first (about 0.9 ms), and when it
// imported strings, os and encoding/hex, protobuf, gRPC, TOML and HTTP/2
// packages too (about 1 ms more). The control is the lean program's own
// trace: the entry ran and the command too.
func TestEarlyEntryComesFirst(t *testing.T) {
	t.Parallel()
	root := workspace(t)
	cmd := exec.Command(bin, "sandbox", "--mode", "supervised", "--root", root, "--", "/bin/true")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var errOut strings.Builder
	cmd.Stderr = &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	programs := leanInitTraces(t, errOut.String())
	for _, pkg := range programs[0] {
		// The runtime's own packages are initialised with it, before main
		// (each program's internal/bytealg and internal/runtime/... lines
		// come just before its "runtime" line).
		runtimeOwn := pkg == "runtime" || pkg == "internal/bytealg" || strings.HasPrefix(pkg, "internal/runtime/")
		if !runtimeOwn && pkg >= "early.invalid/entry" {
			t.Errorf("the turnstile binary initialised %s before its early entry ran (all before it: %v)", pkg, programs[0])
		}
	}
}

// TestEarlyEntryKeepsEveryArgument: the early entry takes the arguments
// from the runtime (package os is not initialised yet) and passes them on
// unchanged to the lean program, which runs the command line (two programs
// in the init trace): an empty one, one with spaces, one with a newline and
// a long one arrive as given.
func TestEarlyEntryKeepsEveryArgument(t *testing.T) {
	t.Parallel()
	root := workspace(t)
	long := strings.Repeat("x", 100<<10)
	args := []string{"a", "", "b c", "d\ne", long, ""}
	cmd := exec.Command(bin, append([]string{"sandbox", "--mode", "supervised", "--root", root, "--", "printf", "%s|"}, args...)...)
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%.3000s", err, errOut.String())
	}
	leanInitTraces(t, errOut.String())
	if want := strings.Join(args, "|") + "|"; out.String() != want {
		t.Fatalf("the command printed %.200q, want %.200q", out.String(), want)
	}
}

// TestSandboxCLIRefusedLeanProgramStaysInTurnstile: a turnstile-sandbox
// next to the binary that the server's checks refuse (writable by its
// group) is not started: the command runs in the turnstile binary itself,
// enforced the same. The control is TestSandboxCLIRunsInTheLeanProgram.
func TestSandboxCLIRefusedLeanProgramStaysInTurnstile(t *testing.T) {
	t.Parallel()
	alone := copyBinaries(t, t.TempDir(), 0o775)
	root, outside := workspace(t), workspace(t)
	cmd, release := heldSandbox(t, alone, root, "echo in > in.txt; cat in.txt; echo x > "+outside+"/x")
	if got := exeOf(t, cmd.Process.Pid); got != alone {
		t.Fatalf("the CLI runs %s, want the turnstile binary %s", got, alone)
	}
	out, errOut, code := release()
	if code == 0 || out != "in\n" || exists(filepath.Join(outside, "x")) {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errOut)
	}
}

// TestSandboxCLILeanProgramOfOtherCodeFallsBack: the lean program runs the
// command line only when the turnstile binary that started it carries the
// same fingerprint of the sandbox and domain code; told another one, it
// execs that binary (the descriptor it was given) to run the same command
// line there, which enforces it. The turnstile binary's own early entry
// (the control) passes the right fingerprint: see
// TestSandboxCLIRunsInTheLeanProgram.
func TestSandboxCLILeanProgramOfOtherCodeFallsBack(t *testing.T) {
	t.Parallel()
	self, err := os.OpenFile(bin, os.O_RDONLY, 0) // descriptor 3 in the child
	if err != nil {
		t.Fatal(err)
	}
	defer self.Close()
	root, outside := workspace(t), workspace(t)
	lean := filepath.Join(filepath.Dir(bin), "turnstile-sandbox")
	wrapper := filepath.Join(t.TempDir(), "lean-wrong-fingerprint")
	// The wrapper stands for the turnstile binary: heldSandbox passes
	// "sandbox" first, which the lean program's command line does not
	// take, so it drops it.
	script := "#!/bin/sh\nshift\nexec " + lean + " __turnstile-sandbox-cli 0123456789abcdef 3 \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd, release := heldSandbox(t, wrapper, root, "echo in > in.txt; cat in.txt; ls /proc/self/fd; echo x > "+outside+"/x", self)
	if got := exeOf(t, cmd.Process.Pid); got != bin {
		t.Fatalf("the CLI runs %s, want the turnstile binary %s after the fall-back", got, bin)
	}
	out, errOut, code := release()
	if code == 0 || out != "in\n0\n1\n2\n3\n" || exists(filepath.Join(outside, "x")) {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errOut)
	}
}

// TestSandboxCLIKeepsItsProgramsReadOnly: with the binaries inside the
// command's writable root, the command can neither rewrite the turnstile
// binary (the one that started the lean program) nor the lean program,
// while it writes a file next to them.
func TestSandboxCLIKeepsItsProgramsReadOnly(t *testing.T) {
	t.Parallel()
	root := workspace(t)
	tb := copyBinaries(t, filepath.Join(root, "bin"), 0o755)
	before, err := os.ReadFile(tb)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(tb, "sandbox", "--mode", "auto_accept_edits", "--root", root, "--", "sh", "-c",
		"echo x >> bin/turnstile || echo refused; echo x >> bin/turnstile-sandbox || echo refused; mv bin/turnstile bin/t2 || echo refused; echo y > bin/other && echo wrote")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if string(out) != "refused\nrefused\nrefused\nwrote\n" {
		t.Fatalf("stdout %q", out)
	}
	after, err := os.ReadFile(tb)
	if err != nil || string(after) != string(before) {
		t.Fatalf("the turnstile binary changed (%v)", err)
	}
}

package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// testDegradedArg runs the test binary as a process on a simulated older
// kernel: it installs a seccomp filter (or caps the Landlock ABI) on itself,
// then probes, prints doctor, resolves snapshots or runs a command. Every
// child it starts (the namespace probe, the helper) inherits the filter.
const testDegradedArg = "__sandbox-test-degraded"

// Simulated kernels.
const (
	// kernelNoLandlock: landlock_* return ENOSYS (no Landlock built in).
	kernelNoLandlock = "no-landlock"
	// kernelNoUserNS: clone/unshare with CLONE_NEWUSER fail with EPERM
	// (unprivileged user namespaces refused, as on recent Ubuntu).
	kernelNoUserNS = "no-userns"
	// kernelAsIs changes nothing (a control).
	kernelAsIs = "as-is"
	// kernelABIPrefix + N caps the Landlock ABI Probe reports at N.
	kernelABIPrefix = "abi-"
)

// BPF pieces of the test filters (bpfJeq and bpfRet come from seccomp.go).
const (
	bpfLdAbs       = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJsetK       = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
	testRetAllow   = unix.SECCOMP_RET_ALLOW
	testRetErrno   = unix.SECCOMP_RET_ERRNO
	seccompArg0Low = 16 // offsetof(struct seccomp_data, args[0]), low half on little endian
)

// degradeKernel makes this process (all its threads, and every child)
// look like the named kernel.
func degradeKernel(kind string) error {
	var prog []unix.SockFilter
	switch {
	case kind == kernelAsIs:
		return nil
	case kind == kernelNoLandlock:
		prog = []unix.SockFilter{
			{Code: bpfLdAbs, K: 0},
			{Code: bpfJeq, Jt: 2, K: unix.SYS_LANDLOCK_CREATE_RULESET},
			{Code: bpfJeq, Jt: 1, K: unix.SYS_LANDLOCK_ADD_RULE},
			{Code: bpfJeq, Jt: 0, Jf: 1, K: unix.SYS_LANDLOCK_RESTRICT_SELF},
			{Code: bpfRet, K: testRetErrno | uint32(unix.ENOSYS)},
			{Code: bpfRet, K: testRetAllow},
		}
	case kind == kernelNoUserNS:
		prog = []unix.SockFilter{
			{Code: bpfLdAbs, K: 0},
			{Code: bpfJeq, Jt: 5, K: unix.SYS_CLONE3}, // → ENOSYS: callers fall back to clone
			{Code: bpfJeq, Jt: 2, K: unix.SYS_CLONE},
			{Code: bpfJeq, Jt: 1, K: unix.SYS_UNSHARE},
			{Code: bpfRet, K: testRetAllow},
			{Code: bpfLdAbs, K: seccompArg0Low},
			{Code: bpfJsetK, Jt: 1, Jf: 2, K: unix.CLONE_NEWUSER},
			{Code: bpfRet, K: testRetErrno | uint32(unix.ENOSYS)},
			{Code: bpfRet, K: testRetErrno | uint32(unix.EPERM)},
			{Code: bpfRet, K: testRetAllow},
		}
	case strings.HasPrefix(kind, kernelABIPrefix):
		n, err := strconv.Atoi(strings.TrimPrefix(kind, kernelABIPrefix))
		if err != nil || n < 1 {
			return fmt.Errorf("bad ABI cap %q", kind)
		}
		probeLandlockCap = n
		return nil
	default:
		return fmt.Errorf("unknown kernel %q", kind)
	}
	if err := setNoNewPrivs(); err != nil {
		return err
	}
	return installFilter(prog)
}

// runDegraded is the child: KIND ACTION [ARGS]. Actions: doctor; sandbox
// ARGS (the CLI); snapshots WS (the enforcement of each mode, as JSON);
// run-plan MODE WS CMD… (a plan made from the real kernel's probe before the
// filter went on, run under it: the helper's own checks); tests FLAGS… (this
// test binary exec'd under the filter, which an exec keeps).
func runDegraded(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: KIND ACTION [ARGS]")
		return 2
	}
	kind, action, rest := args[0], args[1], args[2:]
	var before Features
	if action == "run-plan" {
		before = Probe()
	}
	if err := degradeKernel(kind); err != nil {
		fmt.Fprintln(os.Stderr, "degrade:", err)
		return 2
	}
	switch action {
	case "tests":
		exe, err := os.Executable()
		if err == nil {
			err = unix.Exec(exe, append([]string{exe}, rest...), os.Environ())
		}
		fmt.Fprintln(os.Stderr, "exec:", err)
		return 2
	case "doctor":
		Doctor(os.Stdout, Probe())
		return 0
	case "sandbox":
		return SandboxCommand(rest, os.Stdout, os.Stderr)
	case "snapshots":
		f := Probe()
		out := map[string]any{"kernel": f.Kernel}
		for _, m := range domain.Modes {
			s, err := domain.ResolveSnapshot(domain.SnapshotInputs{
				Profile: domain.ResolveProfile(&domain.ProfileRequest{Mode: m}, domain.SourceComposer),
				Cwd:     rest[0], WorkspaceRoot: rest[0], Kernel: f.Kernel,
			})
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 2
			}
			out[string(m)] = s.Enforcement
		}
		json.NewEncoder(os.Stdout).Encode(out)
		return 0
	case "run-plan":
		m, _ := domain.ParseMode(rest[0])
		s, err := domain.ResolveSnapshot(domain.SnapshotInputs{
			Profile: domain.ResolveProfile(&domain.ProfileRequest{Mode: m}, domain.SourceComposer),
			Cwd:     rest[1], WorkspaceRoot: rest[1], Kernel: before.Kernel,
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		p, err := PlanSpawn(&s, SpawnRequest{Argv: rest[2:]}, os.Environ())
		if err != nil {
			fmt.Fprintln(os.Stderr, "plan:", err)
			return 2
		}
		r, err := Run(context.Background(), p)
		if r != nil {
			os.Stdout.Write(r.Stdout)
			os.Stderr.Write(r.Stderr)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "run:", err)
			if r == nil {
				return 3
			}
		}
		return r.ExitCode
	}
	fmt.Fprintln(os.Stderr, "unknown action", action)
	return 2
}

// degraded runs the test binary as a process on the simulated kernel.
func degraded(t *testing.T, kind string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return degradedEnv(t, nil, kind, args...)
}

// degradedEnv is degraded with extra environment variables.
func degradedEnv(t *testing.T, env []string, kind string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(testExe(t), append([]string{testDegradedArg, kind}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), o.String(), e.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, o.String(), e.String()
}

// wantContains fails unless s contains every want.
func wantContains(t *testing.T, what, s string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Errorf("%s does not say %q:\n%s", what, w, s)
		}
	}
}

// snapshotsOn returns the enforcement of each mode (and the kernel
// features) as the simulated kernel resolves them.
func snapshotsOn(t *testing.T, kind, ws string) (domain.KernelFeatures, map[domain.Mode]domain.Enforcement) {
	t.Helper()
	code, out, errOut := degraded(t, kind, "snapshots", ws)
	if code != 0 {
		t.Fatalf("snapshots on %s: exit %d: %s", kind, code, errOut)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var k domain.KernelFeatures
	json.Unmarshal(raw["kernel"], &k)
	es := map[domain.Mode]domain.Enforcement{}
	for _, m := range domain.Modes {
		var e domain.Enforcement
		if err := json.Unmarshal(raw[string(m)], &e); err != nil {
			t.Fatal(err)
		}
		es[m] = e
	}
	return k, es
}

// hasDegradation reports whether e names dimension with a reason holding
// every word.
func hasDegradation(e domain.Enforcement, dimension string, words ...string) bool {
	for _, d := range e.Degradations {
		if d.Dimension != dimension {
			continue
		}
		ok := true
		for _, w := range words {
			ok = ok && strings.Contains(d.Reason, w)
		}
		if ok {
			return true
		}
	}
	return false
}

// refusedAndNothingRan checks the CLI's answer on a kernel that cannot
// enforce mode: exit 126, the reason on stderr, and the command (touch
// marker) never ran; full_access on the same kernel runs it (the control).
func refusedAndNothingRan(t *testing.T, kind string, mode domain.Mode, reason ...string) {
	t.Helper()
	ws := tempWorkspace(t)
	code, _, errOut := degraded(t, kind, "sandbox", "--mode", string(mode), "--root", ws, "--", "/bin/sh", "-c", "touch ran")
	if code != ExitSandboxFailure || exists(ws+"/ran") {
		t.Fatalf("%s on %s: exit %d, ran=%v: %s", mode, kind, code, exists(ws+"/ran"), errOut)
	}
	wantContains(t, "the refusal", errOut, append([]string{"sandbox_unavailable"}, reason...)...)
	code, _, errOut = degraded(t, kind, "sandbox", "--mode", "full_access", "--root", ws, "--", "/bin/sh", "-c", "touch ran")
	if code != 0 || !exists(ws+"/ran") {
		t.Fatalf("control: full_access on %s: exit %d: %s", kind, code, errOut)
	}
}

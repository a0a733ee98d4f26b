package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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

// TestDegradedNoLandlock: on a kernel whose landlock_* calls return ENOSYS,
// the probe says so, both restricted snapshots name the missing backend and
// filesystem confinement and are unavailable, the CLI refuses with exit 126
// and runs nothing, doctor says the same, and a helper handed a plan made
// on a kernel with Landlock refuses (126) rather than run unconfined.
func TestDegradedNoLandlock(t *testing.T) {
	f := requireKernel(t, false)
	ws := tempWorkspace(t)
	k, es := snapshotsOn(t, kernelNoLandlock, ws)
	if k.LandlockABI != 0 || !k.Seccomp || k.UserNamespaces != f.Kernel.UserNamespaces {
		t.Fatalf("probe under the filter: %+v", k)
	}
	for _, m := range []domain.Mode{domain.ModeAutoAcceptEdits, domain.ModeSupervised} {
		e := es[m]
		if e.Status != domain.EnforcementUnavailable || !hasDegradation(e, "sandbox_backend", "Landlock") || !hasDegradation(e, "filesystem", "Landlock is unavailable") {
			t.Errorf("%s: %+v", m, e)
		}
	}
	if es[domain.ModeFullAccess].Status != domain.EnforcementActive {
		t.Errorf("full_access: %+v", es[domain.ModeFullAccess])
	}
	refusedAndNothingRan(t, kernelNoLandlock, domain.ModeSupervised, "filesystem")
	refusedAndNothingRan(t, kernelNoLandlock, domain.ModeAutoAcceptEdits, "filesystem")
	_, doc, _ := degraded(t, kernelNoLandlock, "doctor")
	wantContains(t, "doctor", doc, "Landlock unavailable: the kernel has no Landlock support (ENOSYS)",
		"auto_accept_edits  unavailable", "supervised         unavailable", "commands are refused (sandbox_unavailable): nothing is spawned",
		"full_access        active")

	code, _, errOut := degraded(t, kernelNoLandlock, "run-plan", "supervised", ws, "/bin/sh", "-c", "touch ran")
	if code != ExitSandboxFailure || exists(ws+"/ran") {
		t.Fatalf("the helper under the filter: exit %d, ran=%v: %s", code, exists(ws+"/ran"), errOut)
	}
	wantContains(t, "the helper's refusal", errOut, "landlock is unavailable", "function not implemented")
}

// TestDegradedNoUserNamespaces: on a kernel that refuses user namespaces
// (the helper needs one, also as root, for its idmapped writable roots) the
// probe reports the refusal (EPERM), both restricted snapshots name what is
// lost without the helper's namespaces and are unavailable, the CLI refuses
// with exit 126 and runs nothing, doctor says the same, and a helper handed
// a plan made where namespaces worked refuses (126) rather than run without
// them.
func TestDegradedNoUserNamespaces(t *testing.T) {
	requireKernel(t, true)
	ws := tempWorkspace(t)
	k, es := snapshotsOn(t, kernelNoUserNS, ws)
	if k.UserNamespaces || k.LandlockABI < 1 || !k.Seccomp {
		t.Fatalf("probe under the filter: %+v", k)
	}
	for _, m := range []domain.Mode{domain.ModeAutoAcceptEdits, domain.ModeSupervised} {
		e := es[m]
		if e.Status != domain.EnforcementUnavailable || !hasDegradation(e, "filesystem", "no mount namespace") || !hasDegradation(e, "process", "no PID namespace") {
			t.Errorf("%s: %+v", m, e)
		}
	}
	if es[domain.ModeFullAccess].Status != domain.EnforcementActive {
		t.Errorf("full_access: %+v", es[domain.ModeFullAccess])
	}
	refusedAndNothingRan(t, kernelNoUserNS, domain.ModeAutoAcceptEdits, "filesystem, process")
	refusedAndNothingRan(t, kernelNoUserNS, domain.ModeSupervised, "filesystem, process")
	_, doc, _ := degraded(t, kernelNoUserNS, "doctor")
	wantContains(t, "doctor", doc, "user namespaces: no: ", "operation not permitted",
		"auto_accept_edits  unavailable", "supervised         unavailable", "no mount namespace", "no PID namespace",
		"commands are refused (sandbox_unavailable): nothing is spawned", "full_access        active")

	code, _, errOut := degraded(t, kernelNoUserNS, "run-plan", "auto_accept_edits", ws, "/bin/sh", "-c", "touch ran")
	if code != ExitSandboxFailure || exists(ws+"/ran") {
		t.Fatalf("a namespace plan under the filter: exit %d, ran=%v: %s", code, exists(ws+"/ran"), errOut)
	}
	wantContains(t, "the refusal", errOut, "operation not permitted")
}

// TestDegradedOldLandlockABI: with the ABI capped (a test-only knob: see
// probeLandlockCap) the probe and doctor report the capped ABI; at ABI 3
// and 4 the restricted snapshots name ioctl on devices (which the helper's
// namespaces do not make up for) and are unavailable, and the CLI refuses
// with exit 126 and runs nothing; at ABI 5, whose missing scoping the PID
// and network namespaces make up for, and at 6 they are active (the
// controls).
func TestDegradedOldLandlockABI(t *testing.T) {
	f := requireKernel(t, true)
	if f.Kernel.LandlockABI < domain.FullLandlockABI {
		missingPrerequisite(t, "the kernel's Landlock ABI %d is below %d", f.Kernel.LandlockABI, domain.FullLandlockABI)
	}
	ws := tempWorkspace(t)
	for _, c := range []struct {
		abi         int
		unavailable bool
	}{{3, true}, {4, true}, {5, false}, {6, false}} {
		t.Run(strconv.Itoa(c.abi), func(t *testing.T) {
			kind := kernelABIPrefix + strconv.Itoa(c.abi)
			k, es := snapshotsOn(t, kind, ws)
			if k.LandlockABI != c.abi || !k.UserNamespaces {
				t.Fatalf("probe: %+v", k)
			}
			for _, m := range []domain.Mode{domain.ModeAutoAcceptEdits, domain.ModeSupervised} {
				e := es[m]
				if got := e.Status == domain.EnforcementUnavailable; got != c.unavailable || hasDegradation(e, "filesystem", "ioctl") != c.unavailable {
					t.Errorf("%s at ABI %d: %+v", m, c.abi, e)
				}
				if hasDegradation(e, "process", "no scoping") || hasDegradation(e, "filesystem", "truncate") {
					t.Errorf("%s at ABI %d names a loss the namespaces make up for: %+v", m, c.abi, e.Degradations)
				}
			}
			_, doc, _ := degraded(t, kind, "doctor")
			wantContains(t, "doctor", doc, fmt.Sprintf("Landlock ABI %d (the kernel's Landlock ABI %d, capped by a test)", c.abi, f.Kernel.LandlockABI))
			if c.unavailable {
				wantContains(t, "doctor", doc, "supervised         unavailable", "ioctl on device files")
				refusedAndNothingRan(t, kind, domain.ModeSupervised, "filesystem")
			} else {
				wantContains(t, "doctor", doc, "supervised         active")
			}
		})
	}
}

// TestOldABIHelperKeepsProcessesApart: what ABI 5 lacks (scoping) is made
// up for as the snapshot says: a helper applying a strict ABI-5 ruleset
// still confines writes, and the command cannot signal a process outside
// the sandbox (the PID namespace hides it), as at the kernel's own ABI.
func TestOldABIHelperKeepsProcessesApart(t *testing.T) {
	f := requireKernel(t, true)
	if f.Kernel.LandlockABI < domain.FullLandlockABI {
		missingPrerequisite(t, "the kernel's Landlock ABI %d is below %d", f.Kernel.LandlockABI, domain.FullLandlockABI)
	}
	outsider := exec.Command("sleep", "60")
	if err := outsider.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { outsider.Process.Kill(); outsider.Wait() }()
	ws, outside := tempWorkspace(t), tempWorkspace(t)
	exe := testExe(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel, filepath.Dir(exe))
	for _, abi := range []int{5, f.Kernel.LandlockABI} {
		r, err := run(t, s, SpawnRequest{Argv: []string{exe, testProbeArg, "signal", strconv.Itoa(outsider.Process.Pid)}}, func(p *Plan) { p.Sandbox.LandlockABI = abi })
		if err != nil {
			t.Fatalf("ABI %d: %v", abi, err)
		}
		if r.ExitCode == 0 {
			t.Errorf("ABI %d: the command signalled a process outside the sandbox: %s", abi, r.Stdout)
		}
		w, _ := run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c", "echo x > " + outside + "/x; echo y > y"}}, func(p *Plan) { p.Sandbox.LandlockABI = abi })
		if exists(outside+"/x") || !exists(ws+"/y") {
			t.Fatalf("ABI %d: writes not confined as planned: %+v %s", abi, w, w.Stderr)
		}
		os.Remove(ws + "/y")
	}
	// The control: the signal probe reaches the outsider from an
	// unrestricted snapshot.
	open := snapshotFor(t, domain.ModeFullAccess, ws, f.Kernel)
	if r, err := run(t, open, SpawnRequest{Argv: []string{exe, testProbeArg, "signal", strconv.Itoa(outsider.Process.Pid)}}, nil); err != nil || r.ExitCode != 0 {
		t.Fatalf("control: full_access could not signal the outsider: %v %+v %s", err, r, r.Stdout)
	}
}

// TestCIFailsInsteadOfSkipping: on a kernel that cannot run the kernel
// tests (no Landlock; no user namespaces), they fail under CI=true, naming
// what is missing, and are skipped without it (the control).
func TestCIFailsInsteadOfSkipping(t *testing.T) {
	requireKernel(t, true)
	for _, c := range []struct{ kind, test, missing string }{
		{kernelNoLandlock, "TestEnforceFilesystem", "kernel cannot enforce: Landlock unavailable"},
		{kernelNoUserNS, "TestLeanHelperEnforces", "no user namespaces"},
	} {
		t.Run(c.kind, func(t *testing.T) {
			args := []string{"tests", "-test.run", "^" + c.test + "$", "-test.v", "-test.count=1"}
			code, out, errOut := degradedEnv(t, []string{"CI=true"}, c.kind, args...)
			if code == 0 || !strings.Contains(out, "--- FAIL: "+c.test) || !strings.Contains(out, "CI=true and this machine cannot run the test: "+c.missing) {
				t.Fatalf("CI=true on %s: exit %d\n%s%s", c.kind, code, out, errOut)
			}
			code, out, errOut = degradedEnv(t, []string{"CI="}, c.kind, args...)
			if code != 0 || !strings.Contains(out, "--- SKIP: ") || strings.Contains(out, "--- FAIL") {
				t.Fatalf("without CI on %s: exit %d\n%s%s", c.kind, code, out, errOut)
			}
		})
	}
}

// unprivilegedUser creates a system user for the test (removed at the end)
// and returns its uid and gid.
func unprivilegedUser(t *testing.T) (uid, gid int) {
	t.Helper()
	if os.Geteuid() != 0 {
		missingPrerequisite(t, "creating a user needs root")
	}
	name := fmt.Sprintf("tsbx%d", os.Getpid())
	if out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name).CombinedOutput(); err != nil {
		missingPrerequisite(t, "useradd: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("userdel", name).Run() })
	out, err := exec.Command("id", "-u", name).Output()
	if err != nil {
		t.Fatal(err)
	}
	uid, _ = strconv.Atoi(strings.TrimSpace(string(out)))
	out, err = exec.Command("id", "-g", name).Output()
	if err != nil {
		t.Fatal(err)
	}
	gid, _ = strconv.Atoi(strings.TrimSpace(string(out)))
	return uid, gid
}

// TestDegradedNoUserNamespacesUnprivileged: the same refusal seen by a
// server that is not root (where the helper's namespaces start with a user
// namespace): with user namespaces refused the CLI exits 126 and runs
// nothing; without the filter the same user's command runs confined (the
// control).
func TestDegradedNoUserNamespacesUnprivileged(t *testing.T) {
	requireKernel(t, true)
	uid, gid := unprivilegedUser(t)
	dir, err := os.MkdirTemp("", "turnstile-unpriv-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	exe := filepath.Join(dir, "sandbox.test")
	b, err := os.ReadFile(testExe(t))
	if err != nil {
		t.Fatal(err)
	}
	ws, outside := filepath.Join(dir, "ws"), filepath.Join(dir, "outside")
	for _, d := range []string{ws, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	as := func(kind string, args ...string) (int, string) {
		cmd := exec.Command(exe, append([]string{testDegradedArg, kind}, args...)...)
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "CI="}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), out.String()
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, out.String()
	}
	script := "echo in > in.txt; echo x > " + outside + "/x"
	code, out := as(kernelAsIs, "sandbox", "--mode", "auto_accept_edits", "--root", ws, "--", "/bin/sh", "-c", script)
	if !exists(ws+"/in.txt") || exists(outside+"/x") || code == 0 {
		t.Fatalf("control: unprivileged auto_accept_edits: exit %d: %s", code, out)
	}
	os.Remove(ws + "/in.txt")
	code, out = as(kernelNoUserNS, "sandbox", "--mode", "auto_accept_edits", "--root", ws, "--", "/bin/sh", "-c", script)
	if code != ExitSandboxFailure || exists(ws+"/in.txt") || !strings.Contains(out, "sandbox_unavailable") || !strings.Contains(out, "no mount namespace") && !strings.Contains(out, "filesystem, process") {
		t.Fatalf("unprivileged, user namespaces refused: exit %d, ran=%v: %s", code, exists(ws+"/in.txt"), out)
	}
}

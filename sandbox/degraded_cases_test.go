package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"turnstile/domain"
)

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

// testUsers numbers the users unprivilegedUser makes in one process.
var testUsers atomic.Int64

// unprivilegedUser creates a system user for the test (removed at the end)
// and returns its uid and gid.
func unprivilegedUser(t *testing.T) (uid, gid int) {
	t.Helper()
	if os.Geteuid() != 0 {
		missingPrerequisite(t, "creating a user needs root")
	}
	name := fmt.Sprintf("tsbx%d-%d", os.Getpid(), testUsers.Add(1))
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

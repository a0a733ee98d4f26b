package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// Features is what Probe found: the kernel features the snapshot resolver
// needs, plus the details behind each.
type Features struct {
	// Kernel goes into domain.SnapshotInputs.Kernel.
	Kernel domain.KernelFeatures `json:"kernel"`
	// LandlockDetail says which ABI was found, or why there is none.
	LandlockDetail string `json:"landlock_detail"`
	// SeccompDetail says how seccomp was probed.
	SeccompDetail string `json:"seccomp_detail"`
	// UserNamespacesDetail says what the namespace probe tried and found
	// (the sysctls that commonly forbid it, and the real attempt).
	UserNamespacesDetail string `json:"user_namespaces_detail"`
	// Arch is runtime.GOARCH.
	Arch string `json:"arch"`
	// Release is the kernel release (uname -r).
	Release string `json:"release"`
}

// probeLandlockCap, when positive, caps the Landlock ABI Probe reports, so
// that a test can stand for an older kernel (snapshots, plans and the helper
// then use the capped ABI). Only test code sets it: no flag, environment
// variable or file reaches it, so nothing an agent controls can lower the
// ABI of a production sandbox.
var probeLandlockCap int

// Probe finds what this machine can enforce. It is meant to run once at
// start: the namespace part spawns the current binary (which must call
// MaybeRunHelper first thing) in a new user + mount namespace and checks that
// a read-only bind mount really refuses a write.
func Probe() Features {
	f := probeKernel()
	f.Kernel.UserNamespaces, f.UserNamespacesDetail = probeUserNamespaces()
	return f
}

// probeKernel is Probe without the namespace part.
func probeKernel() Features {
	f := Features{Arch: runtime.GOARCH}
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		f.Release = unix.ByteSliceToString(u.Release[:])
	}
	abi, err := landlockABI()
	if err != nil {
		f.LandlockDetail = "Landlock unavailable: " + landlockReason(err)
	} else {
		f.LandlockDetail = fmt.Sprintf("Landlock ABI %d", abi)
		if probeLandlockCap > 0 && abi > probeLandlockCap {
			abi = probeLandlockCap
			f.LandlockDetail = fmt.Sprintf("Landlock ABI %d (the kernel's %s, capped by a test)", abi, f.LandlockDetail)
		}
		f.Kernel.LandlockABI = abi
		if abi > SupportedLandlockABI {
			f.LandlockDetail += fmt.Sprintf(" (this build applies ABI %d, strictly)", SupportedLandlockABI)
		}
	}
	f.Kernel.Seccomp, f.SeccompDetail = seccompAvailable()
	return f
}

// probeCount counts namespace probes (children started), for tests.
var probeCount atomic.Int64

// quickProbe is Probe without the namespace self-test when the sysctls do
// not forbid namespaces: it then assumes them (verified is false) and says
// so in the detail. Only `turnstile sandbox` uses it, for one command: the
// helper sets up the same namespaces before it execs and fails closed (exit
// 126, nothing run) when it cannot, and SandboxCommand then runs the full
// Probe and answers from it. What the self-test adds, checking that the
// mounts it makes really refuse writes, is left to the server's and
// doctor's Probe. When the sysctls forbid namespaces or the binary is not
// wired as its helper, this is Probe.
func quickProbe() (f Features, verified bool) {
	allowed, sys := userNSSysctlsAllow()
	if !allowed || !helperWired.Load() {
		return Probe(), true
	}
	f = probeKernel()
	f.Kernel.UserNamespaces = true
	f.UserNamespacesDetail = "assumed from the sysctls (" + sys + "); the helper sets them up before the command runs and fails closed if it cannot"
	return f, false
}

// userNSSysctlsAllow reads the sysctls that commonly forbid user namespaces
// and reports whether none of them does (and their values).
func userNSSysctlsAllow() (bool, string) {
	allowed := true
	var notes []string
	for _, p := range userNSSysctls {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		v := strings.TrimSpace(string(b))
		notes = append(notes, filepath.Base(p)+"="+v)
		switch filepath.Base(p) {
		case "max_user_namespaces", "max_mnt_namespaces", "unprivileged_userns_clone":
			allowed = allowed && v != "0"
		case "apparmor_restrict_unprivileged_userns":
			allowed = allowed && v != "1"
		}
	}
	return allowed, strings.Join(notes, ", ")
}

func landlockReason(err error) string {
	switch {
	case errors.Is(err, unix.ENOSYS):
		return "the kernel has no Landlock support (ENOSYS)"
	case errors.Is(err, unix.EOPNOTSUPP):
		return "Landlock is built in but disabled (EOPNOTSUPP; add landlock to the lsm= boot parameter)"
	}
	return err.Error()
}

// userNSSysctls are the knobs that commonly forbid unprivileged user
// namespaces; their values are reported.
var userNSSysctls = []string{
	"/proc/sys/user/max_user_namespaces",
	"/proc/sys/user/max_mnt_namespaces",
	"/proc/sys/kernel/unprivileged_userns_clone",
	"/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
}

// probeUserNamespaces spawns the current binary with CLONE_NEWUSER |
// CLONE_NEWNS, exactly as Run starts the helper, and asks it to make a
// read-only bind mount of a temporary directory and to fail writing to it.
func probeUserNamespaces() (bool, string) {
	var notes []string
	for _, p := range userNSSysctls {
		if b, err := os.ReadFile(p); err == nil {
			notes = append(notes, filepath.Base(p)+"="+strings.TrimSpace(string(b)))
		}
	}
	sys := strings.Join(notes, ", ")
	if !helperWired.Load() {
		return false, "not probed: MaybeRunHelper was not called at program start (" + sys + ")"
	}
	probeCount.Add(1)
	dir, err := os.MkdirTemp("", "turnstile-probe-")
	if err != nil {
		return false, "cannot create a probe directory: " + err.Error()
	}
	defer os.RemoveAll(dir)
	prog := probeHelper()
	if prog.lean && !prog.verified {
		go fingerprint() // ours, for settleHelper, while the child starts
	}
	fp, got, err := runNamespaceProbe(prog, dir)
	if prog.lean && !prog.verified {
		// The child reports its fingerprint first. When it reported none
		// (no namespace could be made, or it failed), it is asked once
		// outside a namespace. A lean helper that does not match is
		// dropped and the probe runs again with the running binary.
		var ferr error
		if fp == "" {
			fp, ferr = runFingerprint(prog.path)
		}
		if !settleHelper(prog.path, fp, ferr) {
			_, got, err = runNamespaceProbe(probeHelper(), dir)
		}
	}
	switch {
	case err == nil && got == "namespaces ok":
		what := "user + mount + PID namespaces with a read-only root view work"
		if os.Geteuid() == 0 {
			what = "mount + PID namespaces (as root, no user namespace) with a read-only root view and an idmapped writable root work; commands run as uid " + fmt.Sprint(SandboxUID)
		}
		return true, what + " (" + sys + ")"
	case err != nil && got == "":
		return false, "cannot start a process in a new user + mount namespace: " + err.Error() + " (" + sys + ")"
	default:
		if len(got) > 300 {
			got = got[:300]
		}
		return false, fmt.Sprintf("namespace probe failed (is MaybeRunHelper called first in main?): %v: %s (%s)", err, got, sys)
	}
}

// runNamespaceProbe starts prog as the probe child in a new user + mount
// namespace and returns the fingerprint it reported on its first line (or
// "") and the rest of its output, trimmed.
func runNamespaceProbe(prog helperProg, dir string) (fp, out string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog.path, probeArg, dir)
	cmd.Args[0] = prog.argv0
	cmd.Env = []string{}
	cmd.SysProcAttr = namespaceAttr()
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err = startMapped(cmd.SysProcAttr, cmd.Start); err == nil {
		err = cmd.Wait()
	}
	out = strings.TrimSpace(buf.String())
	if first, rest, ok := strings.Cut(out, "\n"); ok {
		if v, ok := strings.CutPrefix(first, "fingerprint "); ok {
			return v, rest, err
		}
	}
	return "", out, err
}

// namespaceAttr starts a child in new mount, PID and IPC (the host's System
// V shared memory, semaphores and message queues) namespaces. As root, no
// user namespace: the helper keeps real root to make idmapped mounts and
// the command drops to SandboxUID. Otherwise in a new user namespace too,
// mapping the caller's uid and gid to themselves and keeping CAP_SYS_ADMIN
// (mounts), CAP_SETPCAP (emptying the bounding set) and CAP_DAC_OVERRIDE
// (an overlay's creation needs it of its mounter: overlay.go; in the user
// namespace it reaches only the server's own files) across the exec. The
// helper drops them all before the command (dropPrivileges).
func namespaceAttr() *syscall.SysProcAttr {
	if os.Geteuid() == 0 {
		return &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC}
	}
	uid, gid := os.Getuid(), os.Getgid()
	return &syscall.SysProcAttr{
		Cloneflags:                 syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		GidMappingsEnableSetgroups: false,
		AmbientCaps:                []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP, unix.CAP_DAC_OVERRIDE},
	}
}

// runProbeChild runs in the namespace probe child, started exactly as Run
// starts the helper: build the root view with args[0] as the only writable
// root (as the helper would, idmapped to SandboxUID when root) and check
// that a write there works, that a chmod outside fails with EROFS and that
// /proc is the new PID namespace's (the probe is its pid 1).
func runProbeChild(args []string) int {
	if len(args) != 1 {
		fmt.Println("usage: probe DIR")
		return 2
	}
	// First line: which enforcement code this program carries (see
	// settleHelper).
	fmt.Println("fingerprint", fingerprint())
	dir := args[0]
	sp := &SandboxSpec{RestrictFilesystem: true, UserNamespaces: true, InNamespace: true}
	if os.Geteuid() == 0 {
		sp.UID, sp.GID = SandboxUID, SandboxUID
	}
	v := newFSView(&domain.FilesystemPolicy{Entries: []domain.FilesystemEntry{
		{Kind: domain.PathExplicit, Path: dir, ResolvedPath: dir, Access: domain.AccessWrite},
	}})
	if err := buildRootView(v, sp); err != nil {
		fmt.Println(err)
		return 1
	}
	if sp.UID != 0 {
		if err := switchUser(sp.UID, sp.GID); err != nil {
			fmt.Println(err)
			return 1
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "x"), nil, 0o600); err != nil {
		fmt.Println("write to the writable root failed:", err)
		return 1
	}
	if err := unix.Chmod(filepath.Dir(dir), 0o755); !errors.Is(err, unix.EROFS) {
		fmt.Println("chmod outside the writable root was not refused with EROFS:", err)
		return 1
	}
	if self, err := os.Readlink("/proc/self"); err != nil || self != "1" {
		fmt.Println("/proc is not the PID namespace's own:", self, err)
		return 1
	}
	fmt.Println("namespaces ok")
	return 0
}

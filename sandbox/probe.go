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

// Probe finds what this machine can enforce. It is meant to run once at
// start: the namespace part spawns the current binary (which must call
// MaybeRunHelper first thing) in a new user + mount namespace and checks that
// a read-only bind mount really refuses a write.
func Probe() Features {
	f := Features{Arch: runtime.GOARCH}
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		f.Release = unix.ByteSliceToString(u.Release[:])
	}
	if abi, err := landlockABI(); err != nil {
		f.LandlockDetail = "Landlock unavailable: " + landlockReason(err)
	} else {
		f.Kernel.LandlockABI = abi
		f.LandlockDetail = fmt.Sprintf("Landlock ABI %d", abi)
		if abi > SupportedLandlockABI {
			f.LandlockDetail += fmt.Sprintf(" (this build applies ABI %d, strictly)", SupportedLandlockABI)
		}
	}
	f.Kernel.Seccomp, f.SeccompDetail = seccompAvailable()
	f.Kernel.UserNamespaces, f.UserNamespacesDetail = probeUserNamespaces()
	return f
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
	dir, err := os.MkdirTemp("", "turnstile-probe-")
	if err != nil {
		return false, "cannot create a probe directory: " + err.Error()
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/proc/self/exe", probeArg, dir)
	cmd.Env = []string{}
	cmd.SysProcAttr = namespaceAttr()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	got := strings.TrimSpace(out.String())
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

// namespaceAttr starts a child in new mount, PID and IPC (the host's System
// V shared memory, semaphores and message queues) namespaces. As root, no
// user namespace: the helper keeps real root to make idmapped mounts and
// the command drops to SandboxUID. Otherwise in a new user namespace too,
// mapping the caller's uid and gid to themselves and keeping CAP_SYS_ADMIN
// (mounts) and CAP_SETPCAP (emptying the bounding set) across the exec.
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
		AmbientCaps:                []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP},
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

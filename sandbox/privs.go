package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Securebits (linux/securebits.h): no root privilege on exec, no ambient
// raising, both locked.
const (
	secbitNoroot                 = 1 << 0
	secbitNorootLocked           = 1 << 1
	secbitNoCapAmbientRaise      = 1 << 6
	secbitNoCapAmbientRaiseLockd = 1 << 7
)

// lastCap is the highest capability the running kernel knows.
func lastCap() int {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			return n
		}
	}
	return unix.CAP_LAST_CAP
}

// dropPrivileges empties the calling thread's bounding, ambient,
// inheritable, effective and permitted sets (the caller execs from this
// thread). When uid is not 0 it also switches the thread to uid and gid
// with no supplementary groups, after the bounding set is emptied and
// before the remaining capabilities are cleared (the switch needs
// CAP_SETUID and CAP_SETGID). When the bounding set cannot be emptied (no
// CAP_SETPCAP), that is accepted only for a non-root uid that holds no
// capability: with no_new_privs set next, such a process cannot gain any on
// exec. Credentials are per thread:
// the raw syscalls change only this thread, which then execs.
func dropPrivileges(uid, gid int) error {
	// Securebits first, while CAP_SETPCAP may still be held; best effort
	// (the bounding set is what matters).
	_ = unix.Prctl(unix.PR_SET_SECUREBITS, secbitNoroot|secbitNorootLocked|secbitNoCapAmbientRaise|secbitNoCapAmbientRaiseLockd, 0, 0, 0)
	last := lastCap()
	var boundErr error
	for c := 0; c <= last; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			boundErr = err
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	if uid != 0 {
		if err := switchUser(uid, gid); err != nil {
			return err
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	for _, d := range data {
		if d.Effective|d.Permitted|d.Inheritable != 0 {
			return errors.New("capabilities remain after capset")
		}
	}
	if boundErr != nil {
		if unix.Geteuid() == 0 || unix.Getuid() == 0 {
			return fmt.Errorf("cannot empty the capability bounding set as uid 0: %w", boundErr)
		}
		return nil
	}
	for c := 0; c <= last; c++ {
		if in, err := unix.PrctlRetInt(unix.PR_CAPBSET_READ, uintptr(c), 0, 0, 0); err == nil && in != 0 {
			return fmt.Errorf("capability %d is still in the bounding set", c)
		}
	}
	return nil
}

// switchUser sets the calling thread's groups to none and its real,
// effective and saved ids to uid and gid, and checks the result.
func switchUser(uid, gid int) error {
	if _, _, e := unix.RawSyscall(unix.SYS_SETGROUPS, 0, 0, 0); e != 0 {
		return fmt.Errorf("setgroups: %w", e)
	}
	if _, _, e := unix.RawSyscall(unix.SYS_SETRESGID, uintptr(gid), uintptr(gid), uintptr(gid)); e != 0 {
		return fmt.Errorf("setresgid %d: %w", gid, e)
	}
	if _, _, e := unix.RawSyscall(unix.SYS_SETRESUID, uintptr(uid), uintptr(uid), uintptr(uid)); e != 0 {
		return fmt.Errorf("setresuid %d: %w", uid, e)
	}
	r, e, s := unix.Getresuid()
	if r != uid || e != uid || s != uid {
		return fmt.Errorf("uids are %d/%d/%d after setresuid %d", r, e, s, uid)
	}
	return nil
}

// setNoNewPrivs sets no_new_privs on the calling thread.
func setNoNewPrivs() error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	return nil
}

// dieWithParent makes the kernel SIGKILL this process when the thread that
// started it ends. After the exec that process is the command, the init of
// its PID namespace, whose death ends every process in the namespace: a
// server or a `turnstile sandbox` killed with SIGKILL (which cannot clean
// up) takes its commands with it instead of leaving them running with no
// timeout. It must be set after the last change of user or group (which
// clears it); a starter that ended before that is seen on the status pipe
// (helperStatusFD), whose read end it keeps open until the command has
// ended: the write end then reports POLLERR.
func dieWithParent() error {
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_PDEATHSIG): %w", err)
	}
	fds := []unix.PollFd{{Fd: helperStatusFD}}
	if n, err := unix.Poll(fds, 0); err == nil && n > 0 && fds[0].Revents&(unix.POLLERR|unix.POLLHUP|unix.POLLNVAL) != 0 {
		return errors.New("the process that started the helper has ended")
	}
	return nil
}

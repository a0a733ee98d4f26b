package sandbox

import "golang.org/x/sys/unix"

// nativeSeccompArch: arm64. 32-bit compat syscalls arrive with
// AUDIT_ARCH_ARM and are refused.
func nativeSeccompArch() (seccompArch, bool) {
	return seccompArch{
		audit:      unix.AUDIT_ARCH_AARCH64,
		socket:     unix.SYS_SOCKET,
		socketpair: unix.SYS_SOCKETPAIR,
		ioUring:    [3]uint32{unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER},
		keyring:    [3]uint32{unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY},
		modeArgs: []modeArg{{unix.SYS_FCHMOD, 1}, {unix.SYS_FCHMODAT, 2}, {unix.SYS_FCHMODAT2, 2},
			{unix.SYS_OPENAT, 3}, {unix.SYS_MKNODAT, 2}},
		openat2: unix.SYS_OPENAT2,
		clone:   unix.SYS_CLONE,
		clone3:  unix.SYS_CLONE3,
		unshare: unix.SYS_UNSHARE,
		// arm's (EABI) clone, clone3 and unshare (arch/arm/tools/syscall.tbl).
		compat: compatArch{audit: unix.AUDIT_ARCH_ARM, clone: 120, clone3: 435, unshare: 337},
	}, true
}

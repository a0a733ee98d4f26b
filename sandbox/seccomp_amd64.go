package sandbox

import "golang.org/x/sys/unix"

// nativeSeccompArch: x86-64. i386 (int 0x80) arrives with AUDIT_ARCH_I386 and
// x32 with the __X32_SYSCALL_BIT set: both are refused.
func nativeSeccompArch() (seccompArch, bool) {
	return seccompArch{
		audit:      unix.AUDIT_ARCH_X86_64,
		foreignBit: 0x40000000,
		socket:     unix.SYS_SOCKET,
		socketpair: unix.SYS_SOCKETPAIR,
		ioUring:    [3]uint32{unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER},
		keyring:    [3]uint32{unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY},
		modeArgs: []modeArg{{unix.SYS_CHMOD, 1}, {unix.SYS_FCHMOD, 1}, {unix.SYS_FCHMODAT, 2}, {unix.SYS_FCHMODAT2, 2},
			{unix.SYS_OPEN, 2}, {unix.SYS_OPENAT, 3}, {unix.SYS_CREAT, 1}, {unix.SYS_MKNOD, 1}, {unix.SYS_MKNODAT, 2}},
		openat2: unix.SYS_OPENAT2,
		clone:   unix.SYS_CLONE,
		clone3:  unix.SYS_CLONE3,
		unshare: unix.SYS_UNSHARE,
		// i386's clone, clone3 and unshare (arch/x86/entry/syscalls/syscall_32.tbl).
		compat: compatArch{audit: unix.AUDIT_ARCH_I386, clone: 120, clone3: 435, unshare: 310},
	}, true
}

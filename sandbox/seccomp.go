package sandbox

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// BPF opcodes used by the filter.
const (
	bpfLdW  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJge  = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	bpfJset = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
	bpfRet  = unix.BPF_RET | unix.BPF_K
	offNr   = 0  // seccomp_data.nr
	offArch = 4  // seccomp_data.arch
	offArg0 = 16 // seccomp_data.args[0], low 32 bits (little-endian)
)

// seccompArch describes the native architecture for the filter. foreignBit,
// when non-zero, marks syscalls of an ABI sharing the native audit arch
// (x32 on amd64).
type seccompArch struct {
	audit      uint32
	foreignBit uint32
	socket     uint32
	socketpair uint32
	ioUring    [3]uint32
	// keyring is keyctl, add_key and request_key: the kernel keyrings are
	// shared with the caller's session, so they are always refused.
	keyring [3]uint32
	// modeArgs are the syscalls that set a file's mode (chmod, open with
	// O_CREAT, mknod and their variants) with the index of the mode
	// argument; openat2 passes its mode in memory the filter cannot read.
	modeArgs []modeArg
	openat2  uint32
	// clone, clone3 and unshare are refused a new cgroup namespace
	// (cgroupNSBlock); compat is the 32-bit ABI a full_access command may
	// still use (its filter refuses no architecture).
	clone, clone3, unshare uint32
	compat                 compatArch
}

// compatArch is a 32-bit ABI the native kernel also runs (i386 on amd64,
// arm on arm64): its audit arch and its numbers of clone, clone3 and
// unshare.
type compatArch struct{ audit, clone, clone3, unshare uint32 }

// modeArg is a syscall whose argument arg is a file mode.
type modeArg struct{ nr, arg uint32 }

// setIDBits are the mode bits no sandboxed command may set. A file made in
// a writable root belongs on disk to the root's owner (as root, the
// idmapped mount maps the command's uid to it; otherwise it is the
// server's uid): with set-user-ID, any process of the host that runs it
// outside the sandbox (nosuid and no_new_privs hold only inside) would run
// the command's program as that owner, root included.
const setIDBits = unix.S_ISUID | unix.S_ISGID

// filterOpts selects what the filter refuses beyond the always-on rules
// (foreign architectures, x32, io_uring, keyrings).
type filterOpts struct {
	// restrictSockets refuses socket/socketpair for every family but
	// AF_UNIX. AF_UNIX always stays: socketpair and the command's own
	// sockets must work; which unix sockets it can reach is decided by the
	// root view (host sockets masked, /tmp hidden), not here.
	restrictSockets bool
	// allowInetStream (with restrictSockets) also lets socket() create
	// AF_INET SOCK_STREAM sockets with protocol 0 or IPPROTO_TCP (never
	// AF_INET6, UDP, raw or MPTCP): the command reaches the egress proxy
	// inside its own network namespace, where nothing else listens.
	allowInetStream bool
}

// buildFilter returns the classic BPF program:
//
//	arch != native            → EPERM (i386, arm compat: any syscall)
//	nr >= foreignBit (x32)    → EPERM
//	clone3 → ENOSYS; clone, unshare with CLONE_NEWCGROUP → EPERM
//	io_uring_{setup,enter,register} → ENOSYS
//	keyctl, add_key, request_key    → EPERM
//	chmod, open, mknod and variants with S_ISUID or S_ISGID in the mode → EPERM
//	openat2                   → ENOSYS (its mode cannot be read; callers fall back to openat)
//	socket/socketpair, family != AF_UNIX → EAFNOSUPPORT (when restricted)
//	otherwise                 → allow
func buildFilter(a seccompArch, o filterOpts) []unix.SockFilter {
	const (
		retAllow = unix.SECCOMP_RET_ALLOW
		retEPERM = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
		retNoSys = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
		retNoAF  = unix.SECCOMP_RET_ERRNO | uint32(unix.EAFNOSUPPORT)
	)
	// Labels are resolved by building the program backwards would be
	// clearer in general; this program is small enough to lay out by hand.
	var p []unix.SockFilter
	stmt := func(code uint16, k uint32) { p = append(p, unix.SockFilter{Code: code, K: k}) }
	jump := func(code uint16, k uint32, jt, jf uint8) {
		p = append(p, unix.SockFilter{Code: code, K: k, Jt: jt, Jf: jf})
	}
	stmt(bpfLdW, offArch)
	jump(bpfJeq, a.audit, 1, 0)
	stmt(bpfRet, retEPERM)
	stmt(bpfLdW, offNr)
	if a.foreignBit != 0 {
		jump(bpfJge, a.foreignBit, 0, 1)
		stmt(bpfRet, retEPERM)
	}
	cgroupNSBlock(a.clone, a.clone3, a.unshare, stmt, jump)
	for _, nr := range a.ioUring {
		jump(bpfJeq, nr, 0, 1)
		stmt(bpfRet, retNoSys)
	}
	for _, nr := range a.keyring {
		jump(bpfJeq, nr, 0, 1)
		stmt(bpfRet, retEPERM)
	}
	if a.openat2 != 0 {
		jump(bpfJeq, a.openat2, 0, 1)
		stmt(bpfRet, retNoSys)
	}
	for _, m := range a.modeArgs {
		jump(bpfJeq, m.nr, 0, 4)
		stmt(bpfLdW, offArg0+8*m.arg)
		jump(bpfJset, setIDBits, 0, 1)
		stmt(bpfRet, retEPERM)
		stmt(bpfRet, retAllow) // no other rule concerns these syscalls
	}
	if o.restrictSockets && o.allowInetStream {
		inetStreamBlock(a, stmt, jump)
	} else if o.restrictSockets {
		// socket or socketpair → check the family; else allow.
		jump(bpfJeq, a.socket, 1, 0)
		jump(bpfJeq, a.socketpair, 0, 4)
		stmt(bpfLdW, offArg0)
		jump(bpfJeq, unix.AF_UNIX, 1, 0)
		stmt(bpfRet, retNoAF)
		stmt(bpfRet, retAllow)
	}
	stmt(bpfRet, retAllow)
	return p
}

// installFilter installs the program on every thread (TSYNC). The caller has
// set no_new_privs.
func installFilter(prog []unix.SockFilter) error {
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	r, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog)))
	if e != 0 {
		return fmt.Errorf("seccomp(SET_MODE_FILTER, TSYNC): %w", e)
	}
	if r != 0 {
		return fmt.Errorf("seccomp TSYNC failed: thread %d could not be synchronised", r)
	}
	return nil
}

// seccompAvailable reports whether seccomp filters with errno returns are
// supported, and why not.
func seccompAvailable() (bool, string) {
	if _, ok := nativeSeccompArch(); !ok {
		return false, "no seccomp filter for this architecture in this build"
	}
	if _, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0); err != nil {
		return false, "prctl(PR_GET_SECCOMP): " + err.Error()
	}
	action := uint32(unix.SECCOMP_RET_ERRNO)
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action)))
	if e != 0 {
		return false, "seccomp(GET_ACTION_AVAIL, RET_ERRNO): " + e.Error()
	}
	return true, "filter mode with SECCOMP_RET_ERRNO"
}

// inetStreamBlock is the socket rule of the proxy mode:
//
//	socketpair: family != AF_UNIX → EAFNOSUPPORT
//	socket: AF_UNIX → allow; AF_INET with type SOCK_STREAM (flags masked)
//	        and protocol 0 or IPPROTO_TCP → allow; anything else → EAFNOSUPPORT
//
// The accumulator holds the syscall number on entry.
func inetStreamBlock(a seccompArch, stmt func(uint16, uint32), jump func(uint16, uint32, uint8, uint8)) {
	const (
		retAllow = unix.SECCOMP_RET_ALLOW
		retNoAF  = unix.SECCOMP_RET_ERRNO | uint32(unix.EAFNOSUPPORT)
		offArg1  = offArg0 + 8
		offArg2  = offArg0 + 16
	)
	jump(bpfJeq, a.socketpair, 0, 4)
	stmt(bpfLdW, offArg0)
	jump(bpfJeq, unix.AF_UNIX, 0, 1)
	stmt(bpfRet, retAllow)
	stmt(bpfRet, retNoAF)
	jump(bpfJeq, a.socket, 0, 10) // → final allow
	stmt(bpfLdW, offArg0)
	jump(bpfJeq, unix.AF_UNIX, 8, 0) // → final allow
	jump(bpfJeq, unix.AF_INET, 0, 6) // → EAFNOSUPPORT
	stmt(bpfLdW, offArg1)
	stmt(unix.BPF_ALU|unix.BPF_AND|unix.BPF_K, ^uint32(unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC))
	jump(bpfJeq, unix.SOCK_STREAM, 0, 3)
	stmt(bpfLdW, offArg2)
	jump(bpfJeq, 0, 2, 0)
	jump(bpfJeq, unix.IPPROTO_TCP, 1, 0)
	stmt(bpfRet, retNoAF)
	// the caller's final "allow" follows
}

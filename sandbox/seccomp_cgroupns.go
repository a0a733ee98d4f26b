package sandbox

import "golang.org/x/sys/unix"

// A new cgroup namespace, refused.
//
// A command whose kernel uid is 0 (a root server's full_access command, or
// one of an unrestricted tree) made its own user, mount and cgroup
// namespaces (unshare -UrmC: no capability needed) and mounted cgroup2, or
// a v1 hierarchy, there: the mount's root is its own cgroup, the server's,
// and the files belong to uid 0, which it is, so it wrote cgroup.kill
// below the server's cgroup and the server's memory limits, which the view
// keeps read-only (the hundred-and-fifty-second review). Mounting a cgroup
// file system takes CAP_SYS_ADMIN in the user namespace that owns the
// caller's cgroup namespace: without a cgroup namespace of its own, that is
// the host's. So clone and unshare are refused CLONE_NEWCGROUP, and clone3,
// whose flags lie in memory the filter cannot read, answers ENOSYS (libc
// falls back to clone). setns needs CAP_SYS_ADMIN over the namespace it
// joins, and the only cgroup namespaces the command can name are its own.

// cgroupNSBlock emits, for a filter whose accumulator holds the syscall
// number: clone3 → ENOSYS; clone or unshare with CLONE_NEWCGROUP in their
// first argument → EPERM, else allow (no other rule concerns them);
// anything else falls through with the number still loaded.
func cgroupNSBlock(clone, clone3, unshare uint32, stmt func(uint16, uint32), jump func(uint16, uint32, uint8, uint8)) {
	const (
		retAllow = unix.SECCOMP_RET_ALLOW
		retEPERM = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
		retNoSys = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
	)
	jump(bpfJeq, clone3, 0, 1)
	stmt(bpfRet, retNoSys)
	jump(bpfJeq, clone, 1, 0)
	jump(bpfJeq, unshare, 0, 4)
	stmt(bpfLdW, offArg0)
	jump(bpfJset, unix.CLONE_NEWCGROUP, 0, 1)
	stmt(bpfRet, retEPERM)
	stmt(bpfRet, retAllow)
}

// buildCgroupNSFilter is a full_access command's filter: it refuses a new
// cgroup namespace (natively, in the x32 ABI, and in the compat 32-bit
// one) and nothing else. No architecture is refused (a full_access command
// may run 32-bit programs), and no_new_privs is not set (sudo works).
func buildCgroupNSFilter(a seccompArch) []unix.SockFilter {
	var p []unix.SockFilter
	stmt := func(code uint16, k uint32) { p = append(p, unix.SockFilter{Code: code, K: k}) }
	jump := func(code uint16, k uint32, jt, jf uint8) {
		p = append(p, unix.SockFilter{Code: code, K: k, Jt: jt, Jf: jf})
	}
	const retAllow = unix.SECCOMP_RET_ALLOW
	stmt(bpfLdW, offArch)
	native := len(p)
	jump(bpfJeq, a.audit, 0, 0) // → the native block, patched below
	if a.compat.audit != 0 {
		compat := len(p)
		jump(bpfJeq, a.compat.audit, 0, 0) // past its block, patched below
		stmt(bpfLdW, offNr)
		cgroupNSBlock(a.compat.clone, a.compat.clone3, a.compat.unshare, stmt, jump)
		stmt(bpfRet, retAllow)
		p[compat].Jf = uint8(len(p) - compat - 1)
	}
	stmt(bpfRet, retAllow) // another architecture: none this kernel runs
	p[native].Jt = uint8(len(p) - native - 1)
	stmt(bpfLdW, offNr)
	if a.foreignBit != 0 {
		// x32 shares the native numbers of these three, with the bit set.
		stmt(unix.BPF_ALU|unix.BPF_AND|unix.BPF_K, ^a.foreignBit)
	}
	cgroupNSBlock(a.clone, a.clone3, a.unshare, stmt, jump)
	stmt(bpfRet, retAllow)
	return p
}

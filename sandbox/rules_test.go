package sandbox

import (
	"encoding/binary"
	"os"
	"slices"
	"testing"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// TestLandlockRulesFallback: without mounts, a carve-out is enforced by
// granting its siblings; symlinks are never granted; the directories on the
// way get only the carve-out's access.
func TestLandlockRulesFallback(t *testing.T) {
	ws := tempWorkspace(t)
	for _, d := range []string{ws + "/.git/hooks", ws + "/src/deep", ws + "/docs"} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(ws+"/README", nil, 0o644)
	os.Symlink("/etc", ws+"/etc-link")
	entries := []domain.FilesystemEntry{
		{Kind: domain.PathWorkspaceRoot, Path: ws, ResolvedPath: ws, Access: domain.AccessWrite},
		{Kind: domain.PathProtected, Path: ws + "/.git", ResolvedPath: ws + "/.git", Access: domain.AccessRead},
		{Kind: domain.PathProtected, Path: ws + "/.agents", ResolvedPath: ws + "/.agents", Access: domain.AccessRead},
		{Kind: domain.PathExplicit, Path: ws + "/src/deep", ResolvedPath: ws + "/src/deep", Access: domain.AccessDeny},
		{Kind: domain.PathSystemRoot, Path: "/usr", ResolvedPath: "/usr", Access: domain.AccessRead},
	}
	v := newFSView(&domain.FilesystemPolicy{Entries: entries})
	rules, err := v.landlockRules(nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]domain.Access{}
	for _, r := range rules {
		got[r.path] = r.access
	}
	want := map[string]domain.Access{
		ws + "/.git": domain.AccessRead, ws + "/README": domain.AccessWrite, ws + "/docs": domain.AccessWrite,
		ws + "/src/deep": "", ws + "/src": "", "/usr": domain.AccessRead, ws: "",
	}
	for p, a := range want {
		if got[p] != a {
			t.Errorf("%s: %q, want %q (rules %v)", p, got[p], a, rules)
		}
	}
	if _, ok := got[ws+"/etc-link"]; ok {
		t.Error("a symlink was granted")
	}
	// With .git mounted read-only, only the deny carve-out expands: .git
	// is then an ordinary sibling (the mount keeps it read-only).
	rules, _ = v.landlockRules(map[string]bool{ws + "/.git": true})
	if !slices.ContainsFunc(rules, func(r llRule) bool { return r.path == ws+"/docs" && r.access == domain.AccessWrite }) ||
		!slices.ContainsFunc(rules, func(r llRule) bool { return r.path == ws+"/.git" && r.access == domain.AccessWrite }) {
		t.Errorf("mounted carve-out: %v", rules)
	}
}

// runBPF interprets the classic BPF subset the filter uses.
func runBPF(t *testing.T, prog []unix.SockFilter, data []byte) uint32 {
	t.Helper()
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		ins := prog[pc]
		switch ins.Code {
		case bpfLdW:
			acc = binary.LittleEndian.Uint32(data[ins.K:])
		case bpfJeq:
			if acc == ins.K {
				pc += int(ins.Jt)
			} else {
				pc += int(ins.Jf)
			}
		case bpfJge:
			if acc >= ins.K {
				pc += int(ins.Jt)
			} else {
				pc += int(ins.Jf)
			}
		case bpfJset:
			if acc&ins.K != 0 {
				pc += int(ins.Jt)
			} else {
				pc += int(ins.Jf)
			}
		case bpfRet:
			return ins.K
		default:
			t.Fatalf("unknown opcode %#x", ins.Code)
		}
	}
	t.Fatal("fell off the program")
	return 0
}

func seccompData(nr, arch uint32, arg0 uint64) []byte {
	b := make([]byte, 64)
	binary.LittleEndian.PutUint32(b[0:], nr)
	binary.LittleEndian.PutUint32(b[4:], arch)
	binary.LittleEndian.PutUint64(b[16:], arg0)
	return b
}

func TestSeccompFilter(t *testing.T) {
	a, ok := nativeSeccompArch()
	if !ok {
		missingPrerequisite(t, "no seccomp filter for this architecture")
	}
	allow := uint32(unix.SECCOMP_RET_ALLOW)
	errno := func(e unix.Errno) uint32 { return unix.SECCOMP_RET_ERRNO | uint32(e) }
	strict := buildFilter(a, filterOpts{restrictSockets: true})
	open := buildFilter(a, filterOpts{})
	if len(strict) > 80 {
		t.Errorf("filter has %d instructions", len(strict))
	}
	cases := []struct {
		name string
		prog []unix.SockFilter
		data []byte
		want uint32
	}{
		{"getpid", strict, seccompData(uint32(unix.SYS_GETPID), a.audit, 0), allow},
		{"foreign arch", strict, seccompData(uint32(unix.SYS_GETPID), unix.AUDIT_ARCH_I386, 0), errno(unix.EPERM)},
		{"foreign arch open", open, seccompData(1, unix.AUDIT_ARCH_ARM, 0), errno(unix.EPERM)},
		{"io_uring_setup", open, seccompData(a.ioUring[0], a.audit, 0), errno(unix.ENOSYS)},
		{"io_uring_enter", strict, seccompData(a.ioUring[1], a.audit, 0), errno(unix.ENOSYS)},
		{"io_uring_register", strict, seccompData(a.ioUring[2], a.audit, 0), errno(unix.ENOSYS)},
		{"socket unix", strict, seccompData(a.socket, a.audit, unix.AF_UNIX), allow},
		{"socket inet", strict, seccompData(a.socket, a.audit, unix.AF_INET), errno(unix.EAFNOSUPPORT)},
		{"socket inet6", strict, seccompData(a.socket, a.audit, unix.AF_INET6), errno(unix.EAFNOSUPPORT)},
		{"socket netlink", strict, seccompData(a.socket, a.audit, unix.AF_NETLINK), errno(unix.EAFNOSUPPORT)},
		{"socket vsock", strict, seccompData(a.socket, a.audit, unix.AF_VSOCK), errno(unix.EAFNOSUPPORT)},
		{"socket high bits", strict, seccompData(a.socket, a.audit, 1<<32|unix.AF_INET), errno(unix.EAFNOSUPPORT)},
		{"socketpair unix", strict, seccompData(a.socketpair, a.audit, unix.AF_UNIX), allow},
		{"socketpair inet", strict, seccompData(a.socketpair, a.audit, unix.AF_INET), errno(unix.EAFNOSUPPORT)},
		{"keyctl", open, seccompData(a.keyring[0], a.audit, 0), errno(unix.EPERM)},
		{"add_key", strict, seccompData(a.keyring[1], a.audit, 0), errno(unix.EPERM)},
		{"request_key", open, seccompData(a.keyring[2], a.audit, 0), errno(unix.EPERM)},
		{"socket inet open", open, seccompData(a.socket, a.audit, unix.AF_INET), allow},
	}
	if a.foreignBit != 0 {
		cases = append(cases, struct {
			name string
			prog []unix.SockFilter
			data []byte
			want uint32
		}{"x32", open, seccompData(a.foreignBit|uint32(unix.SYS_GETPID), a.audit, 0), errno(unix.EPERM)})
	}
	// A set-user-ID or set-group-ID bit in a mode refuses the call; the
	// same call with a plain mode is allowed (the control).
	if len(a.modeArgs) < 5 || a.openat2 == 0 {
		t.Fatalf("the mode rules name %d syscalls, openat2 %d", len(a.modeArgs), a.openat2)
	}
	for _, m := range a.modeArgs {
		for _, c := range []struct {
			mode uint64
			want uint32
		}{{0o4755, errno(unix.EPERM)}, {0o2755, errno(unix.EPERM)}, {0o6000, errno(unix.EPERM)}, {0o755, allow}, {0o1777, allow}} {
			for _, prog := range [][]unix.SockFilter{strict, open} {
				d := seccompData(m.nr, a.audit, 0)
				binary.LittleEndian.PutUint64(d[16+8*m.arg:], c.mode)
				if got := runBPF(t, prog, d); got != c.want {
					t.Errorf("syscall %d, mode %o in argument %d: %#x, want %#x", m.nr, c.mode, m.arg, got, c.want)
				}
			}
		}
	}
	cases = append(cases, struct {
		name string
		prog []unix.SockFilter
		data []byte
		want uint32
	}{"openat2", open, seccompData(a.openat2, a.audit, 0), errno(unix.ENOSYS)})
	for _, c := range cases {
		if got := runBPF(t, c.prog, c.data); got != c.want {
			t.Errorf("%s: %#x, want %#x", c.name, got, c.want)
		}
	}
}

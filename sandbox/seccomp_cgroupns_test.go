package sandbox

import (
	"encoding/binary"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// runSeccomp runs a classic BPF program (the opcodes the filters use)
// over a seccomp_data of arch, nr and a first argument, as the kernel
// does, and returns the action.
func runSeccomp(t *testing.T, prog []unix.SockFilter, arch, nr uint32, arg0 uint64) uint32 {
	t.Helper()
	data := make([]byte, 64)
	binary.LittleEndian.PutUint32(data[0:], nr)
	binary.LittleEndian.PutUint32(data[4:], arch)
	binary.LittleEndian.PutUint64(data[16:], arg0)
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case bpfLdW:
			acc = binary.LittleEndian.Uint32(data[in.K:])
		case unix.BPF_ALU | unix.BPF_AND | unix.BPF_K:
			acc &= in.K
		case bpfJeq, bpfJge, bpfJset:
			ok := acc == in.K
			if in.Code == bpfJge {
				ok = acc >= in.K
			} else if in.Code == bpfJset {
				ok = acc&in.K != 0
			}
			if ok {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		case bpfRet:
			return in.K
		default:
			t.Fatalf("opcode %#x at %d", in.Code, pc)
		}
	}
	t.Fatal("the program ran off its end")
	return 0
}

// TestCgroupNSFilters: both filters refuse a new cgroup namespace (clone
// and unshare with CLONE_NEWCGROUP: EPERM; clone3, whose flags the filter
// cannot read: ENOSYS), the full_access one also in the compat and x32
// ABIs; controls: clone and unshare without the flag, and other calls of
// every architecture, are allowed by the full_access filter, and the
// restricted filter's other rules stand.
func TestCgroupNSFilters(t *testing.T) {
	a, ok := nativeSeccompArch()
	if !ok {
		t.Skip("no seccomp filter for this architecture")
	}
	const (
		allow = unix.SECCOMP_RET_ALLOW
		eperm = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
		nosys = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
	)
	full := buildCgroupNSFilter(a)
	restricted := buildFilter(a, filterOpts{restrictSockets: true})
	cg := uint64(unix.CLONE_NEWCGROUP)
	type call struct {
		name      string
		arch, nr  uint32
		arg0      uint64
		full, res uint32
	}
	calls := []call{
		{"clone NEWCGROUP", a.audit, a.clone, cg | unix.CLONE_NEWUSER, eperm, eperm},
		{"unshare NEWCGROUP", a.audit, a.unshare, cg, eperm, eperm},
		{"clone3", a.audit, a.clone3, 0, nosys, nosys},
		{"clone (a thread)", a.audit, a.clone, unix.CLONE_VM | unix.CLONE_THREAD, allow, allow},
		{"unshare -Urm", a.audit, a.unshare, unix.CLONE_NEWUSER | unix.CLONE_NEWNS, allow, allow},
		{"keyctl", a.audit, a.keyring[0], 0, allow, eperm},
		{"io_uring_setup", a.audit, a.ioUring[0], 0, allow, nosys},
	}
	if a.compat.audit != 0 {
		calls = append(calls,
			call{"compat clone NEWCGROUP", a.compat.audit, a.compat.clone, cg, eperm, eperm},
			call{"compat unshare NEWCGROUP", a.compat.audit, a.compat.unshare, cg, eperm, eperm},
			call{"compat clone3", a.compat.audit, a.compat.clone3, 0, nosys, eperm},
			call{"compat clone (a thread)", a.compat.audit, a.compat.clone, unix.CLONE_VM, allow, eperm},
			call{"compat unshare NEWNS", a.compat.audit, a.compat.unshare, unix.CLONE_NEWNS, allow, eperm})
	}
	if a.foreignBit != 0 {
		calls = append(calls,
			call{"x32 unshare NEWCGROUP", a.audit, a.foreignBit | a.unshare, cg, eperm, eperm},
			call{"x32 clone3", a.audit, a.foreignBit | a.clone3, 0, nosys, eperm},
			call{"x32 read", a.audit, a.foreignBit, 0, allow, eperm})
	}
	calls = append(calls, call{"another architecture", 0x1234, a.unshare, cg, allow, eperm})
	for _, c := range calls {
		if got := runSeccomp(t, full, c.arch, c.nr, c.arg0); got != c.full {
			t.Errorf("full_access filter, %s: %#x, want %#x", c.name, got, c.full)
		}
		if got := runSeccomp(t, restricted, c.arch, c.nr, c.arg0); got != c.res {
			t.Errorf("restricted filter, %s: %#x, want %#x", c.name, got, c.res)
		}
	}
}

// TestCgroupNSRefusedOnTheKernel: a full_access command of a server (its
// gateway secrets hidden, so in its namespaces) and a restricted one
// cannot make a cgroup namespace (unshare -C), while a user and mount
// namespace (unshare -Urm, full_access) and threads (pthread_create, which
// glibc makes with clone3 and, on ENOSYS, clone) still work.
func TestCgroupNSRefusedOnTheKernel(t *testing.T) {
	f := requireKernel(t, true)
	requireRoot(t)
	useStaticHelper(t) // the lean helper a root server starts for full_access (helperstatic.go)
	script := "unshare -Urm true && echo userns-ok; unshare -UrmC true && echo cgroupns-made; " +
		"/usr/bin/python3 -c 'import threading; t=threading.Thread(target=print, args=(\"thread-ok\",)); t.start(); t.join()'"
	check := func(mode, out string) {
		t.Helper()
		if strings.Contains(out, "cgroupns-made") {
			t.Errorf("%s: a command made a cgroup namespace of its own: %s", mode, out)
		}
		if mode == "full_access" && !strings.Contains(out, "userns-ok") {
			t.Errorf("%s: control: unshare -Urm failed: %s", mode, out)
		}
		if !strings.Contains(out, "thread-ok") {
			t.Errorf("%s: control: a thread could not be started: %s", mode, out)
		}
	}
	base := visibleWorkspace(t)
	data, ws := base+"/data", base+"/ws"
	for _, d := range []string{data, ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(data+"/token", []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, code, err := runFullAccessScript(f.Kernel, []string{data, data + "/token"}, ws, script+" 2>&1")
	if err != nil {
		t.Fatalf("full_access: exit %d %v\n%s", code, err, out)
	}
	check("full_access", out)

	p := newPlantFixture(t)
	r := sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, p.ws, machine().Kernel), script)
	check("auto_accept_edits", string(r.Stdout)+string(r.Stderr))
}

// Package entry is the turnstile binary's early entry: it runs `turnstile
// sandbox` in the lean helper program (cmd/turnstile-sandbox) before the
// server's packages are initialised.
//
// A Go program initialises every package it links before main runs, and
// the turnstile binary links the server (gRPC, protobuf, Prometheus,
// net/http): about 4 ms of a `turnstile sandbox` run, more than bubblewrap
// takes for a whole one. The linker orders package initialisation as a
// topological sort that, at each step, takes the package with the
// lexically first import path among those whose imports are all
// initialised (cmd/link, inittask.go). So what runs before this package is
// not only what it imports: while one of its imports waits, every ready
// package that sorts before that import runs first. This package imports
// nothing but unsafe, so it is ready at once and runs right after the
// runtime (and the few packages that sort before it and are ready too). It
// makes its system calls through syscall.RawSyscall6, linked by name:
// importing syscall let runtime/metrics, internal/godebug, encoding/base64,
// crypto and hash/crc32 initialise first (about 0.9 ms), and strings, os,
// strconv or encoding/hex, sorting later, let protobuf, gRPC, TOML, HTTP/2
// and the crypto packages too (about 1 ms more; TestEarlyEntryComesFirst in
// tests/ checks that no third-party package does). It is a module of its
// own only for that path (".invalid" is a reserved name: the go command
// never fetches it; go.mod replaces it with this directory).
//
// For `turnstile sandbox ARGS...` it execs the turnstile-sandbox program next
// to the binary, when it passes the checks the server applies to its helper
// (a regular executable file, not a symlink, owned by root or by this user,
// not writable by group or others), with this binary's fingerprint of its
// sandbox and domain code and a descriptor of this binary (see
// sandbox.LeanCLIArg): that program runs the command line only when it was
// built from the same code, and otherwise execs this binary back to run it
// here. For any other arguments, or when anything fails, init returns and
// the binary starts as usual.
package entry

import "unsafe" // go:linkname, and the system calls' arguments

// helperProgram is sandbox.HelperProgram, and leanCLIArg sandbox.LeanCLIArg.
const (
	helperProgram = "turnstile-sandbox"
	leanCLIArg    = "__turnstile-sandbox-cli"
)

// Flags of open(2) and statx(2), the same on every architecture this
// entry runs on (O_NOFOLLOW is not: sysNofollow). The syscall package,
// which names them, is not imported: see the package comment.
const (
	oPath       = 0o10000000
	oCloexec    = 0o2000000
	atFdcwd     = -100
	atEmptyPath = 0x1000
	statxMode   = 0x2
	statxNlink  = 0x4
	statxUID    = 0x8
	sIFMT       = 0o170000
	sIFREG      = 0o100000
)

// earlyFingerprint is turnstile/sandbox's earlyFingerprint, called before
// that package is initialised (it is written for that): the fingerprint, or
// "" when this build cannot compute it before initialisation.
//
//go:linkname earlyFingerprint turnstile/sandbox.earlyFingerprint
func earlyFingerprint() string

// runtimeArgs is the runtime's copy of the program's arguments, from which
// package os sets os.Args when it is initialised (the runtime provides it
// under this name for os).
//
//go:linkname runtimeArgs os.runtime_args
func runtimeArgs() []string

// runtimeEnvs is the runtime's copy of the environment, which it provides
// to package syscall under this name.
//
//go:linkname runtimeEnvs syscall.runtime_envs
func runtimeEnvs() []string

// rawSyscall6 is syscall.RawSyscall6 (the runtime's system call, which
// needs no package initialisation); its last result is a syscall.Errno.
//
//go:linkname rawSyscall6 syscall.RawSyscall6
func rawSyscall6(trap, a1, a2, a3, a4, a5, a6 uintptr) (r1, r2, errno uintptr)

// beforeExec and afterExec are what syscall.Exec calls around execve: the
// runtime holds off creating threads meanwhile.
//
//go:linkname beforeExec syscall.runtime_BeforeExec
func beforeExec()

//go:linkname afterExec syscall.runtime_AfterExec
func afterExec()

// Disabled, when set before init runs (only by a test, through the
// linker's -X flag), keeps the early entry from running.
var Disabled string

func init() {
	if Disabled != "" || !supported {
		return
	}
	args := runtimeArgs()
	if len(args) < 2 || args[1] != "sandbox" {
		return
	}
	lean(args)
}

// lean execs the lean program, or returns having changed nothing.
func lean(args []string) {
	exe, ok := readlink("/proc/self/exe")
	if !ok || len(exe) == 0 || exe[0] != '/' {
		return
	}
	dir := exe[:lastSlash(exe)+1]
	prog, ok := open(dir+helperProgram, oPath|sysNofollow|oCloexec)
	if !ok {
		return
	}
	self, ok := open("/proc/self/exe", oPath) // inherited
	if !ok {
		closeFD(prog)
		return
	}
	if fp := earlyFingerprint(); fp != "" && usable(prog) {
		argv := append([]string{helperProgram, leanCLIArg, fp, itoa(self)}, args[2:]...)
		execve("/proc/self/fd/"+itoa(prog), argv, runtimeEnvs())
	}
	closeFD(prog)
	closeFD(self)
}

// cstring is s as a NUL-terminated C string.
func cstring(s string) *byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return &b[0]
}

// cstrings is a NULL-terminated array of C strings.
func cstrings(ss []string) **byte {
	p := make([]*byte, len(ss)+1)
	for i, s := range ss {
		p[i] = cstring(s)
	}
	return &p[0]
}

func open(path string, flags int) (int, bool) {
	p := cstring(path)
	fd, _, errno := rawSyscall6(sysOpenat, atFdcwdArg(), uintptr(unsafe.Pointer(p)), uintptr(flags), 0, 0, 0)
	return int(fd), errno == 0
}

func closeFD(fd int) {
	rawSyscall6(sysClose, uintptr(fd), 0, 0, 0, 0, 0)
}

// execve returns only when it fails.
func execve(path string, argv, envv []string) {
	p, a, e := cstring(path), cstrings(argv), cstrings(envv)
	beforeExec()
	rawSyscall6(sysExecve, uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(a)), uintptr(unsafe.Pointer(e)), 0, 0, 0)
	afterExec()
}

// readlink is os.Readlink for a link of at most 4 KiB.
func readlink(path string) (string, bool) {
	buf := make([]byte, 4096)
	p := cstring(path)
	n, _, errno := rawSyscall6(sysReadlinkat, atFdcwdArg(), uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0, 0)
	if errno != 0 || int(n) >= len(buf) {
		return "", false
	}
	return string(buf[:n]), true
}

// usable applies the server's checks to the helper file (sandbox's
// helperFileProblem): a regular executable file owned by root or by this
// process's user, not writable by group or others, with no other hard link.
func usable(fd int) bool {
	// struct statx: stx_nlink at byte 16, stx_uid at 20, stx_mode (16
	// bits) at 28.
	var st [256 / 8]uint64
	empty := cstring("")
	_, _, errno := rawSyscall6(sysStatx, uintptr(fd), uintptr(unsafe.Pointer(empty)), atEmptyPath, statxMode|statxNlink|statxUID, uintptr(unsafe.Pointer(&st[0])), 0)
	if errno != 0 {
		return false
	}
	base := unsafe.Pointer(&st[0])
	nlink := *(*uint32)(unsafe.Add(base, 16))
	uid := *(*uint32)(unsafe.Add(base, 20))
	mode := uint32(*(*uint16)(unsafe.Add(base, 28)))
	euid, _, _ := rawSyscall6(sysGeteuid, 0, 0, 0, 0, 0, 0)
	return mode&sIFMT == sIFREG &&
		mode&0o111 != 0 &&
		(uid == 0 || uintptr(uid) == euid) &&
		mode&0o022 == 0 &&
		nlink == 1
}

// itoa is strconv.Itoa for a descriptor (not negative).
func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

func lastSlash(s string) int {
	i := len(s) - 1
	for i >= 0 && s[i] != '/' {
		i--
	}
	return i
}

// atFdcwdArg is AT_FDCWD as a system call's argument.
func atFdcwdArg() uintptr {
	fd := atFdcwd
	return uintptr(fd)
}

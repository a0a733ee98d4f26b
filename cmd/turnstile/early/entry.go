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
// package that sorts before that import runs first. This package's path
// sorts before every third-party path, and it imports only syscall (and
// unsafe): no strings, os, strconv or encoding/hex, each of
// which, sorting late, let protobuf, gRPC, TOML, HTTP/2 and the crypto
// packages initialise first (about 1 ms; TestEarlyEntryComesFirst in
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

import (
	"syscall"
	_ "unsafe" // go:linkname
)

// helperProgram is sandbox.HelperProgram, and leanCLIArg sandbox.LeanCLIArg.
const (
	helperProgram = "turnstile-sandbox"
	leanCLIArg    = "__turnstile-sandbox-cli"
)

// oPath is O_PATH (the syscall package does not name it); its value is the
// same on amd64, arm64 and the other architectures turnstile builds for.
const oPath = 0o10000000

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

// Disabled, when set before init runs (only by a test, through the
// linker's -X flag), keeps the early entry from running.
var Disabled string

func init() {
	if Disabled != "" {
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
	exe, err := readlink("/proc/self/exe")
	if err != nil || len(exe) == 0 || exe[0] != '/' {
		return
	}
	dir := exe[:lastSlash(exe)+1]
	prog, err := syscall.Open(dir+helperProgram, oPath|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	self, err := syscall.Open("/proc/self/exe", oPath, 0) // inherited
	if err != nil {
		syscall.Close(prog)
		return
	}
	if fp := earlyFingerprint(); fp != "" && usable(prog) {
		argv := append([]string{helperProgram, leanCLIArg, fp, itoa(self)}, args[2:]...)
		syscall.Exec("/proc/self/fd/"+itoa(prog), argv, syscall.Environ())
	}
	syscall.Close(prog)
	syscall.Close(self)
}

// readlink is os.Readlink for a link of at most 4 KiB.
func readlink(path string) (string, error) {
	buf := make([]byte, 4096)
	n, err := syscall.Readlink(path, buf)
	if err != nil {
		return "", err
	}
	if n >= len(buf) {
		return "", syscall.ENAMETOOLONG
	}
	return string(buf[:n]), nil
}

// usable applies the server's checks to the helper file (sandbox's
// helperFileProblem): a regular executable file owned by root or by this
// process's user, not writable by group or others.
func usable(fd int) bool {
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil {
		return false
	}
	return st.Mode&syscall.S_IFMT == syscall.S_IFREG &&
		st.Mode&0o111 != 0 &&
		(st.Uid == 0 || int(st.Uid) == syscall.Geteuid()) &&
		st.Mode&0o022 == 0
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

// Package entry is the turnstile binary's early entry: it runs `turnstile
// sandbox` in the lean helper program (cmd/turnstile-sandbox) before the
// server's packages are initialised.
//
// A Go program initialises every package it links before main runs, and
// the turnstile binary links the server (gRPC, protobuf, Prometheus,
// net/http): about 4 ms of a `turnstile sandbox` run, more than bubblewrap
// takes for a whole one. Go initialises packages in import-path order, each
// as soon as the packages it imports are initialised (the language
// specification, "Package initialization"); this package's path sorts
// before every third-party and most standard-library paths and it imports
// only packages the runtime initialises first, so its init runs after a
// few dozen small standard packages and before the server's. It is a module
// of its own only for that path (".invalid" is a reserved name: the go
// command never fetches it; go.mod replaces it with this directory).
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
	// Every package computeFingerprint uses, so that each is initialised
	// before it is called (an import is initialised before its importer);
	// github.com/cespare/xxhash/v2, which it uses too, has nothing to
	// initialise.
	_ "embed"
	_ "encoding/hex"
	_ "io"
	_ "io/fs"
	_ "runtime"
	"strconv"
	_ "strings"
	"syscall"
	_ "unsafe" // go:linkname

	"os"
)

// helperProgram is sandbox.HelperProgram, and leanCLIArg sandbox.LeanCLIArg.
const (
	helperProgram = "turnstile-sandbox"
	leanCLIArg    = "__turnstile-sandbox-cli"
)

// oPath is O_PATH (the syscall package does not name it); its value is the
// same on amd64, arm64 and the other architectures turnstile builds for.
const oPath = 0o10000000

// computeFingerprint is turnstile/sandbox's computeFingerprint, called
// before that package is initialised (it is written for that).
//
//go:linkname computeFingerprint turnstile/sandbox.computeFingerprint
func computeFingerprint() string

// Disabled, when set before init runs (only by a test, through the
// linker's -X flag), keeps the early entry from running.
var Disabled string

func init() {
	if len(os.Args) < 2 || os.Args[1] != "sandbox" || Disabled != "" {
		return
	}
	lean()
}

// lean execs the lean program, or returns having changed nothing.
func lean() {
	exe, err := os.Readlink("/proc/self/exe")
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
	if usable(prog) {
		argv := append([]string{helperProgram, leanCLIArg, computeFingerprint(), strconv.Itoa(self)}, os.Args[2:]...)
		syscall.Exec("/proc/self/fd/"+strconv.Itoa(prog), argv, os.Environ())
	}
	syscall.Close(prog)
	syscall.Close(self)
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
		(st.Uid == 0 || int(st.Uid) == os.Geteuid()) &&
		st.Mode&0o022 == 0
}

func lastSlash(s string) int {
	i := len(s) - 1
	for i >= 0 && s[i] != '/' {
		i--
	}
	return i
}

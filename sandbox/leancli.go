package sandbox

import (
	"os"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// LeanCLIArg makes the lean helper program run `turnstile sandbox` itself.
// The turnstile binary's early entry (cmd/turnstile/early) execs the lean
// helper with it before the server's packages are initialised:
//
//	turnstile-sandbox __turnstile-sandbox-cli FINGERPRINT FD ARGS...
//
// FINGERPRINT is the turnstile binary's (computeFingerprint) and FD a
// descriptor of the turnstile binary itself. The lean program runs the
// command line ARGS only when its own fingerprint is the same (it was built
// from the same sandbox and domain code); otherwise it execs the turnstile
// binary at FD with SlowCLIArg, which runs the same command line there, as
// it would have run without the early entry.
const LeanCLIArg = "__turnstile-sandbox-cli"

// SlowCLIArg is the hidden command of the turnstile binary that runs
// `turnstile sandbox` in the turnstile binary itself, without the early
// entry: the lean program's fall-back when it was built from other code.
const SlowCLIArg = "__turnstile-sandbox-slow"

// runLeanCLI is MaybeRunHelper's LeanCLIArg: it never returns.
func runLeanCLI(args []string) {
	if len(args) < 2 {
		os.Stderr.WriteString("turnstile sandbox: " + LeanCLIArg + " needs a fingerprint and a descriptor\n")
		os.Exit(2)
	}
	want, fdArg, rest := args[0], args[1], args[2:]
	fd, err := strconv.Atoi(fdArg)
	if err != nil || fd < 3 {
		os.Stderr.WriteString("turnstile sandbox: " + LeanCLIArg + ": bad descriptor " + strconv.Quote(fdArg) + "\n")
		os.Exit(2)
	}
	// No command inherits the turnstile binary's descriptor.
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil {
		os.Stderr.WriteString("turnstile sandbox: " + LeanCLIArg + ": descriptor " + fdArg + ": " + err.Error() + "\n")
		os.Exit(2)
	}
	exe := "/proc/self/fd/" + fdArg
	// The turnstile binary is one of this command's own programs: the
	// command must not rewrite it for the next run (withOwnPrograms keeps
	// it read-only where it lies in a writable root, as it keeps this
	// program).
	if real, err := os.Readlink(exe); err == nil {
		ProtectOwnFiles(real)
	}
	// The fingerprint (a hash of the embedded sources) is computed while
	// the command is parsed, probed and planned; Run is not reached before
	// it matched (leanCLIGate).
	same := make(chan bool, 1)
	go func() { same <- fingerprint() == want }()
	leanCLIGate = leanGate(same, func() {
		// Built from other enforcement code than the turnstile binary
		// that started it: run the command line there instead (slower,
		// never weaker), as when there is no lean program at all.
		argv := append([]string{"turnstile", SlowCLIArg}, rest...)
		err := unix.Exec(exe, argv, os.Environ())
		os.Stderr.WriteString("turnstile sandbox: cannot run the turnstile binary: " + err.Error() + "\n")
		os.Exit(ExitSandboxFailure)
	})
	useSelfAsHelper()
	os.Exit(SandboxCommand(rest, os.Stdout, os.Stderr))
}

// leanGate returns leanCLIGate for the comparison that same delivers (once):
// it returns when it was true and calls fallBack (which never returns)
// otherwise. It may be called more than once (SandboxCommand plans and runs
// a second time when the full probe finds other features than the quick
// one): each call returns the first call's answer, never waiting again on
// a channel that holds nothing more.
func leanGate(same <-chan bool, fallBack func()) func() {
	matched := sync.OnceValue(func() bool { return <-same })
	return func() {
		if !matched() {
			fallBack()
		}
	}
}

// leanCLIGate, when set, runs before SandboxCommand runs anything: in the
// lean program started with LeanCLIArg it returns once the fingerprints
// matched, and otherwise execs the turnstile binary (it never returns).
var leanCLIGate func()

// useSelfAsHelper makes this program its own helper: the lean program
// running `turnstile sandbox` starts itself (/proc/self/exe), with nothing
// to verify.
func useSelfAsHelper() {
	helperMu.Lock()
	defer helperMu.Unlock()
	helperCur = selfHelper("")
}

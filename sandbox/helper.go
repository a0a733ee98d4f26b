package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// HelperArg is the hidden first argument that makes the binary act as the
// sandbox helper (see MaybeRunHelper).
const HelperArg = "__turnstile-sandbox-helper"

// probeArg makes the binary act as the user-namespace probe child.
const probeArg = "__turnstile-sandbox-probe"

// Exit codes of the helper.
const (
	// ExitSandboxFailure: the sandbox could not be applied; the command
	// did not run.
	ExitSandboxFailure = 126
	// ExitCommandNotFound: argv[0] was not found in the planned PATH.
	ExitCommandNotFound = 127
)

// Descriptors the helper receives: the spec to read, and a close-on-exec
// status pipe that stays empty when the exec succeeds.
const (
	helperSpecFD   = 3
	helperStatusFD = 4
)

// helperMessage is what Run sends the helper (see codec.go).
type helperMessage struct {
	Argv []string    `json:"argv"`
	Env  []string    `json:"env"`
	Cwd  string      `json:"cwd"`
	Spec SandboxSpec `json:"spec"`
}

// helperWired records that MaybeRunHelper ran, so that Run and Probe never
// re-execute a binary that would not act as the helper (it would run its
// ordinary main with the helper's arguments).
var helperWired atomic.Bool

// MaybeRunHelper must be the first thing the turnstile binary's main (and a
// test binary's TestMain) calls. When os.Args[1] is HelperArg it becomes the
// sandbox helper: it reads its plan from descriptor 3, applies mounts,
// capabilities, no_new_privs, Landlock and seccomp, and execs the command;
// it never returns (exit 126 on any failure, the reason on stderr). For any
// other arguments it returns at once.
func MaybeRunHelper() {
	helperWired.Store(true)
	if len(os.Args) < 2 {
		return
	}
	switch os.Args[1] {
	case HelperArg, helperCheckedArg:
		// Every per-thread restriction (capabilities, no_new_privs,
		// Landlock below ABI 8) is applied to this OS thread, which then
		// execs: the other runtime threads die with execve.
		runtime.LockOSThread()
		if os.Args[1] == helperCheckedArg {
			// Refuse, having done nothing, unless built from the same
			// code as the caller (helpercheck.go).
			checkedHelperMain(strings.Join(os.Args[2:], " "))
		}
		err := runHelper()
		helperFail(err)
	case probeArg:
		runtime.LockOSThread()
		os.Exit(runProbeChild(os.Args[2:]))
	case fingerprintArg:
		os.Stdout.WriteString(fingerprint() + "\n")
		os.Exit(0)
	case LeanCLIArg:
		runLeanCLI(os.Args[2:])
	case reaperArg:
		os.Exit(runKillGroupReaper(os.Args[2:]))
	}
}

// helperFail reports err on stderr and on the status pipe and exits 126
// (127, without the status pipe, for a command that was not found).
func helperFail(err error) {
	msg := "turnstile sandbox: " + err.Error() + "\n"
	os.Stderr.WriteString(msg)
	var nf *notFoundError
	if errors.As(err, &nf) {
		// Not a sandbox failure: the status pipe stays empty.
		os.Exit(ExitCommandNotFound)
	}
	unix.Write(helperStatusFD, []byte(msg))
	os.Exit(ExitSandboxFailure)
}

type notFoundError struct{ name string }

func (e *notFoundError) Error() string { return e.name + ": command not found" }

// runHelper returns only on failure.
func runHelper() error {
	if isSpare() {
		warmHeap(helperSpecFD) // while it waits for its plan (warmheap.go)
	}
	b, fds, err := readPlan(helperSpecFD)
	if err != nil {
		return err
	}
	msg, err := decodeMessage(b)
	if err != nil {
		return fmt.Errorf("decode plan: %w", err)
	}
	if err := acceptPlanFDs(&msg.Spec, fds); err != nil {
		return err
	}
	if len(msg.Argv) == 0 {
		return errors.New("plan has no argv")
	}
	if msg.Spec.FullAccess {
		return runFullAccess(msg)
	}
	sp := &msg.Spec
	cwd, _, ok, err := canonicalPath(domain.CleanPath(msg.Cwd))
	if err != nil || !ok {
		return fmt.Errorf("canonicalise cwd %q: %v", msg.Cwd, err)
	}
	if cwd != domain.CleanPath(msg.Cwd) {
		// The plan's cwd is canonical; a link swapped in since would
		// take the command elsewhere than where it was decided.
		return fmt.Errorf("the working directory %s now resolves to %s", msg.Cwd, cwd)
	}
	rules, err := helperFSRules(sp)
	if err != nil {
		return err
	}
	path, err := lookPath(msg.Argv[0], envValue(msg.Env, "PATH"), cwd)
	if err != nil {
		return err
	}
	rfd := -1
	if sp.LandlockABI > 0 {
		if rfd, err = buildRuleset(llConfig{abi: sp.LandlockABI, restrictFS: sp.RestrictFilesystem, rules: rules,
			denyTCP: sp.RestrictNetwork, connectPort: sp.ProxyPort, scope: landlockScope(sp)}); err != nil {
			return err
		}
	} else if sp.RestrictFilesystem {
		return errors.New("the filesystem must be restricted but no Landlock ABI was planned")
	}
	var prog []unix.SockFilter
	if sp.Seccomp {
		arch, ok := nativeSeccompArch()
		if !ok {
			return errors.New("seccomp was planned but this architecture has no filter")
		}
		prog = buildFilter(arch, filterOpts{restrictSockets: sp.RestrictNetwork, allowInetStream: sp.RestrictNetwork && sp.ProxyPort > 0})
	} else if sp.RestrictNetwork && sp.LandlockABI < 4 {
		return errors.New("the network must be restricted but neither seccomp nor Landlock TCP rules are available")
	}
	if err := chdirCloseOnExec(cwd); err != nil {
		return err
	}
	if sp.MaxTasks > 0 {
		// Before the switch: a uid already past it then fails the exec
		// (EAGAIN) instead of running (tasklimit.go).
		lim := unix.Rlimit{Cur: uint64(sp.MaxTasks), Max: uint64(sp.MaxTasks)}
		if err := unix.Setrlimit(unix.RLIMIT_NPROC, &lim); err != nil {
			return fmt.Errorf("setrlimit RLIMIT_NPROC: %w", err)
		}
	}
	if err := dropPrivileges(sp.UID, sp.GID); err != nil {
		return err
	}
	if err := setNoNewPrivs(); err != nil {
		return err
	}
	if err := dieWithParent(); err != nil {
		return err
	}
	if rfd >= 0 {
		if err := restrictSelf(rfd); err != nil {
			return err
		}
		unix.Close(rfd)
	}
	if prog != nil {
		if err := installFilter(prog); err != nil {
			return err
		}
	}
	// In a PID namespace the command is its pid 1: when it exits, or when
	// Run kills it (a SIGKILL from the parent namespace always reaches an
	// init), the kernel kills every other process of the namespace, setsid
	// daemons and re-parented orphans included. Orphans re-parent to the
	// command; their zombies go with the namespace. Inside the namespace,
	// signals reach the command only for the handlers it installs (init
	// semantics): the price of needing no resident reaper.
	err = unix.Exec(path, msg.Argv, msg.Env)
	return fmt.Errorf("exec %s: %w", path, err)
}

// landlockScope is what the ruleset scopes (ABI 6): signals always;
// abstract unix sockets unless the snapshot allows unix sockets.
func landlockScope(sp *SandboxSpec) uint64 {
	if sp.AllowUnixSockets {
		return unix.LANDLOCK_SCOPE_SIGNAL
	}
	return llScopedAll
}

// helperFSRules canonicalises the snapshot's entries (and the temp dir),
// refuses a protected path that is a symlink, and, in the namespaces,
// builds the root view (rootview.go) and then mounts the read-only
// carve-outs on top of the re-bound writable roots. It returns the Landlock
// rules (none when the filesystem is not restricted).
func helperFSRules(sp *SandboxSpec) ([]llRule, error) {
	fp := domain.FilesystemPolicy{Entries: sp.Entries}
	if sp.TmpDir != "" {
		fp.Entries = append(fp.Entries, domain.FilesystemEntry{Kind: domain.PathExplicit, Path: sp.TmpDir,
			ResolvedPath: domain.CleanPath(sp.TmpDir), Access: domain.AccessWrite, Provenance: domain.ProvenanceRuntime})
	}
	v := buildFSView(&fp, sp.RestrictFilesystem && !sp.Walked)
	mounted := map[string]bool{}
	if sp.InNamespace {
		v.fixProtectedLinks() // before the root view hides what they pass
		if err := buildRootView(v, sp); err != nil {
			return nil, err
		}
		if sp.RestrictFilesystem {
			ops, err := v.mountPlan()
			if err != nil {
				return nil, err
			}
			if mounted, err = mountCarveOuts(ops); err != nil {
				return nil, err
			}
		}
		if holdsWholeTree(v, sp) {
			if err := hardenWholeTree(sp); err != nil {
				return nil, err
			}
		}
	} else if holdsWholeTree(v, sp) && len(wholeTreeSecrets(sp)) > 0 {
		return nil, errors.New("the command would hold the whole tree outside the namespaces that hide the gateway's secrets: nothing was run")
	}
	if !sp.RestrictFilesystem {
		return nil, nil
	}
	return v.landlockRules(mounted)
}

// envValue returns the value of name in env ("NAME=value" entries).
func envValue(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}

// lookPath finds name like execvp would with the planned PATH (not the
// server's). A name with a slash is taken relative to cwd.
func lookPath(name, pathEnv, cwd string) (string, error) {
	if strings.Contains(name, "/") {
		if !filepath.IsAbs(name) {
			name = filepath.Join(cwd, name)
		}
		return name, nil
	}
	for dir := range strings.SplitSeq(pathEnv, ":") {
		if dir == "" {
			dir = "."
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(cwd, dir)
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", &notFoundError{name: name}
}

// chdirCloseOnExec, the helper's last steps before exec, changes to cwd and
// marks every descriptor close-on-exec: the spec and status descriptors and
// all above them.
func chdirCloseOnExec(cwd string) error {
	if err := unix.Chdir(cwd); err != nil {
		return fmt.Errorf("chdir %s: %w", cwd, err)
	}
	// chdir follows links: the directory reached must be the one planned.
	if wd, err := unix.Getwd(); err != nil || wd != cwd {
		return fmt.Errorf("the working directory %s led to %q (%v)", cwd, wd, err)
	}
	if err := unix.CloseRange(helperStatusFD+1, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != nil {
		return fmt.Errorf("close_range: %w", err)
	}
	for _, fd := range []int{helperSpecFD, helperStatusFD} {
		unix.CloseOnExec(fd)
	}
	return nil
}

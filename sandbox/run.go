package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// MaxOutputBytes caps each of Result.Stdout and Result.Stderr.
const MaxOutputBytes = 1 << 20

// CodeSandboxFailed is the Refusal code Run returns when the helper could
// not apply the sandbox (the command did not run; exit code 126).
const CodeSandboxFailed = "sandbox_failed"

// drainGrace bounds how long Run waits for output pipes after the process
// group was killed (a process that escaped the group may still hold them).
const drainGrace = 2 * time.Second

// Result is the outcome of one command.
type Result struct {
	// ExitCode is the command's exit status; 128+N when killed by signal
	// N; 126 when the sandbox could not be applied; 127 when the command
	// was not found.
	ExitCode int
	// Stdout and Stderr hold at most MaxOutputBytes each.
	Stdout, Stderr                   []byte
	StdoutTruncated, StderrTruncated bool
	// DurationMs is the wall time from start to exit.
	DurationMs int64
	// TimedOut is true when the plan's timeout killed the command.
	TimedOut bool
	// SandboxError is the helper's reason when the sandbox could not be
	// applied (and the command did not run).
	SandboxError string
	// Quarantined are the repositories the command left in a writable root
	// with a config or hooks that are not trusted, their HEAD renamed
	// (plantcheck.go); CheckLimits is what that check could not cover.
	Quarantined []Quarantine
	CheckLimits []string
}

// Run executes a plan and waits for it. The command runs in its own session
// and process group; when it exits, when the timeout expires or when ctx is
// cancelled, the whole group is killed with SIGKILL (grandchildren
// included). A sandboxed plan runs through the helper (the verified lean
// HelperProgram, or the current binary re-executed with HelperArg), in new
// mount and PID namespaces (and a user namespace unless the server is root;
// a full_access plan always gets one, fullaccess.go) whenever the probe found
// them usable: killing the helper, which becomes
// the command, then kills every process of the namespace. The error is nil when the command ran
// (whatever its exit code); a *Refusal with CodeSandboxFailed (and a Result
// with exit code 126) when the sandbox could not be applied; another error
// when nothing could be started. The names held for the command and its
// isolated temp dir are released just after Run returns, on another
// goroutine; WaitCleanup waits for that.
func Run(ctx context.Context, plan *Plan) (*Result, error) {
	if plan == nil || len(plan.Argv) == 0 {
		if plan != nil {
			plan.rootLock.Release()
		}
		return nil, refuse(CodeMissingArgv, "", "no plan to run")
	}
	if plan.Sandboxed && !helperWired.Load() {
		plan.rootLock.Release()
		return nil, errors.New("sandbox: MaybeRunHelper was not called at program start: the helper cannot be re-executed")
	}
	spec := plan.Sandbox
	lock := plan.rootLock
	if lock == nil && plan.Sandboxed && spec.RestrictFilesystem {
		// Planned without the lock: what the plan's view saw may be
		// another command's, not yet checked. Wait for the roots, then
		// look again.
		var err error
		if lock, err = lockRoots(ctx, writableRoots(spec.Entries)); err != nil {
			return nil, fmt.Errorf("sandbox: waiting for another command over the same writable roots: %w", err)
		}
		spec.view = nil
	}
	return runLocked(ctx, plan, spec, lock)
}

// runLocked is Run with the roots locked (lock, released once the held names
// are; nil: no lock needed), spec the plan's spec.
func runLocked(ctx context.Context, plan *Plan, spec SandboxSpec, lock *RootLock) (*Result, error) {
	env := plan.Env
	if plan.Sandboxed {
		// A server's spare helper for the next command (spare.go), once
		// this one has ended.
		defer refillSpare(&spec)
	}
	var release func() // the names held for the command (prepareSpec)
	defer func() {
		if release != nil || lock != nil {
			// Once the command has ended (WaitCleanup); the roots go
			// only after the names held in them.
			afterRun(func() {
				if release != nil {
					release()
				}
				lock.Release()
			})
		}
		if spec.plant != nil {
			spec.plant.close()
		}
	}()
	if plan.IsolatedTmp {
		// Made 0700 (MkdirTemp's mode, which a umask only narrows): a
		// chmod by its name after, which follows a link, let a command
		// that could replace the name make root chmod any path.
		dir, err := os.MkdirTemp("", tmpDirPrefix(os.Getpid())) // swept if this process is killed outright (tmpsweep.go)
		if err != nil {
			return nil, fmt.Errorf("sandbox: isolated temp dir: %w", err)
		}
		defer afterRun(func() {
			removeTreeAt(dir)
			// And, once a process, what killed ones left (`turnstile
			// sandbox` has no reaper and no start of a server).
			tmpSweepOnce.Do(func() { SweepDeadTmpDirs() })
		})
		env = withEnv(env, map[string]string{"TMPDIR": dir, "TEMP": dir, "TMP": dir})
		spec.TmpDir = dir
	}
	if plan.Sandboxed {
		// Whenever the probe found the namespaces usable, every sandboxed
		// command gets them: the root view, the PID namespace and (as
		// root) the unprivileged uid are what the snapshot claims.
		spec.InNamespace = spec.UserNamespaces
		if spec.InNamespace && spec.RestrictFilesystem && os.Geteuid() == 0 && !slashWritable(&spec) {
			spec.UID, spec.GID = SandboxUID, SandboxUID
		}
		if spec.InNamespace {
			spec.MaxTasks = commandTaskLimit()
		}
		if spec.ProxyPort > 0 && (!spec.InNamespace || plan.egress == nil) {
			msg := "the egress proxy needs the sandbox's namespaces and an attached proxy"
			return &Result{ExitCode: ExitSandboxFailure, SandboxError: msg}, &Refusal{Code: CodeSandboxFailed, Message: msg}
		}
	} else {
		path, err := lookPath(plan.Argv[0], envValue(env, "PATH"), plan.Cwd)
		if err != nil {
			return &Result{ExitCode: ExitCommandNotFound, Stderr: []byte(err.Error() + "\n")}, nil
		}
		plan = &Plan{Argv: plan.Argv, Cwd: plan.Cwd, Timeout: plan.Timeout, Stdin: plan.Stdin, resolvedPath: path, registerKill: plan.registerKill}
	}
	// nil: the process-group kill and (sandboxed) the PID namespace's end
	// are all there is (killgroup.go).
	kg, _ := newKillGroup()
	defer func() {
		if kg != nil {
			kg.release()
		}
	}()
	stdout, stderr := &cappedBuffer{limit: MaxOutputBytes}, &cappedBuffer{limit: MaxOutputBytes}
	checkSince := coarseNow()
	// An earlier command over the roots (or below them) whose check never
	// ran is checked before this one starts (catchupfirst.go); its start
	// stays recorded until this one's check has run (rootlock.go).
	markSince := checkSince
	if s := lock.Since(); !s.IsZero() && s.Before(checkSince) {
		markSince = s
	}
	spec.catchUp = catchUpFirst{since: lock.Since(), below: lock.Below()}
	lock.MarkStarted(markSince)
	plan.stop = nil
	if plan.registerKill != nil {
		stop := newOwnerStop()
		plan.stop = stop
		defer stop.close() // after the unregister below
		defer plan.registerKill(stop.kill, stop.wait)()
	}
	start := time.Now()
	pr, err := startProcess(plan, env, &spec, kg, stdout, stderr, &release)
	if spec.plant == nil && lock.Since().IsZero() && len(lock.Below()) == 0 {
		// No check to run (or none could be prepared: nothing ran). An
		// earlier unchecked start stays marked for a command that checks.
		lock.Checked()
	}
	var perr *prepareError
	if errors.As(err, &perr) {
		msg := perr.err.Error()
		return &Result{ExitCode: ExitSandboxFailure, SandboxError: msg}, &Refusal{Code: CodeSandboxFailed, Message: msg}
	}
	if err != nil && kg != nil {
		// clone3 into the cgroup was refused: start without it.
		kg.release()
		kg = nil
		start = time.Now()
		pr, err = startProcess(plan, env, &spec, nil, stdout, stderr, &release)
	}
	if err == nil {
		kg = pr.kg // an early helper's own (startProcess released ours)
	}
	if err != nil && spec.InNamespace {
		// No silent fallback: without the namespaces the snapshot's claims
		// (read-only view, PID namespace, unprivileged uid) would not hold.
		msg := "cannot start the helper in its namespaces: " + err.Error()
		return &Result{ExitCode: ExitSandboxFailure, SandboxError: msg, Stderr: []byte("turnstile sandbox: " + msg + "\n")},
			&Refusal{Code: CodeSandboxFailed, Message: msg}
	}
	if err != nil {
		return nil, fmt.Errorf("sandbox: start: %w", err)
	}
	defer pr.close()
	if pr.stopEgress != nil {
		defer pr.stopEgress()
	}
	cmd, pgid := pr.cmd, pr.cmd.Process.Pid
	killAll := func() {
		unix.Kill(-pgid, unix.SIGKILL)
		if kg != nil {
			kg.kill()
		}
	}
	runCtx, cancel := context.WithTimeout(ctx, plan.Timeout)
	defer cancel()
	stop := make(chan struct{})
	killed := make(chan bool, 1)
	go func() {
		select {
		case <-runCtx.Done():
			killAll()
			killed <- true
		case <-stop:
			killed <- false
		}
	}()
	// Wait for the exit without reaping: while the leader is a zombie its
	// pid (the group id) cannot be reused, so killing the group below can
	// only reach what the command left behind.
	waitExited(pgid)
	stoppedByOwner := plan.stop.exited() // the leader is a zombie: its group id is not used again yet
	dur := time.Since(start)
	close(stop)
	wasKilled := <-killed || stoppedByOwner
	killAll()
	waitErr := cmd.Wait()
	pr.drain(drainGrace)
	var quarantined []Quarantine
	var checkLimits []string
	if spec.plant != nil {
		// Every process the command started is dead: what it left in its
		// writable roots can no longer change under the check.
		// (What killed commands left was checked before it started.)
		quarantined, checkLimits = spec.plant.run(checkSince)
		quarantined = append(slices.Clone(spec.catchUp.caught), quarantined...)
		checkLimits = append(slices.Clone(spec.catchUp.limits), checkLimits...)
		lock.Checked()
	}
	res := &Result{
		Quarantined:     quarantined,
		CheckLimits:     checkLimits,
		ExitCode:        exitCode(cmd.ProcessState, waitErr),
		Stdout:          stdout.buf,
		Stderr:          stderr.buf,
		StdoutTruncated: stdout.truncated,
		StderrTruncated: stderr.truncated,
		DurationMs:      dur.Milliseconds(),
		TimedOut:        wasKilled && errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil,
	}
	if pr.statusR != nil {
		b, _ := io.ReadAll(io.LimitReader(pr.statusR, 64<<10))
		if pr.prog.lean && !pr.prog.verified {
			var refused bool
			if b, refused = settleChecked(pr.prog, b, wasKilled); refused {
				// It ran nothing; the running binary runs the plan,
				// under the same lock (released by the run below),
				// having looked again (this run's holds go first).
				l := lock
				lock = nil
				if release != nil {
					release()
					release = nil
				}
				sp := plan.Sandbox
				sp.view = nil
				return runLocked(ctx, plan, sp, l)
			}
		}
		if len(b) > 0 {
			res.SandboxError = strings.TrimSpace(string(b))
			return res, &Refusal{Code: CodeSandboxFailed, Message: res.SandboxError}
		}
	}
	return res, nil
}

// slashWritable reports a write grant of "/" itself: the whole tree is then
// the command's, and there is nothing to take root's access away from.
func slashWritable(sp *SandboxSpec) bool {
	for _, e := range sp.Entries {
		if e.Access == domain.AccessWrite && (e.ResolvedPath == "/" || (e.ResolvedPath == "" && e.Path == "/")) {
			return true
		}
	}
	return false
}

func exitCode(ps *os.ProcessState, err error) int {
	if ps == nil {
		if err != nil {
			return -1
		}
		return 0
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// withEnv returns env with the given names set (replacing earlier values).
func withEnv(env []string, set map[string]string) []string {
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; !ok {
			out = append(out, kv)
		}
	}
	for _, k := range []string{"TMPDIR", "TEMP", "TMP"} {
		if v, ok := set[k]; ok {
			out = append(out, k+"="+v)
		}
	}
	return out
}

// cappedBuffer keeps the first limit bytes written and counts the rest.
type cappedBuffer struct {
	limit     int
	buf       []byte
	truncated bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.limit - len(b.buf); room > 0 {
		if len(p) > room {
			b.buf = append(b.buf, p[:room]...)
			b.truncated = true
		} else {
			b.buf = append(b.buf, p...)
		}
	} else if len(p) > 0 {
		b.truncated = true
	}
	return len(p), nil
}

// waitExited blocks until the process exits, leaving it unreaped.
func waitExited(pid int) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return
		}
	}
}

// newNamespaceAttr builds the helper's SysProcAttr in a namespace (a
// variable so that a test can make namespace creation fail).
var newNamespaceAttr = namespaceAttr

// process is a started command with its output pipes and, for the helper,
// its status pipe.
type process struct {
	cmd        *exec.Cmd
	outR, errR *os.File
	statusR    *os.File
	copying    sync.WaitGroup
	// stopEgress stops serving the egress proxy in the command's network
	// namespace (nil without one).
	stopEgress func()
	// prog is the helper program started (zero without one).
	prog helperProg
	// kg is the cgroup the process was started in (nil: none).
	kg *killGroup
}

// startProcess starts the plan's command (directly, or through the helper
// with spec; in the kill group kg when not nil), copying its output into stdout and stderr. On error nothing
// is left running or open. A helper's plan is completed (prepareSpec, which
// sets *release) while the helper starts: a *prepareError when that fails.
func startProcess(plan *Plan, env []string, spec *SandboxSpec, kg *killGroup, stdout, stderr io.Writer, release *func()) (*process, error) {
	cmd := &exec.Cmd{Env: env, Dir: plan.Cwd, SysProcAttr: &syscall.SysProcAttr{Setsid: true}, Stdin: plan.Stdin, WaitDelay: drainGrace}
	var opened []*os.File
	closeAll := func() {
		for _, f := range opened {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		if r, w, err = os.Pipe(); err == nil {
			opened = append(opened, r, w)
		}
		return r, w, err
	}
	p := &process{cmd: cmd, kg: kg}
	var specW *os.File
	var prog helperProg
	if plan.Sandboxed {
		if spec.InNamespace {
			cmd.SysProcAttr = helperAttr(spec)
		}
		prog = spawnHelper()
		if prog.lean && !prog.verified && plan.Stdin != nil {
			// A refused helper may have read some of the input before Run
			// retries through the running binary: verify it first.
			prog = *currentHelper()
		}
		if spec.FullAccess {
			// Checked on every spawn: the helper may have fallen back to
			// the running binary since the plan (helperstatic.go).
			if why := fullAccessHelperProblem(prog); why != "" {
				return nil, &prepareError{errors.New("nothing was run: " + why)}
			}
		}
		if spec.RestrictFilesystem {
			if why := ownFileLinked(spec.Entries, prog); why != "" {
				return nil, &prepareError{errors.New("nothing was run: " + why)}
			}
			spec.Entries = withOwnPrograms(spec.Entries, prog)
			spec.Entries = withWorkspaceFiles(spec.Entries)
		}
		if e := takeEarlyHelper(); e != nil {
			if e.fits(plan, spec, prog, cmd.SysProcAttr, kg) {
				if kg != nil {
					kg.release() // the early helper runs in its own
				}
				return e.finish(plan, env, spec, stdout, stderr, release)
			}
			if e.dir == "" {
				keepSpare(e) // for the next command, while fresh (spare.go)
			} else {
				e.abandon()
			}
		}
		cmd.Path, cmd.Args, cmd.Env = prog.path, helperArgs(prog), helperEnv()
		specR, w, err := specChannel()
		if err != nil {
			closeAll()
			return nil, err
		}
		opened = append(opened, specR, w)
		statusR, statusW, err := pipe()
		if err != nil {
			closeAll()
			return nil, err
		}
		specW, p.statusR = w, statusR
		cmd.ExtraFiles = []*os.File{specR, statusW}
		if spec.UID != 0 {
			spec.Idmaps = writableOwners(spec)
			fs, err := idmapFiles(spec.Idmaps)
			if err != nil {
				closeAll()
				return nil, err
			}
			cmd.ExtraFiles = append(cmd.ExtraFiles, fs...) // cached: not closed
		}
		if spec.FullAccess {
			fs, err := heldSecretFiles(spec.Entries)
			if err != nil {
				closeAll()
				return nil, err
			}
			spec.HeldSecrets = len(fs)
			cmd.ExtraFiles = append(cmd.ExtraFiles, fs...) // held: not closed
		}
	} else {
		cmd.Path, cmd.Args = plan.resolvedPath, plan.Argv
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return nil, err
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	if kg != nil {
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, kg.fd
	}
	if err := startMapped(cmd.SysProcAttr, cmd.Start); err != nil {
		closeAll()
		return nil, err
	}
	// Keep only the parent's ends.
	outW.Close()
	errW.Close()
	for _, f := range cmd.ExtraFiles[:min(len(cmd.ExtraFiles), 2)] {
		f.Close() // the spec channel's and the status pipe's child ends
	}
	p.outR, p.errR = outR, errR
	if !plan.Sandboxed {
		// Unsandboxed, the command runs from its start: stopped before
		// this, it is killed now, having run that long.
		plan.stop.started(cmd.Process.Pid, kg)
		p.copyOutput(stdout, stderr)
		return p, nil
	}
	p.prog = prog
	return p.sendPlan(plan, env, spec, specW, nil, stdout, stderr, release)
}

// helperEnv is the helper's environment: this process's home and XDG
// config directory only, which its view expands a git config's "~/" paths
// and finds the person's global git config by, as this process's does
// (configRefs, globalGitConfigs). Nothing else: the command's environment
// comes in the plan.
func helperEnv() []string {
	env := []string{}
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME"} {
		if v := os.Getenv(k); strings.HasPrefix(v, "/") {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// helperAttr is the helper's SysProcAttr for a spec in its namespaces.
func helperAttr(spec *SandboxSpec) *syscall.SysProcAttr {
	var attr *syscall.SysProcAttr
	if spec.FullAccess {
		attr = fullAccessAttr()
	} else {
		attr = newNamespaceAttr()
	}
	attr.Setsid = true
	if spec.ProxyPort > 0 || spec.RestrictNetwork && !spec.AllowUnixSockets {
		// Abstract unix sockets are per network namespace (IP sockets
		// are refused by seccomp anyway). Landlock's scoping (ABI 6)
		// stops the command connecting to the host's, not binding a
		// name of the host's namespace that a host client then reaches
		// (an X display's that is not up, a restarting daemon's): a
		// namespace of its own keeps both sides apart. It costs about
		// 0.7 ms of CPU a spawn here (unshare -m against unshare -m -n).
		attr.Cloneflags |= syscall.CLONE_NEWNET
	}
	return attr
}

// copyOutput copies the command's output into stdout and stderr.
func (p *process) copyOutput(stdout, stderr io.Writer) {
	p.copying.Add(2)
	go func() { defer p.copying.Done(); io.Copy(stdout, p.outR) }()
	go func() { defer p.copying.Done(); io.Copy(stderr, p.errR) }()
}

// sendPlan completes a started helper's plan (prepareSpec, which sets
// *release, while the helper starts), attaches the egress proxy, starts
// copying the output and sends the helper its plan on specW with fds (the
// idmap user namespaces of a helper started before its plan; nil
// otherwise). On error the helper is ended, having run nothing.
func (p *process) sendPlan(plan *Plan, env []string, spec *SandboxSpec, specW *os.File, fds []*os.File, stdout, stderr io.Writer, release *func()) (*process, error) {
	cmd := p.cmd
	// While the helper starts (its runtime, its namespaces), the names it
	// must protect are held: it reads them with its plan.
	var err error
	if *release, err = prepareSpec(spec); err != nil {
		abandonHelper(cmd, specW)
		for _, f := range []*os.File{p.outR, p.errR, p.statusR} {
			f.Close()
		}
		p.releaseGroup()
		return nil, &prepareError{err}
	}
	if spec.ProxyPort > 0 {
		// The helper waits for its plan: the listener exists in its
		// network namespace before the command can run.
		stop, err := attachEgress(plan.egress, cmd.Process.Pid, spec.ProxyPort)
		if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			p.outR.Close()
			p.errR.Close()
			specW.Close()
			p.statusR.Close()
			p.releaseGroup()
			return nil, err
		}
		p.stopEgress = stop
	}
	p.copyOutput(stdout, stderr)
	// The helper waits for its plan: a command stopped by now is killed
	// before it runs anything.
	plan.stop.started(cmd.Process.Pid, p.kg)
	msg := encodeMessage(&helperMessage{Argv: plan.Argv, Env: env, Cwd: plan.Cwd, Spec: *spec})
	go writePlan(specW, msg, fds)
	return p, nil
}

// drain waits for the output copies to finish, at most grace (a process
// that escaped the group kill may hold the pipes open).
func (p *process) drain(grace time.Duration) {
	done := make(chan struct{})
	go func() { p.copying.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
		p.outR.Close()
		p.errR.Close()
		<-done
	}
}

// releaseGroup removes the cgroup of a process that was ended having run
// nothing (an early helper's is its own; Run's, released by Run again,
// which does nothing).
func (p *process) releaseGroup() {
	if p.kg != nil {
		p.kg.release()
	}
}

func (p *process) close() {
	p.outR.Close()
	p.errR.Close()
	if p.statusR != nil {
		p.statusR.Close()
	}
}

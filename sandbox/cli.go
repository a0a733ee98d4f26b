package sandbox

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"turnstile/domain"
)

// SandboxCommand implements `turnstile sandbox --mode MODE --root DIR [--cwd
// DIR] [--timeout-ms N] -- CMD...`: it probes the kernel, resolves the mode's
// snapshot over the root, plans and runs one command, copies its output to
// stdout and stderr and returns its exit code: 126 when the sandbox refuses
// (the reason on stderr), 2 on a usage error. Standard input is not passed.
func SandboxCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("turnstile sandbox", flag.ContinueOnError)
	fs.SetOutput(stderr)
	mode := fs.String("mode", string(domain.ModeSupervised), "permission mode: full_access, auto_accept_edits or supervised")
	root := fs.String("root", "", "workspace root (required)")
	cwd := fs.String("cwd", "", "working directory (default: the root)")
	timeout := fs.Int64("timeout-ms", 0, "timeout in milliseconds (default: the policy's; capped)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: turnstile sandbox --mode MODE --root DIR [--cwd DIR] [--timeout-ms N] -- CMD [ARG...]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	argv := fs.Args()
	if len(argv) == 0 || *root == "" {
		var missing []string
		if *root == "" {
			missing = append(missing, "--root DIR (the workspace root)")
		}
		if len(argv) == 0 {
			missing = append(missing, "the command to run (-- CMD [ARG...])")
		}
		fmt.Fprintf(stderr, "turnstile sandbox: missing %s\n\n", strings.Join(missing, " and "))
		fs.Usage()
		return 2
	}
	m, err := domain.ParseMode(*mode)
	if err != nil {
		fmt.Fprintln(stderr, "turnstile sandbox:", err)
		return 2
	}
	absRoot, err := filepath.Abs(*root)
	if err != nil {
		fmt.Fprintln(stderr, "turnstile sandbox:", err)
		return 2
	}
	absCwd := absRoot
	if *cwd != "" {
		if absCwd, err = filepath.Abs(*cwd); err != nil {
			fmt.Fprintln(stderr, "turnstile sandbox:", err)
			return 2
		}
	}
	// One command, then exit: no view is looked at twice.
	noViewCache.Store(true)
	defer noViewCache.Store(false)
	signals := notifySoon(os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer func() {
		_, stop := signals()
		stop()
	}()
	// The held names and the temp dir are released before the exit, while
	// the signals are still caught.
	defer WaitCleanup()
	// The namespaces are assumed when the sysctls allow them (quickProbe):
	// if the helper then fails to set up (exit 126 before the command
	// ran), the full probe decides, and the command is planned and run (or
	// refused) again from what it found.
	features, verified := quickProbe()
	if !verified {
		// Without the namespace probe, nothing has checked the lean
		// helper's fingerprint yet: Run starts it in checked mode and
		// compares its fingerprint with ours (computed meanwhile) before
		// it sends the plan.
		go fingerprint()
	}
	if m != domain.ModeFullAccess {
		// The helper starts while the command is planned; Run takes it
		// when the plan fits it, and it is ended otherwise.
		startEarlyHelperSoon(absCwd, features)
		defer AbandonEarlyHelper()
		if os.Geteuid() == 0 {
			// A root caller's command runs as SandboxUID through
			// idmapped writable roots: their user namespaces are made
			// while the helper starts and the command is planned (where
			// namespaces turn out to be unavailable, they are not used).
			go prewarmIdmaps(absRoot)
		}
	}
	req := SpawnRequest{Argv: argv, Cwd: absCwd, TimeoutMs: *timeout}
	plan, res, err := planAndRun(signals, stderr, m, absRoot, features, req)
	var rf *Refusal
	if !verified && errors.As(err, &rf) && rf.Code == CodeSandboxFailed {
		if full := Probe(); full.Kernel != features.Kernel {
			plan, res, err = planAndRun(signals, stderr, m, absRoot, full, req)
		}
	}
	if plan == nil {
		reportRefusal(stderr, err)
		if errors.As(err, &rf) {
			return ExitSandboxFailure
		}
		return 2
	}
	if res != nil {
		stdout.Write(res.Stdout)
		stderr.Write(res.Stderr)
		if res.StdoutTruncated || res.StderrTruncated {
			fmt.Fprintf(stderr, "turnstile sandbox: output truncated at %d bytes\n", MaxOutputBytes)
		}
		if res.TimedOut {
			fmt.Fprintf(stderr, "turnstile sandbox: timed out after %s; the process group was killed\n", plan.Timeout)
		}
		for _, q := range res.Quarantined {
			fmt.Fprintln(stderr, QuarantineLine(q.Path, q.Reason, q.MovedTo, q.Error))
		}
		for _, l := range res.CheckLimits {
			fmt.Fprintln(stderr, "turnstile sandbox: "+domain.TerminalSafe(l))
		}
	}
	if err != nil {
		var r *Refusal
		if !errors.As(err, &r) || r.Code != CodeSandboxFailed {
			reportRefusal(stderr, err)
		}
		return ExitSandboxFailure
	}
	return res.ExitCode
}

// planAndRun resolves mode's snapshot over root with features, plans req
// and runs it once signals (notifySoon) are being caught. A nil plan means nothing was run: err is the refusal (a
// *Refusal) or a resolution error.
func planAndRun(signals func() (context.Context, context.CancelFunc), stderr io.Writer, m domain.Mode, root string, features Features, req SpawnRequest) (*Plan, *Result, error) {
	s, err := domain.ResolveSnapshot(domain.SnapshotInputs{
		Profile:       domain.ResolveProfile(&domain.ProfileRequest{Mode: m}, domain.SourceComposer),
		Cwd:           req.Cwd,
		WorkspaceRoot: root,
		Kernel:        features.Kernel,
	})
	if err != nil {
		return nil, nil, err
	}
	// What the plan sees of the writable roots, the gateway's data
	// directory among them, is another command's until that one's check
	// has run (rootlock.go).
	lock, err := lockSnapshotRoots(func() context.Context {
		fmt.Fprintln(stderr, "turnstile sandbox: waiting for another command over the same writable roots to end")
		ctx, _ := signals()
		return ctx
	}, &s)
	if err != nil {
		return nil, nil, fmt.Errorf("waiting for another command over the same writable roots: %w", err)
	}
	domain.AddSensitivePaths(&s, cliGatewaySecrets(m))
	plan, err := PlanSpawn(&s, req, os.Environ())
	if err != nil {
		lock.Release()
		return nil, nil, err
	}
	plan.HoldRoots(lock)
	if leanCLIGate != nil {
		leanCLIGate()
	}
	ctx, _ := signals()
	res, err := Run(ctx, plan)
	return plan, res, err
}

// cliGatewaySecrets returns what the data directory a server of this user
// keeps by default (DefaultDataDir, where the CLI's client commands read
// the admin token) gives a command of `turnstile sandbox` as sensitive
// paths, in every mode, as each of `serve`'s commands is denied the
// server's own (the ninety-seventh review: a full_access command, or a
// restricted one over the home, printed the admin token of the user's
// server): DataDirSecrets. A directory without a server's data is not
// denied (a service's own $STATE_DIRECTORY that holds its workspaces: the
// hundredth review), only the names a server would trust there.
//
// In full_access, which writes anywhere, a directory without a server's
// data has nothing to hide and nothing watched: none (the command runs
// without the namespaces that hide secrets where they are unusable). A
// server's data is any file it writes there (HoldsServerData): a server
// run there with --token-file and --store log:DIR leaves no token or
// store, only its read models' checkpoint and archive named after the
// store, every workspace's turns (the hundred-and-thirty-seventh review).
func cliGatewaySecrets(m domain.Mode) []string {
	d, err := DefaultDataDir()
	if err != nil {
		return nil
	}
	if m == domain.ModeFullAccess && !HoldsServerData(d) {
		return nil
	}
	return DataDirSecrets(d)
}

func reportRefusal(w io.Writer, err error) {
	var r *Refusal
	if errors.As(err, &r) {
		fmt.Fprintf(w, "turnstile sandbox: refused (%s): %s\n", r.Code, strings.TrimPrefix(err.Error(), r.Code+": "))
		return
	}
	fmt.Fprintln(w, "turnstile sandbox:", err)
}

// notifySoon is signal.NotifyContext for sigs started on another goroutine:
// a process's first signal.Notify starts the runtime's signal-handling
// threads (0.15-0.4 ms here), which then start beside the probe and the
// plan. The returned function waits for it (once) and returns its context
// and stop function: Run is given the context, so nothing an interrupt
// must clean up (held names, the helper, the command) is made before the
// signals are caught. The early helper may start before: it waits for a
// plan and ends, having run nothing, when this process dies.
//
// Only the first signal is caught: the context is done once the signals'
// default action is back, so that a second one (a second Ctrl-C or Ctrl-\
// while the cleanup runs, say a temp dir of many files) ends the process at
// once; what it then leaves (held names) the next run removes.
func notifySoon(sigs ...os.Signal) func() (context.Context, context.CancelFunc) {
	type notified struct {
		ctx  context.Context
		stop context.CancelFunc
	}
	ch := make(chan notified, 1)
	go func() {
		caught, unnotify := signal.NotifyContext(context.Background(), sigs...)
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			<-caught.Done()
			unnotify() // before anyone sees ctx done
			cancel()
		}()
		ch <- notified{ctx, func() { unnotify(); cancel() }}
	}()
	return sync.OnceValues(func() (context.Context, context.CancelFunc) {
		n := <-ch
		return n.ctx, n.stop
	})
}

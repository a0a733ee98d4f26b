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
	features := Probe()
	s, err := domain.ResolveSnapshot(domain.SnapshotInputs{
		Profile:       domain.ResolveProfile(&domain.ProfileRequest{Mode: m}, domain.SourceComposer),
		Cwd:           absCwd,
		WorkspaceRoot: absRoot,
		Kernel:        features.Kernel,
	})
	if err != nil {
		fmt.Fprintln(stderr, "turnstile sandbox:", err)
		return 2
	}
	plan, err := PlanSpawn(&s, SpawnRequest{Argv: argv, Cwd: absCwd, TimeoutMs: *timeout}, os.Environ())
	if err != nil {
		reportRefusal(stderr, err)
		return ExitSandboxFailure
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := Run(ctx, plan)
	if res != nil {
		stdout.Write(res.Stdout)
		stderr.Write(res.Stderr)
		if res.StdoutTruncated || res.StderrTruncated {
			fmt.Fprintf(stderr, "turnstile sandbox: output truncated at %d bytes\n", MaxOutputBytes)
		}
		if res.TimedOut {
			fmt.Fprintf(stderr, "turnstile sandbox: timed out after %s; the process group was killed\n", plan.Timeout)
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

func reportRefusal(w io.Writer, err error) {
	var r *Refusal
	if errors.As(err, &r) {
		fmt.Fprintf(w, "turnstile sandbox: refused (%s): %s\n", r.Code, strings.TrimPrefix(err.Error(), r.Code+": "))
		return
	}
	fmt.Fprintln(w, "turnstile sandbox:", err)
}

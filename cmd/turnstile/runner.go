package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"

	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/projections"
	"turnstile/sandbox"
	"turnstile/sandbox/egress"
)

// codeCommandNotFound refuses a command whose executable cannot be resolved.
const codeCommandNotFound = "command_not_found"

// runner is the engine's Runner: it resolves executables against the
// policy's search path and runs commands through the sandbox helper. A
// sandboxed command whose snapshot restricts the network (domain rules)
// reaches the network only through egress, in a network namespace of its
// own (sandbox.Plan.UseEgress).
type runner struct {
	// egress is set once at start-up, before the server takes requests.
	egress *egress.Proxy
	// otherData is this user's default data directory when it is not the
	// server's own ("" then: otherDataDir), set at start-up. Its secrets
	// follow what it holds (sandbox.DataDirSecrets): a server started
	// there after this one, or one that writes its read models' checkpoint
	// there only later, makes it a server's data, denied whole from then
	// on, so each spawn adds them as they are then to the turn's, which
	// name them as they were at this server's start (secretPaths: the
	// hundred-and-thirty-seventh review).
	otherData string
}

// Resolve finds argv0: a name with a slash against cwd, a bare name in
// domain.SearchPath (the server's PATH as the policy passes it, never the
// request's).
func (*runner) Resolve(s *domain.TurnExecutionSecuritySnapshot, argv0, cwd string) (string, error) {
	if filepath.IsAbs(argv0) || containsSlash(argv0) {
		if !filepath.IsAbs(argv0) {
			argv0 = filepath.Join(cwd, argv0)
		}
		return filepath.Clean(argv0), nil
	}
	for _, dir := range domain.SearchPath(&s.Process.Environment, os.Getenv("PATH")) {
		p := filepath.Join(dir, argv0)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", sandbox.CodedRefusal{Refusal: &sandbox.Refusal{Code: codeCommandNotFound, Message: "command " + argv0 + " not found in the policy's search path"}}
}

func containsSlash(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			return true
		}
	}
	return false
}

// Run plans cmd under s and runs the executable Resolve found (argv[0] is
// replaced by it, so nothing is looked up again in the request's PATH).
func (r *runner) Run(ctx context.Context, s *domain.TurnExecutionSecuritySnapshot, cmd *engine.Command) (*engine.CommandResult, error) {
	argv := append([]string(nil), cmd.Argv...)
	if cmd.Executable != "" {
		argv[0] = cmd.Executable
	}
	sr := sandbox.SpawnRequest{Argv: argv, Cwd: cmd.Cwd, Env: cmd.Env, TimeoutMs: cmd.TimeoutMs}
	if len(cmd.Stdin) > 0 {
		sr.Stdin = bytes.NewReader(cmd.Stdin)
	}
	// Another command over the same writable roots (a parallel tool call)
	// runs and is checked first: the plan looks at the roots after it.
	lock, err := sandbox.LockWritableRoots(ctx, s)
	if err != nil {
		return nil, sandbox.CodedRefusal{Refusal: &sandbox.Refusal{Code: sandbox.CodeSandboxFailed,
			Message: "nothing was run: waiting for another command over the same writable roots: " + err.Error()}}
	}
	ran := false
	defer func() {
		if !ran {
			lock.Release()
		}
	}()
	if r.otherData != "" {
		// As the data directory is now that no other command over these
		// roots runs.
		s = withSecrets(s, sandbox.DataDirSecrets(r.otherData))
	}
	plan, err := sandbox.PlanSpawn(s, sr, os.Environ())
	if err != nil {
		return nil, sandbox.AsCoded(err)
	}
	plan.HoldRoots(lock)
	// The turn's end kills the command's processes by the call that
	// stops the turn's commands, not after it, and that call returns once
	// they can act no more.
	plan.KillWith(func(kill, wait func()) func() { return engine.OnStop(ctx, kill, wait) })
	if filepath.IsAbs(cmd.Cwd) && plan.Cwd != filepath.Clean(cmd.Cwd) {
		// The engine decided on the directory cmd.Cwd led to (resolved);
		// a link swapped in since leads elsewhere: nothing runs there.
		return nil, sandbox.CodedRefusal{Refusal: &sandbox.Refusal{Code: sandbox.CodeCwdNotReadable, Path: cmd.Cwd,
			Message: "the working directory now resolves to " + plan.Cwd + ", not the one decided on"}}
	}
	if plan.Sandboxed && s.Network.Mode == domain.NetworkRestricted && r.egress != nil && cmd.TurnID != "" &&
		s.Backend.Kernel != nil && s.Backend.Kernel.EgressProxy {
		if err := plan.UseEgress(r.egress.AttachAs(cmd.TurnID, cmd.Actor)); err != nil {
			return nil, sandbox.AsCoded(err)
		}
	}
	ran = true // Run releases the lock, after the check
	res, err := sandbox.Run(ctx, plan)
	if err != nil {
		return nil, sandbox.AsCoded(err)
	}
	if res.SandboxError != "" {
		return nil, sandbox.CodedRefusal{Refusal: &sandbox.Refusal{Code: sandbox.CodeSandboxFailed, Message: res.SandboxError}}
	}
	out := &engine.CommandResult{
		ExitCode: res.ExitCode, Stdout: string(res.Stdout), Stderr: string(res.Stderr),
		StdoutTruncated: res.StdoutTruncated, StderrTruncated: res.StderrTruncated, DurationMs: res.DurationMs, TimedOut: res.TimedOut,
		CheckLimits: res.CheckLimits,
	}
	for _, q := range res.Quarantined {
		out.Quarantined = append(out.Quarantined, engine.Quarantined{Path: q.Path, Reason: q.Reason, MovedTo: q.MovedTo, Error: q.Error})
	}
	return out, nil
}

// withSecrets returns s with paths added as the service's own secrets
// (domain.AddSensitivePaths), on a copy: s is the turn's, which other
// commands of the turn read meanwhile.
func withSecrets(s *domain.TurnExecutionSecuritySnapshot, paths []string) *domain.TurnExecutionSecuritySnapshot {
	c := *s
	c.Sandbox.Filesystem.Entries = slices.Clone(s.Sandbox.Filesystem.Entries)
	domain.AddSensitivePaths(&c, paths)
	return &c
}

// instanceName draws this process's engine instance name: instances that
// share a store must never write identical exec.started events.
func instanceName() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// hint adapts the projector to the engine's Hint: the read models say when
// a turn may have changed; the engine then reads it from the store.
type hint struct{ *projections.Projector }

func (h hint) TurnVersion(turnID string) (int64, bool) {
	t, ok := h.Turn(turnID)
	return t.Version, ok
}

package main

import (
	"bytes"
	"context"
	"errors"
	"os"

	"turnstile/api"
	"turnstile/domain"
	"turnstile/sandbox"
)

// refusal adapts a sandbox refusal to the engine's Refusal port.
type refusal struct{ *sandbox.Refusal }

func (r refusal) RefusalCode() string { return r.Code }

func asRefusal(err error) error {
	var r *sandbox.Refusal
	if errors.As(err, &r) {
		return refusal{r}
	}
	return err
}

// checker runs the sandbox's resource checks for the engine.
type checker struct{}

func (checker) CheckFile(s *domain.TurnExecutionSecuritySnapshot, path string, op domain.Access) error {
	_, err := sandbox.CheckFile(s, path, op)
	return asRefusal(err)
}

// CheckURL checks a tool's URL as if the network were granted: a disabled
// network is "disabled until granted", and granting is the policy's
// network behaviour (ask), not this check's. Schemes, denied domains,
// allow rules, localhost and private ranges still apply.
func (checker) CheckURL(s *domain.TurnExecutionSecuritySnapshot, rawURL string) error {
	if s.Network.Mode == domain.NetworkDisabled {
		c := *s
		c.Network.Mode = domain.NetworkEnabled
		s = &c
	}
	return asRefusal(sandbox.CheckURL(s, rawURL))
}

// runner runs exec requests through the sandbox helper.
type runner struct{}

func (runner) Run(ctx context.Context, s *domain.TurnExecutionSecuritySnapshot, req api.ExecRequest) (*api.ExecResult, error) {
	sr := sandbox.SpawnRequest{Argv: req.Argv, Cwd: req.Cwd, Env: req.Env, TimeoutMs: req.TimeoutMs}
	if req.Stdin != "" {
		sr.Stdin = bytes.NewReader([]byte(req.Stdin))
	}
	plan, err := sandbox.PlanSpawn(s, sr, os.Environ())
	if err != nil {
		return nil, asRefusal(err)
	}
	res, err := sandbox.Run(ctx, plan)
	if err != nil {
		return nil, asRefusal(err)
	}
	if res.SandboxError != "" {
		return nil, refusal{&sandbox.Refusal{Code: sandbox.CodeSandboxFailed, Message: res.SandboxError}}
	}
	return &api.ExecResult{
		ExitCode: res.ExitCode, Stdout: string(res.Stdout), Stderr: string(res.Stderr),
		StdoutTruncated: res.StdoutTruncated, StderrTruncated: res.StderrTruncated, DurationMs: res.DurationMs, TimedOut: res.TimedOut,
	}, nil
}

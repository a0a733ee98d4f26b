package main

import (
	"context"
	"errors"
	"time"

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

// checker runs the sandbox's resource checks for the engine's decisions,
// against the snapshot as it stands for a call a person may still approve
// (domain.TurnExecutionSecuritySnapshot.Approvable): a supervised write in
// the workspace is left to the policy, which asks; a write outside the roots,
// through a symlink that leads out, to a sensitive path or to a denied host
// is refused. Paths are resolved as the kernel will (sandbox.CheckFile), and
// the engine judges and records the resolved path (engine.FileResolver).
type checker struct {
	// resolver looks host names up at decision time (sandbox.CheckURLResolved);
	// timeout bounds each lookup.
	resolver sandbox.HostResolver
	timeout  time.Duration
}

func (c checker) CheckFile(s *domain.TurnExecutionSecuritySnapshot, path string, op domain.Access) error {
	_, err := c.ResolveFile(s, path, op, false)
	return err
}

func (checker) ResolveFile(s *domain.TurnExecutionSecuritySnapshot, path string, op domain.Access, tree bool) (string, error) {
	a := s.Approvable()
	if tree {
		resolved, err := sandbox.CheckTree(&a, path)
		return resolved, asRefusal(err)
	}
	resolved, err := sandbox.CheckFile(&a, path, op)
	return resolved, asRefusal(err)
}

func (c checker) CheckURL(s *domain.TurnExecutionSecuritySnapshot, rawURL string) error {
	a := s.Approvable()
	return asRefusal(sandbox.CheckURLResolved(context.Background(), &a, rawURL, c.resolver, c.timeout))
}

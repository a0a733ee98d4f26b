package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
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
	if a.Sandbox.Filesystem.Unrestricted {
		a.Sandbox.Filesystem = sensitiveOnly(a.Sandbox.Filesystem)
	}
	if tree {
		resolved, err := sandbox.CheckTree(&a, path)
		return resolved, asRefusal(err)
	}
	resolved, err := sandbox.CheckFile(&a, path, op)
	return resolved, asRefusal(err)
}

// sensitiveOnly is an unrestricted filesystem as the decisions see it: all
// of "/" but the snapshot's sensitive paths (the service's own data
// directory and token files), which even a full_access turn may not read or
// write. The sandbox's one path checker then judges them as for a
// restricted turn (symlinks and ".." included).
func sensitiveOnly(fs domain.FilesystemPolicy) domain.FilesystemPolicy {
	es := []domain.FilesystemEntry{{Kind: domain.PathExplicit, Path: "/", Access: domain.AccessWrite, Provenance: domain.ProvenanceSystem, ResolvedPath: "/"}}
	for _, e := range fs.Entries {
		if e.Kind == domain.PathSensitive {
			es = append(es, e)
		}
	}
	if len(es) == 1 {
		return fs
	}
	return domain.FilesystemPolicy{Entries: es}
}

func (c checker) CheckURL(s *domain.TurnExecutionSecuritySnapshot, rawURL string) error {
	a := s.Approvable()
	return asRefusal(sandbox.CheckURLResolved(context.Background(), &a, rawURL, c.resolver, c.timeout))
}

// netResolver adapts *net.Resolver to sandbox.HostResolver: a name that does
// not exist wraps sandbox.ErrHostNotFound.
type netResolver struct{ r *net.Resolver }

func (n netResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	addrs, err := n.r.LookupNetIP(ctx, network, host)
	var de *net.DNSError
	if errors.As(err, &de) && de.IsNotFound {
		return nil, fmt.Errorf("%w: %v", sandbox.ErrHostNotFound, err)
	}
	return addrs, err
}

// newResolver returns the system resolver, or with server ("host:port") a
// resolver that asks only that DNS server.
func newResolver(server string) sandbox.HostResolver {
	if server == "" {
		return netResolver{net.DefaultResolver}
	}
	return netResolver{&net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, server)
	}}}
}

// explainer checks paths and URLs against a snapshot as it stands, for
// GET /v1/turns/{id}/explain.
type explainer struct{}

func (explainer) ExplainFile(s *domain.TurnExecutionSecuritySnapshot, path string, op domain.Access) (string, error) {
	resolved, err := sandbox.CheckFile(s, path, op)
	var r *sandbox.Refusal
	if errors.As(err, &r) {
		resolved = r.Path // the path the refusal judged
	}
	return resolved, asRefusal(err)
}

func (explainer) ExplainURL(s *domain.TurnExecutionSecuritySnapshot, rawURL string) error {
	return asRefusal(sandbox.CheckURL(s, rawURL))
}

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"turnstile/domain"
)

// CodedRefusal adapts a Refusal to the engine's Refusal port
// (engine.Refusal: an error with a RefusalCode).
type CodedRefusal struct{ *Refusal }

// RefusalCode returns the refusal's code.
func (r CodedRefusal) RefusalCode() string { return r.Code }

// AsCoded returns err as a CodedRefusal when it is a *Refusal, and err
// unchanged otherwise.
func AsCoded(err error) error {
	var r *Refusal
	if errors.As(err, &r) {
		return CodedRefusal{r}
	}
	return err
}

// DecisionChecker runs the sandbox's resource checks for the engine's
// decisions (engine.ResourceChecker and engine.FileResolver), against the
// snapshot as it stands for a call a person may still approve
// (domain.TurnExecutionSecuritySnapshot.Approvable): a supervised write in
// the workspace is left to the policy, which asks; a write outside the roots,
// through a symlink that leads out, to a sensitive path or to a denied host
// is refused. Paths are resolved as the kernel will (CheckFile), and the
// engine judges and records the resolved path. It is the checker the server
// installs, and the one the decision benchmarks measure.
type DecisionChecker struct {
	// Resolver looks host names up at decision time (CheckURLResolved);
	// Timeout bounds each lookup.
	Resolver HostResolver
	Timeout  time.Duration
	// Principal, when set (ForPrincipal), is who the calls judged are
	// asked by: their decision scans wait for the slot as that
	// principal's (scanOwner).
	Principal string
	// Fresh, when set, returns the gateway's secrets that may have come
	// to be since a turn's snapshot was made (another server's data
	// directory, as DataDirSecrets finds it now): a file decision on one,
	// or on a tree holding one, is refused in every mode. A turn started
	// before another server wrote its read models' checkpoint into the
	// user's default data directory kept the list of its start, and its
	// read_file of the checkpoint was allowed (the
	// hundred-and-thirty-ninth review).
	Fresh func() []string
}

// ForPrincipal returns the checker for the calls of the principal name:
// the engine asks for it per call (engine.PrincipalScoped).
func (c DecisionChecker) ForPrincipal(name string) interface {
	CheckFile(s *domain.TurnExecutionSecuritySnapshot, path string, op domain.Access) error
	CheckURL(s *domain.TurnExecutionSecuritySnapshot, rawURL string) error
} {
	c.Principal = name
	return c
}

// scanOwner is whom a decision scan over the policy whose view key is
// viewKey waits for the slot as (decisionScans): the principal asking when
// it is known, so that the slot goes to each principal in turn however
// many turns, roots or profiles it judges, and within its turn to each of
// its policies in turn (one credential may serve several sessions, as
// Claude Code's hook does); else the policy alone.
func (c DecisionChecker) scanOwner(viewKey string) scanOwner {
	if c.Principal != "" {
		return scanOwner{principal: "principal\x00" + c.Principal, policy: viewKey}
	}
	return scanOwner{principal: viewKey, policy: viewKey}
}

// ResolveRoot returns the clean absolute path p with its symlinks resolved,
// as a snapshot's root is taken (the missing tail appended as written).
func (DecisionChecker) ResolveRoot(p string) (string, error) {
	canon, _, ok, err := canonicalPath(p)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("%s climbs with .. out of a directory that does not exist", p)
	}
	return canon, nil
}

// CheckFile checks path for op, as ResolveFile does.
func (c DecisionChecker) CheckFile(s *domain.TurnExecutionSecuritySnapshot, path string, op domain.Access) error {
	_, err := c.ResolveFile(s, path, op, false)
	return err
}

// ResolveFile checks path for op and returns it resolved; with tree,
// everything below it is checked too (CheckTree).
func (c DecisionChecker) ResolveFile(s *domain.TurnExecutionSecuritySnapshot, path string, op domain.Access, tree bool) (string, error) {
	if s == nil {
		_, err := CheckFile(nil, path, op)
		return "", AsCoded(err)
	}
	d := approvableFS(s)
	var v *fsView
	if !d.fs.Unrestricted {
		v = d.view()
	}
	var (
		resolved string
		err      error
	)
	switch {
	case tree && v != nil:
		resolved, err = checkTree(d.cwd, &d.fs, v, path, c.scanOwner(d.viewKey))
	case tree: // an unrestricted filesystem with nothing sensitive: a read
		resolved, err = checkFile(d.cwd, &d.fs, nil, path, domain.AccessRead)
	default:
		resolved, err = checkFile(d.cwd, &d.fs, v, path, op)
	}
	if err == nil && c.Fresh != nil {
		err = freshRefusal(c.Fresh(), resolved, tree)
	}
	return resolved, AsCoded(err)
}

// freshRefusal refuses the resolved path p when it is one of secrets or
// lies below one, or (tree: everything below p is read) holds one.
func freshRefusal(secrets []string, p string, tree bool) error {
	for _, s := range secrets {
		if domain.PathWithin(p, s) || tree && domain.PathWithin(s, p) {
			return &Refusal{Code: CodeSensitivePath, Path: p,
				Message: "the path is the gateway's data (another server's data directory, as it is now): it is denied to every turn"}
		}
	}
	return nil
}

// CheckListing refuses a listing of the resolved directory dir that shows
// the names depth levels below it (0: every level), Codex's list_dir or
// Claude Code's LS, when a directory whose entries it shows is one a read
// of is refused: a deny carve-out (a profile's denied directory, a
// sensitive one) or a directory a profile's glob deny matches, as deep as
// the listing shows (the profile's glob_scan_max_depth bounds the spawn's
// scan, not the runtime's listing). The names of denied files are shown, as a
// listing one level deep shows them; their content is not read.
func (c DecisionChecker) CheckListing(s *domain.TurnExecutionSecuritySnapshot, dir string, depth int) error {
	if s == nil {
		return nil // ResolveFile refused it
	}
	d := approvableFS(s)
	if d.fs.Unrestricted {
		return nil
	}
	v := d.view()
	listed := func(p string) bool { // the entries of p are shown
		if p == dir || !domain.PathWithin(p, dir) {
			return false
		}
		return depth == 0 || len(splitPath(p))-len(splitPath(dir)) <= depth-1
	}
	var below []string
	for _, c := range v.carves {
		// A denied file's name is shown, not its content: only a
		// directory's entries are.
		if fi, err := os.Stat(c.Path); err == nil && fi.IsDir() && c.Access == domain.AccessDeny && listed(c.Path) {
			below = append(below, c.Path)
		}
	}
	if d.fs.GlobScanMaxDepth > 0 {
		scan := depth
		if depth == 0 {
			scan = everyLevel
		}
		tree := []domain.FilesystemEntry{{Kind: domain.PathExplicit, Path: dir, ResolvedPath: dir, Access: domain.AccessRead}}
		found, complete, busy := decisionScan(c.scanOwner(d.viewKey), tree, d.fs.Rules, scan)
		if busy {
			return CodedRefusal{scanBusy(dir)}
		}
		if !complete {
			return CodedRefusal{treeTooLarge(dir)}
		}
		for _, m := range found {
			if fi, err := os.Stat(m.ResolvedPath); err == nil && fi.IsDir() && listed(m.ResolvedPath) {
				below = append(below, m.ResolvedPath)
			}
		}
	}
	for _, b := range below {
		if _, err := checkFile(d.cwd, &d.fs, v, b, domain.AccessRead); err != nil {
			var r *Refusal
			if errors.As(err, &r) && r.Code != CodeMissingPath {
				return CodedRefusal{&Refusal{Code: r.Code, Path: dir, Message: "a listing of the levels below would list " + b + ", which is refused: " + r.Message}}
			}
		}
	}
	return nil
}

// sensitiveOnly is an unrestricted filesystem as the decisions see it: all
// of "/" but the snapshot's sensitive paths (the service's own data
// directory and token files), which even a full_access turn may not read or
// write. The one path checker then judges them as for a restricted turn
// (symlinks and ".." included).
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

// CheckURL checks rawURL against the network policy, looking its host up.
func (c DecisionChecker) CheckURL(s *domain.TurnExecutionSecuritySnapshot, rawURL string) error {
	// The network checks read no path: Approvable need not reopen the
	// filesystem's roots (and list their protected paths) for them.
	n := *s
	n.Sandbox.Filesystem = domain.FilesystemPolicy{}
	a := n.Approvable()
	return AsCoded(CheckURLResolved(context.Background(), &a, rawURL, c.Resolver, c.Timeout))
}

// CheckURLStatic checks rawURL against the network policy without looking
// its host up (engine.StaticURLChecker).
func (c DecisionChecker) CheckURLStatic(s *domain.TurnExecutionSecuritySnapshot, rawURL string) error {
	n := *s
	n.Sandbox.Filesystem = domain.FilesystemPolicy{}
	a := n.Approvable()
	return AsCoded(CheckURL(&a, rawURL))
}

// Explainer checks paths and URLs against a snapshot as it stands, for
// GET /v1/turns/{id}/explain.
type Explainer struct{}

// ExplainFile checks path for op and returns the path it judged.
func (Explainer) ExplainFile(s *domain.TurnExecutionSecuritySnapshot, path string, op domain.Access) (string, error) {
	resolved, err := CheckFile(s, path, op)
	var r *Refusal
	if errors.As(err, &r) {
		resolved = r.Path // the path the refusal judged
	}
	return resolved, AsCoded(err)
}

// ExplainURL checks rawURL against the network policy without a lookup.
func (Explainer) ExplainURL(s *domain.TurnExecutionSecuritySnapshot, rawURL string) error {
	return AsCoded(CheckURL(s, rawURL))
}

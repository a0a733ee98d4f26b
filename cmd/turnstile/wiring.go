package main

import (
	"errors"

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
// through a symlink that leads out, or to a denied host is refused.
type checker struct{}

func (checker) CheckFile(s *domain.TurnExecutionSecuritySnapshot, path string, op domain.Access) error {
	a := s.Approvable()
	if a.Sandbox.Filesystem.Unrestricted {
		a.Sandbox.Filesystem = sensitiveOnly(a.Sandbox.Filesystem)
	}
	_, err := sandbox.CheckFile(&a, path, op)
	var r *sandbox.Refusal
	if op == domain.AccessRead && errors.As(err, &r) && r.Code == sandbox.CodeMissingPath {
		// Reading what does not exist reads nothing (the tool reports it),
		// but where it would be still matters: check the place through its
		// nearest existing ancestor, as for a new file.
		_, err = sandbox.CheckFile(&a, path, domain.AccessWrite)
		if errors.As(err, &r) && (r.Code == sandbox.CodeWriteRequiresWritable || r.Code == sandbox.CodeInvalidPath) {
			return nil
		}
	}
	return asRefusal(err)
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

func (checker) CheckURL(s *domain.TurnExecutionSecuritySnapshot, rawURL string) error {
	a := s.Approvable()
	return asRefusal(sandbox.CheckURL(&a, rawURL))
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

package sandbox

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// CheckFile checks that op (read or write) on path is allowed by the
// snapshot's filesystem policy (REFERENCE §5) and returns the canonical path
// the operation must use: the caller opens resolved, never path, so that a
// symlink swapped in afterwards cannot redirect the checked operation
// lexically (".." is resolved before, not after, symlinks).
//
// The rules, in order: an empty path is refused; a relative path is joined
// to the sandbox cwd and normalised; every symlink is resolved (the snapshot's
// roots too); a read of a missing path is missing_path; a write target that
// does not exist yet is checked through its nearest existing ancestor plus
// the missing components; with an unrestricted filesystem everything else is
// allowed; otherwise the canonical path must lie under an entry whose access
// covers op (write covers read), and protected entries (.git, .agents,
// .codex, the real git dir of a ".git" pointer file) make their subtree
// read-only. A path that is inside a root lexically but leaves it through a
// symlink is symlink_escape; a write under a read-only root (or protected
// path) is write_requires_writable_root; anything else is
// outside_allowed_roots. Refusals are *Refusal.
func CheckFile(s *domain.TurnExecutionSecuritySnapshot, path string, op domain.Access) (resolved string, err error) {
	return checkSnapshotFile(s, nil, path, op)
}

// checkSnapshotFile is CheckFile with v the view of the snapshot's
// filesystem policy when the caller has one (nil: the cached one).
func checkSnapshotFile(s *domain.TurnExecutionSecuritySnapshot, v *fsView, path string, op domain.Access) (resolved string, err error) {
	if s == nil {
		return "", refuse(CodeNoSnapshot, path, "no security snapshot: every file operation is refused")
	}
	if v == nil && !s.Sandbox.Filesystem.Unrestricted {
		v = cachedFSView(&s.Sandbox.Filesystem)
	}
	return checkFile(s.Sandbox.Cwd, &s.Sandbox.Filesystem, v, path, op)
}

// checkFile is CheckFile against the cwd and filesystem policy of a
// snapshot, with v the view of fp (nil when fp is unrestricted).
func checkFile(cwd string, fp *domain.FilesystemPolicy, v *fsView, path string, op domain.Access) (resolved string, err error) {
	if op != domain.AccessRead && op != domain.AccessWrite {
		return "", refuse(CodeUnsupportedAccess, path, "operation %q is neither read nor write", op)
	}
	if strings.TrimSpace(path) == "" {
		return "", refuse(CodeEmptyPath, "", "path is empty")
	}
	if strings.IndexByte(path, 0) >= 0 {
		return "", refuse(CodeInvalidPath, path, "path contains a NUL byte")
	}
	lexical := domain.ResolvePath(cwd, path)
	// The kernel applies ".." to the directory a symlink led to, so the
	// path is canonicalised as written (joined to the cwd, not cleaned).
	var (
		canon, at  string
		exists, ok bool
		cerr       error
		st         *unix.Stat_t
	)
	if c, fst, ex, fast := canonicalFast(joinRaw(cwd, path)); fast {
		canon, exists, ok, st = c, ex, true, &fst
	} else {
		canon, at, exists, ok, cerr = canonicalPathAt(joinRaw(cwd, path), !fp.Unrestricted)
	}
	if !fp.Unrestricted {
		// A sensitive path is refused whatever it resolves to, and before
		// anything says whether it exists; a path through a link whose
		// target depends on the process is sensitive when it is in this
		// one (/proc/self/root/etc/shadow).
		if r := v.sensitiveRefusal(lexical, canon, cerr == nil && ok, st); r != nil {
			return "", r
		}
		if cerr != nil && isProcessLink(cerr) {
			if c, _, cok, err := canonicalPath(joinRaw(cwd, path)); err == nil && cok {
				if r := v.sensitiveRefusal(lexical, c, true, nil); r != nil {
					return "", r
				}
			}
		}
		// A path that means something else to the process that opens
		// it than to this one cannot be judged here.
		if r := processLinkRefusal(lexical, canon, cerr == nil && ok, cerr); r != nil {
			return "", r
		}
	}
	if !fp.Unrestricted && (cerr != nil || !ok) && !v.readable(at) {
		// Where the lookup failed is outside what the turn may read: the
		// path is judged as one that goes on, missing, from there, as a
		// lookup that found nothing is, whatever is there. The server
		// resolves as its own user, and a "not a directory" or a missing
		// parent told the agent which files exist in directories only
		// that user may enter (the forty-first review), also through a
		// link it planted in its workspace (the forty-third).
		canon, exists, ok, cerr = at, false, true, nil
	}
	switch {
	case errors.Is(cerr, errSymlinkLoop):
		return "", refuse(CodeInvalidPath, lexical, "too many levels of symbolic links")
	case cerr != nil && isNotDir(cerr):
		if op == domain.AccessRead {
			return "", refuse(CodeMissingPath, lexical, "a component of the path is not a directory")
		}
		return "", refuse(CodeInvalidPath, lexical, "a component of the path is not a directory")
	case cerr != nil:
		return "", refuse(CodeInvalidPath, lexical, "cannot resolve the path: %v", cerr)
	case !ok:
		return "", refuse(CodeMissingPath, lexical, "the path climbs out of a directory that does not exist")
	case !exists && op == domain.AccessRead && v == nil:
		return "", refuse(CodeMissingPath, canon, "no such file or directory")
	}
	if fp.Unrestricted {
		return canon, nil
	}
	got, by := v.access(canon)
	if op == domain.AccessWrite && got == domain.AccessWrite {
		if c := v.protectedInAnyCase(canon, lexical); c != nil {
			got, by = c.Access, c // the protected item in another case
		}
	}
	if rules := fp.Rules; len(rules) > 0 && got.Covers(op) {
		// A permission profile's rules (globs and locked operator denies
		// included) bind as well: the narrower of the two decides.
		if d := domain.ResolvePathRules(canonicalRules(rules), canon); !d.Access.Covers(op) {
			return "", profileRefusal(canon, op, d)
		}
	}
	if got.Covers(op) {
		if op == domain.AccessWrite {
			if v.overflow != "" {
				return "", refuse(CodeWriteRequiresWritable, canon, "%s", v.overflow)
			}
			if r := v.nestedItemRefusal(canon); r != nil {
				return "", r
			}
			if r := v.missingRefRefusal(canon); r != nil {
				return "", r
			}
			if r := v.launcherGlobRefusal(canon); r != nil {
				return "", r
			}
			if r := v.repositoryRefusal(lexical, canon); r != nil {
				return "", r
			}
			if r := v.agentSettingsRefusal(lexical, canon); r != nil {
				return "", r
			}
			if r := ownFileRefusal(canon); r != nil {
				return "", r
			}
			if r := workspaceFileRefusal(canon, append(v.writableRoots(), v.cwdDirs()...)); r != nil {
				return "", r
			}
			if r := linkLandingRefusal(cwd, path, canon); r != nil {
				return "", r
			}
			if r := tempNamesRefusal(canon); r != nil {
				return "", r
			}
		}
		if !exists && op == domain.AccessRead {
			// A read of a missing path is judged as a read where it would
			// be, then refused as missing.
			return "", refuse(CodeMissingPath, canon, "no such file or directory")
		}
		return canon, nil
	}
	if canon != lexical {
		if v.escapes(lexical, canon, op) {
			to := canon
			if !got.Covers(domain.AccessRead) {
				to = "a path" // where links lead outside the roots is not told
			}
			return "", &Refusal{Code: CodeSymlinkEscape, Path: lexical,
				Message: "a symlink leads from an allowed root to " + to + ", which " + describeAccess(got, by, op)}
		}
	}
	if op == domain.AccessWrite && got == domain.AccessRead {
		msg := "the path is under a read-only root"
		if by != nil {
			msg = "the path is under the protected path " + by.Path + ", which stays read-only"
		}
		return "", &Refusal{Code: CodeWriteRequiresWritable, Path: canon, Message: msg}
	}
	if !got.Covers(domain.AccessRead) {
		// The path as written: what it resolves to, through links in
		// directories the turn may not read, is not told (explain's
		// resolved_path is this Path).
		return "", outsideRefusal(lexical)
	}
	return "", &Refusal{Code: CodeOutsideAllowedRoots, Path: canon, Message: "the path is outside every allowed root"}
}

// outsideRefusal refuses the path p, as written, as outside every root.
func outsideRefusal(p string) *Refusal {
	return &Refusal{Code: CodeOutsideAllowedRoots, Path: p, Message: "the path is outside every allowed root"}
}

// readable reports whether the view lets a turn read the canonical path p
// ("" when nothing was resolved: not readable).
func (v *fsView) readable(p string) bool {
	if p == "" || v == nil {
		return p != ""
	}
	got, _ := v.access(p)
	return got.Covers(domain.AccessRead)
}

func describeAccess(got domain.Access, by *fsRule, op domain.Access) string {
	switch {
	case by != nil:
		return "is protected (" + by.Path + ")"
	case got == domain.AccessRead && op == domain.AccessWrite:
		return "is read-only"
	default:
		return "is outside every allowed root"
	}
}

// escapes reports whether a grant covers op at the lexical path p (compared
// with the grant's path as written and as canonicalised) while the canonical
// path c lies outside that grant: a symlink below the root led out of it.
func (v *fsView) escapes(p, c string, op domain.Access) bool {
	for _, g := range v.grants {
		lex := domain.PathWithin(p, g.Path) || (g.From != "" && domain.PathWithin(p, g.From))
		if lex && g.Access.Covers(op) && !domain.PathWithin(c, g.Path) {
			return true
		}
	}
	return false
}

// profileRefusal explains a refusal by a permission profile's rule.
func profileRefusal(canon string, op domain.Access, d domain.PathDecision) *Refusal {
	if d.Rule == nil {
		return &Refusal{Code: CodeOutsideAllowedRoots, Path: canon, Message: "no rule of the permission profile matches the path (no match is deny)"}
	}
	rule := fmt.Sprintf("%q = %s (%s %s)", d.Rule.Key, d.Rule.Access, d.Rule.Provenance, d.Rule.Origin)
	if op == domain.AccessWrite && d.Access == domain.AccessRead {
		return &Refusal{Code: CodeWriteRequiresWritable, Path: canon, Message: "the permission profile's rule " + rule + " makes the path read-only"}
	}
	return &Refusal{Code: CodeOutsideAllowedRoots, Path: canon, Message: "the permission profile's rule " + rule + " denies the path"}
}

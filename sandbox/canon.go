package sandbox

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// maxSymlinkHops matches the kernel's limit on symlinks followed in one
// lookup (ELOOP after 40).
const maxSymlinkHops = 40

// errSymlinkLoop reports more than maxSymlinkHops links in one lookup.
var errSymlinkLoop = errors.New("too many levels of symbolic links")

// canonicalize resolves every symlink of the absolute, clean path abs the way
// the kernel's lookup would, component by component. It returns the canonical
// form of the longest existing prefix and the components after it that do not
// exist (nil when the whole path exists). A missing component's remainder may
// still contain "." or ".." taken from a symlink's target.
func canonicalize(abs string) (existing string, missing []string, err error) {
	todo := splitPath(abs)
	cur := "/"
	hops := 0
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := joinPath(cur, c)
		fi, err := os.Lstat(next)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return cur, append([]string{c}, todo...), nil
			}
			return "", nil, err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > maxSymlinkHops {
			return "", nil, errSymlinkLoop
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", nil, err
		}
		if strings.HasPrefix(target, "/") {
			cur = "/"
		}
		todo = append(splitPath(target), todo...)
	}
	return cur, nil, nil
}

// canonicalPath is canonicalize for paths that may not exist yet: the missing
// components are appended lexically. ok is false when the remainder climbs
// with ".." through a missing directory (the kernel would fail with ENOENT).
func canonicalPath(abs string) (canon string, exists, ok bool, err error) {
	existing, missing, err := canonicalize(abs)
	if err != nil {
		return "", false, false, err
	}
	if len(missing) == 0 {
		return existing, true, true, nil
	}
	parts := make([]string, 0, len(missing))
	for _, m := range missing {
		switch m {
		case "", ".":
		case "..":
			return "", false, false, nil
		default:
			parts = append(parts, m)
		}
	}
	return joinPath(existing, strings.Join(parts, "/")), false, true, nil
}

func splitPath(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return r == '/' })
}

func joinPath(dir, name string) string {
	if name == "" {
		return dir
	}
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

// isNotDir reports an ENOTDIR lookup failure (a file used as a directory).
func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

// fsRule is one canonical path with the access it grants (grants) or leaves
// (carve-outs).
type fsRule struct {
	Path   string        `json:"path"`
	Access domain.Access `json:"access"`
	// Kind is the snapshot entry kind, or "git_dir" for a git dir found
	// through a ".git" pointer file.
	Kind domain.PathKind `json:"kind"`
	// From is the snapshot path the rule came from (before canonicalisation).
	From string `json:"from,omitempty"`
}

// fsView is a snapshot's filesystem entries, canonicalised: grants are
// additive (the strongest covering grant applies); carve-outs (protected
// paths, per-path deny rules) then narrow their subtree whatever the grants.
type fsView struct {
	grants []fsRule
	carves []fsRule
	// sensitive are the PathSensitive entries: the decision-time checker
	// refuses them (the kernel side masks them by its own means).
	sensitive []sensitiveRule
}

// pathKindGitDir marks a carve-out found through a ".git" pointer file.
const pathKindGitDir domain.PathKind = "git_dir"

// newFSView canonicalises every entry of fp (symlinks resolved; entries that
// do not exist keep their missing components lexically).
func newFSView(fp *domain.FilesystemPolicy) *fsView {
	v := &fsView{}
	for _, e := range fp.Entries {
		p := e.ResolvedPath
		if p == "" {
			p = domain.CleanPath(e.Path)
		}
		if e.Kind == domain.PathSensitive {
			v.sensitive = append(v.sensitive, newSensitiveRule(p))
			continue
		}
		canon, _, ok, err := canonicalPath(domain.CleanPath(p))
		if err != nil || !ok {
			canon = domain.CleanPath(p)
		}
		if e.Kind != domain.PathProtected && e.Access != domain.AccessDeny {
			canon = canonicalRoot(p) // a grant: never a future place chosen by a link
		}
		r := fsRule{Path: canon, Access: e.Access, Kind: e.Kind, From: p}
		switch {
		case e.Kind == domain.PathProtected:
			if r.Access != domain.AccessDeny {
				r.Access = domain.AccessRead
			}
			v.carves = append(v.carves, r)
			if filepath.Base(p) == ".git" {
				v.carves = append(v.carves, gitDirCarves(canon)...)
			}
		case e.Access == domain.AccessDeny:
			v.carves = append(v.carves, r)
		default:
			v.grants = append(v.grants, r)
		}
	}
	return v
}

// gitDirCarves returns the real git dir named by a ".git" pointer file
// ("gitdir: <path>", relative to the file's directory) and, for a worktree,
// the common dir its "commondir" file names. A ".git" directory gives none.
func gitDirCarves(dotGit string) []fsRule {
	gitdir, ok := readPointer(dotGit, "gitdir:")
	if !ok {
		return nil
	}
	if !strings.HasPrefix(gitdir, "/") {
		gitdir = filepath.Dir(dotGit) + "/" + gitdir
	}
	canon, _, ok, err := canonicalPath(domain.CleanPath(gitdir))
	if err != nil || !ok {
		return nil
	}
	out := []fsRule{{Path: canon, Access: domain.AccessRead, Kind: pathKindGitDir, From: dotGit}}
	if common, ok := readPointer(canon+"/commondir", ""); ok {
		if !strings.HasPrefix(common, "/") {
			common = canon + "/" + common
		}
		if c, _, ok, err := canonicalPath(domain.CleanPath(common)); err == nil && ok {
			out = append(out, fsRule{Path: c, Access: domain.AccessRead, Kind: pathKindGitDir, From: canon + "/commondir"})
		}
	}
	return out
}

// readPointer reads the first line of a small regular file (not following a
// symlink at its last component) and returns it without prefix.
func readPointer(path, prefix string) (string, bool) {
	// O_NOFOLLOW|O_NONBLOCK: a symlink or a FIFO swapped in cannot redirect
	// or block the read; only a small regular file is read.
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", false
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 4096 {
		return "", false
	}
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil && line == "" {
		return "", false
	}
	line = strings.TrimSpace(line)
	rest, ok := strings.CutPrefix(line, prefix)
	rest = strings.TrimSpace(rest)
	return rest, ok && rest != ""
}

// accessRank orders accesses: none/deny < read < write.
func accessRank(a domain.Access) int {
	switch a {
	case domain.AccessWrite:
		return 2
	case domain.AccessRead:
		return 1
	default:
		return 0
	}
}

// access returns what the view grants at the canonical path p, and the
// carve-out that narrowed it (nil if none did).
func (v *fsView) access(p string) (domain.Access, *fsRule) {
	best := domain.AccessDeny
	for _, g := range v.grants {
		if domain.PathWithin(p, g.Path) && accessRank(g.Access) > accessRank(best) {
			best = g.Access
		}
	}
	var by *fsRule
	for i, c := range v.carves {
		if domain.PathWithin(p, c.Path) && accessRank(c.Access) < accessRank(best) {
			best, by = c.Access, &v.carves[i]
		}
	}
	return best, by
}

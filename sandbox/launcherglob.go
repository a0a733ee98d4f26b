package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// Patterns a launcher file names in a directory that stays writable.
//
// A launcher file may name files by a pattern (mise's
// `_.source = "*.sh"`, which mise sources into the person's shell when
// they enter the directory). The pattern's matches are kept read-only
// (launcherRef), and so is its directory when it lies below the launcher
// file's own; but a pattern in the project's own directory (or above it)
// leaves the directory writable, the project's, and a new match made
// there ran in the person's shell (the hundred-and-forty-fourth review's
// case, left then). A new match is now refused to a write decision and set
// aside after a command that made it, also of a pattern whose wildcard is
// in an earlier element than the last ("*/env.sh": a new directory with an
// env.sh). A "**" element (any depth, where the tool's glob reads it so)
// is not covered.

// launcherGlob is a pattern in dir (its elements from the first with a
// wildcard on, joined by "/") and the paths below dir that matched it when
// the view was built.
type launcherGlob struct {
	dir, pattern string
	had          []string // sorted
	// py: the modules of a standard library name in dir, a directory
	// python runs in (pyshadow.go), not pattern's matches.
	py bool
}

// maxLauncherGlobElements bounds the elements of a pattern that are
// watched for new matches.
const maxLauncherGlobElements = 8

// launcherGlobAt notes the pattern p (clean, absolute; i is the index of
// its first element with a wildcard) when its directory stays writable.
func (d *discovery) launcherGlobAt(p string, i int, matches []string) {
	els := splitPath(p)
	if i > len(els) || len(els)-i > maxLauncherGlobElements || slices.Contains(els[i:], "**") {
		return
	}
	dir := "/" + strings.Join(els[:i], "/")
	c, exists, ok, err := canonicalPath(dir)
	if err != nil || !ok || !exists || !d.writable(c) {
		return
	}
	pattern := strings.Join(els[i:], "/")
	key := "launcherglob:" + c + "\x00" + pattern
	if d.seen[key] {
		return
	}
	d.seen[key] = true
	g := launcherGlob{dir: c, pattern: pattern}
	for _, m := range matches {
		if rel, ok := strings.CutPrefix(m, strings.TrimSuffix(dir, "/")+"/"); ok {
			g.had = append(g.had, rel)
		}
	}
	slices.Sort(g.had)
	d.v.launcherGlobs = append(d.v.launcherGlobs, g)
}

// newMatch reports whether the clean absolute path p is a match of g that
// it did not have when the view was built.
func (g launcherGlob) newMatch(p string) bool {
	rel, ok := strings.CutPrefix(p, strings.TrimSuffix(g.dir, "/")+"/")
	switch {
	case !ok:
		return false
	case g.py:
		if !pyShadowRel(rel) {
			return false
		}
	case strings.Count(rel, "/") != strings.Count(g.pattern, "/"):
		return false
	default:
		if ok, err := path.Match(g.pattern, rel); err != nil || !ok {
			return false
		}
	}
	_, had := slices.BinarySearch(g.had, rel)
	return !had
}

// depth is the number of elements of g's matches' paths.
func (g launcherGlob) depth() int {
	return len(splitPath(g.dir)) + strings.Count(g.pattern, "/") + 1
}

// launcherGlobRefusal refuses a write decision on p (canonical) that would
// make a new match of a launcher file's pattern.
func (v *fsView) launcherGlobRefusal(p string) *Refusal {
	for _, g := range v.launcherGlobs {
		if g.newMatch(p) && g.py {
			return refuse(CodeWriteRequiresWritable, p, "%s would be a module named as one of Python's standard library's in %s, where a launcher file (.envrc, a task) runs python, which imports it in the library's place: a new one stays the person's to make", p, g.dir)
		}
		if g.newMatch(p) {
			return refuse(CodeWriteRequiresWritable, p, "%s would match %s, a pattern of files a launcher file (mise's _.source, .envrc) names for a host tool to read or run: a new one stays the person's to make", p, joinPath(g.dir, g.pattern))
		}
	}
	return nil
}

// untrustedDir is the directory, in a launcher pattern's directory, that a
// new match is moved into: renamed in place (NAME.turnstile-untrusted) it
// still matched a pattern whose wildcard ends it (mise's _.file =
// ".env*": the hundred-and-forty-ninth review), and a pattern of the last
// element matches nothing below a directory.
const untrustedDir = ".turnstile-untrusted"

// setAsideBelow moves the entry name of the directory dir (below root,
// reached without a symlink) into dir's untrustedDir, under its own name
// (or with a number, then a random part, when that is taken), and
// returns where it is now.
func setAsideBelow(root, dir, name string) (string, error) {
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return "", err
	}
	rfd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", err
	}
	defer unix.Close(rfd)
	how := &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	pfd, err := unix.Openat2(rfd, rel, how)
	if err != nil {
		return "", err
	}
	defer unix.Close(pfd)
	if err := unix.Mkdirat(pfd, untrustedDir, 0o700); err != nil && !errors.Is(err, unix.EEXIST) {
		return "", err
	}
	sfd, err := unix.Openat2(pfd, untrustedDir, how)
	if err != nil {
		return "", err
	}
	defer unix.Close(sfd)
	for i := 0; i < 108; i++ {
		to := name
		switch {
		case i > 99:
			var b [8]byte
			if _, err := unix.Getrandom(b[:], 0); err != nil {
				return "", err
			}
			to = fmt.Sprintf("%.200s.%x", name, b)
		case i > 0:
			to = fmt.Sprintf("%.200s.%d", name, i)
		}
		err := unix.Renameat2(pfd, name, sfd, to, unix.RENAME_NOREPLACE)
		if err == nil {
			return joinPath(joinPath(dir, untrustedDir), to), nil
		}
		if !errors.Is(err, unix.EEXIST) {
			return "", err
		}
	}
	return "", unix.EEXIST
}

// setAsideLauncherMatches sets aside each match of a launcher file's
// pattern that the command made (it did not match when the command
// started).
func (pc *plantCheck) setAsideLauncherMatches() (found []Quarantine) {
	// The shallowest patterns first: a match set aside lies one element
	// deeper, below its directory's untrustedDir, where a deeper pattern
	// (*/*/env.sh, with * reading a dot too) is then judged.
	globs := slices.Clone(pc.launcherGlobs)
	slices.SortStableFunc(globs, func(a, b launcherGlob) int { return a.depth() - b.depth() })
	listed, moved := map[string][]dirent{}, map[string]bool{}
	for _, g := range globs {
		root := pc.rootOf(g.dir)
		if root == "" {
			continue
		}
		if g.py {
			found = append(found, pc.setAsidePyShadows(g, root)...)
			continue
		}
		if strings.Contains(g.pattern, "/") {
			found = append(found, pc.setAsideDeepMatches(g)...)
			continue
		}
		// Every name is read (a directory of more names than the
		// discovery's budget could not hide a match), only the matches
		// kept; a directory once for all its patterns (listed).
		ents, ok := listed[g.dir]
		if !ok {
			var pats []string
			for _, o := range globs {
				if o.dir == g.dir && !o.py && !strings.Contains(o.pattern, "/") {
					pats = append(pats, o.pattern)
				}
			}
			names := 1 << 30
			var err error
			ents, _, err = readDirentsKeep(g.dir, &names, func(name []byte, _ uint8) bool {
				return slices.ContainsFunc(pats, func(pat string) bool {
					ok, err := path.Match(pat, string(name))
					return err == nil && ok
				})
			})
			if err != nil {
				ents = nil
			}
			listed[g.dir] = ents
		}
		for _, e := range ents {
			if p := joinPath(g.dir, e.name); e.name != untrustedDir && !moved[p] && g.newMatch(p) {
				moved[p] = true // matched by two of the directory's patterns: once
				q := Quarantine{Path: p, Reason: "a file the command made that matches a pattern a launcher file names (a host tool reads or runs it)"}
				to, err := setAsideBelow(root, g.dir, e.name)
				if err != nil {
					// Something else at untrustedDir's name (the command's
					// file or link): that is set aside first.
					if _, _, serr := setAsidePath(joinPath(g.dir, untrustedDir), root); serr == nil {
						to, err = setAsideBelow(root, g.dir, e.name)
					}
				}
				found = append(found, settled(q, to, "", err))
			}
		}
	}
	return found
}

// rootOf is the writable root p lies in, or "".
func (pc *plantCheck) rootOf(p string) string {
	for _, r := range pc.roots {
		if domain.PathWithin(p, r) {
			return r
		}
	}
	return ""
}

// setAsideDeepMatches sets aside each match of g, a pattern of more than
// one element, that the command made: the file is moved into its own
// directory's untrustedDir, found where its directories really are (a
// directory of the match may be a link the command made; the file itself
// is not followed).
func (pc *plantCheck) setAsideDeepMatches(g launcherGlob) (found []Quarantine) {
	found = pc.setAsideProcessLinksOf(g)
	matches, err := filepath.Glob(joinPath(g.dir, g.pattern))
	if err != nil {
		return found
	}
	for _, m := range matches {
		if g.newMatch(m) {
			if q, ok := pc.setAsideAt(m, "a file the command made that matches a pattern a launcher file names (a host tool reads or runs it)"); ok {
				found = append(found, q)
			}
		}
	}
	return found
}

// setAsideProcessLinksOf sets aside each link among the directories g's
// pattern passes through (its elements before the last) that leads
// through a process-relative path (x -> /proc/self/cwd): this process's
// glob follows it to its own working directory, the person's tool (mise,
// run in the project) to the project, where the command's file matched
// (the hundred-and-fifty-fourth review).
func (pc *plantCheck) setAsideProcessLinksOf(g launcherGlob) (found []Quarantine) {
	els := strings.Split(g.pattern, "/")
	dirs := []string{g.dir}
	for i := 0; i < len(els)-1 && len(dirs) > 0; i++ {
		var next []string
		for _, d := range dirs {
			ents, err := os.ReadDir(d)
			if err != nil {
				continue
			}
			for _, e := range ents {
				if ok, err := path.Match(els[i], e.Name()); err != nil || !ok {
					continue
				}
				p := joinPath(d, e.Name())
				if e.Type()&fs.ModeSymlink != 0 {
					if _, _, _, err := canonicalPathWalk(p, true); isProcessLink(err) {
						if q, ok := pc.setAsideAt(p, "a link through a process-relative path where a launcher file's pattern looks (a host tool run in the project follows it there)"); ok {
							found = append(found, q)
						}
						continue
					}
				}
				next = append(next, p)
			}
		}
		dirs = next
	}
	return found
}

// setAsideAt moves the entry p (its directory resolved, the entry itself
// not followed) into its directory's untrustedDir (a blocker at that name
// set aside first); ok is false where that directory lies in no writable
// root (nothing there is the command's).
func (pc *plantCheck) setAsideAt(p, reason string) (q Quarantine, ok bool) {
	q = Quarantine{Path: p, Reason: reason}
	dir, exists, resolved, err := canonicalPath(filepath.Dir(p))
	root := pc.rootOf(dir)
	if err == nil && (!resolved || !exists || root == "") {
		return q, false
	}
	moved := ""
	if err == nil {
		moved, err = setAsideBelow(root, dir, filepath.Base(p))
		if err != nil {
			if _, _, serr := setAsidePath(joinPath(dir, untrustedDir), root); serr == nil {
				moved, err = setAsideBelow(root, dir, filepath.Base(p))
			}
		}
	}
	return settled(q, moved, "", err), true
}

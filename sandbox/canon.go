package sandbox

import (
	"bufio"
	"cmp"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// maxSymlinkHops matches the kernel's limit on symlinks followed in one
// lookup (ELOOP after 40).
const maxSymlinkHops = 40

// errSymlinkLoop reports more than maxSymlinkHops links in one lookup.
var errSymlinkLoop = errors.New("too many levels of symbolic links")

// canonicalWalk resolves every symlink of the absolute, clean path abs the
// way the kernel's lookup would, component by component. It returns the
// canonical form of the longest existing prefix and the components after it
// that do not exist (nil when the whole path exists); with an error, the
// canonical prefix it had resolved when the lookup failed. A missing component's
// remainder may still contain "." or ".." taken from a symlink's target.
// With processLinks, a step onto a link whose target depends on the process
// that resolves it is a *processLinkError (the decision-time checks: the
// path is opened by another process).
func canonicalWalk(abs string, processLinks bool) (existing string, missing []string, err error) {
	return walkLinks(abs, processLinks, nil)
}

// linksPassed returns every symlink the lookup of abs passes, each where it
// lies (its directory canonical), in the order the lookup meets them: a
// link whose target passes another link yields both. left are the
// directories the lookup entered and then left by "..", whose place
// decides where it goes as a link's does (vault -> sub/../.vault-data:
// sub).
func linksPassed(abs string) (links, left []string) {
	walkLinks(abs, false, func(p string, link bool) {
		if link {
			links = append(links, p)
		} else {
			left = append(left, p)
		}
	})
	return links, left
}

// LinkChain resolves the absolute path abs as the kernel does (a ".."
// after a link is taken from where the link led, not removed as text) and
// returns every symlink the lookup passes, each where it lies, in the order
// met; the part of the path that exists, every link followed; and the
// names left where a component does not exist. The server's start-up
// checks use it to judge every directory a trusted path's lookup passes.
func LinkChain(abs string) (links []string, existing string, missing []string, err error) {
	existing, missing, err = walkLinks(abs, false, func(p string, link bool) {
		if link {
			links = append(links, p)
		}
	})
	return links, existing, missing, err
}

// walkLinks is canonicalWalk, calling on (when set) with each symlink the
// lookup steps onto (link) and each directory it leaves by ".." (not link).
func walkLinks(abs string, processLinks bool, on func(p string, link bool)) (existing string, missing []string, err error) {
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
			if on != nil && cur != "/" {
				on(cur, false)
			}
			cur = filepath.Dir(cur)
			continue
		}
		next := joinPath(cur, c)
		if processLinks {
			if l, ok := domain.ProcessRelative(next); ok {
				return cur, nil, &processLinkError{link: l}
			}
		}
		fi, err := os.Lstat(next)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return cur, append([]string{c}, todo...), nil
			}
			return cur, nil, err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			if !fi.IsDir() && len(todo) > 0 {
				// The kernel walks no further through a file, ".." and
				// "." included (ENOTDIR): file/../x is no path, and a
				// lexical ".." here told whether a name in a directory
				// the turn may not read existed (the forty-fifth review).
				return next, nil, &fs.PathError{Op: "lstat", Path: joinPath(next, todo[0]), Err: syscall.ENOTDIR}
			}
			cur = next
			continue
		}
		if processLinks && onProcfs(cur) {
			// Every symlink of a procfs is one (self, thread-self,
			// mounts and net lead into self; a process's cwd, root, exe
			// and fd entries are magic links), wherever it is mounted.
			return cur, nil, &processLinkError{link: next}
		}
		if hops++; hops > maxSymlinkHops {
			return cur, nil, errSymlinkLoop
		}
		if on != nil {
			on(next, true)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return cur, nil, err
		}
		if strings.HasPrefix(target, "/") {
			cur = "/"
		}
		todo = append(splitPath(target), todo...)
	}
	return cur, nil, nil
}

// canonicalPath is canonicalWalk for paths that may not exist yet: the missing
// components are appended lexically. ok is false when the remainder climbs
// with ".." through a missing directory (the kernel would fail with ENOENT).
func canonicalPath(abs string) (canon string, exists, ok bool, err error) {
	return canonicalPathWalk(abs, false)
}

// canonicalPathWalk is canonicalPath, refusing process-relative links with
// processLinks (canonicalWalk).
func canonicalPathWalk(abs string, processLinks bool) (canon string, exists, ok bool, err error) {
	canon, _, exists, ok, err = canonicalPathAt(abs, processLinks)
	return canon, exists, ok, err
}

// canonicalPathAt is canonicalPathWalk that also returns, when the path
// cannot be resolved (err, or !ok), the canonical prefix the lookup had
// reached: where it failed.
func canonicalPathAt(abs string, processLinks bool) (canon, at string, exists, ok bool, err error) {
	existing, missing, err := canonicalWalk(abs, processLinks)
	if err != nil {
		return "", existing, false, false, err
	}
	if len(missing) == 0 {
		return existing, "", true, true, nil
	}
	parts := make([]string, 0, len(missing))
	for _, m := range missing {
		switch m {
		case "", ".":
		case "..":
			return "", existing, false, false, nil
		default:
			parts = append(parts, m)
		}
	}
	return joinPath(existing, strings.Join(parts, "/")), "", false, true, nil
}

func splitPath(p string) []string {
	n := 0
	for i := 0; i < len(p); i++ {
		if p[i] != '/' && (i == 0 || p[i-1] == '/') {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]string, 0, n)
	for i := 0; i < len(p); {
		if p[i] == '/' {
			i++
			continue
		}
		j := i
		for j < len(p) && p[j] != '/' {
			j++
		}
		out = append(out, p[i:j])
		i = j
	}
	return out
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

// joinAs is joinPath(pc, base), which is abs itself when pc is dir and
// abs is dir's joinPath with base (a path reached without a link): the
// same string, not another copy of it.
func joinAs(pc, dir, base, abs string) string {
	n := len(dir) + 1 + len(base)
	if dir == "/" {
		n = 1 + len(base)
	}
	if pc == dir && len(abs) == n && strings.HasPrefix(abs, dir) && strings.HasSuffix(abs, base) && abs[n-len(base)-1] == '/' {
		return abs
	}
	return joinPath(pc, base)
}

// isNotDir reports an ENOTDIR lookup failure (a file used as a directory).
func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

// fsRule is one canonical path with the access it grants (grants) or leaves
// (carve-outs).
type fsRule struct {
	Path   string        `json:"path"`
	Access domain.Access `json:"access"`
	// Kind is the snapshot entry kind, or one of the kinds discovery adds
	// (pathKindGitDir, pathKindGitFile).
	Kind domain.PathKind `json:"kind"`
	// From is the snapshot path the rule came from (before canonicalisation).
	From string `json:"from,omitempty"`
	// Reopenable marks a deny carve-out that a more specific grant may
	// reopen (domain.FilesystemEntry.IsReopenable).
	Reopenable bool `json:"reopenable,omitempty"`
	// Pin marks a path that cannot be moved, removed or replaced while its
	// contents keep the access of the grants (Access is write).
	Pin bool `json:"pin,omitempty"`
	// Reserved marks a protected name held when missing (it cannot be
	// created); such a carve-out is read-only.
	Reserved bool `json:"reserved,omitempty"`
	// Overlay marks a read grant the helper mounts as the command's own
	// overlay (domain.FilesystemEntry.Overlay): writable there once
	// mounted (overlay.go), read-only otherwise.
	Overlay bool `json:"overlay,omitempty"`
}

// deniedPath is a deny entry's or a sensitive path's path (fsView.denied).
type deniedPath struct {
	path string
	// sensitive: a credential store, whose contents a host tool reads
	// and may run (a kubeconfig's exec plugin): one made is set aside
	// whatever it holds.
	sensitive bool
}

// fsView is a snapshot's filesystem entries, canonicalised, plus what
// discovery found on disk (every git dir inside a writable root): grants are
// additive (the strongest unshadowed covering grant applies); carve-outs
// (protected paths, deny and sensitive entries) then narrow their subtree;
// pins keep paths in place.
type fsView struct {
	// wsFiles are the workspace files of the directories the view build
	// asked about (workspaceFilesOf).
	wsFiles map[string][]string
	grants  []fsRule
	carves  []fsRule
	pins    []fsRule
	// carveIdx files carves by path (carveindex.go), made once the built
	// view has answered carveScansBeforeIndex lookups by scanning
	// (carveScans counts them); built is set at the end of the build.
	carveIdx   atomic.Pointer[carveIndex]
	carveScans atomic.Int32
	built      bool
	// hostLinks, once set (fixProtectedLinks), is protectedLinks' answer
	// as the host's tree showed it.
	hostLinks *[2][]string
	// denied are the deny entries' and sensitive paths' (patterns
	// included) paths: one missing when a command starts, inside a
	// writable root, that the command made is set aside after it
	// (plantcheck.go watchDenied).
	denied []deniedPath
	// limits are the discovery bounds that were reached (what may have
	// been left unprotected), for the helper's diagnostics.
	limits []string
	// launcherRefWork counts the names launcher files gave that the view
	// build took up (launcherRef past its guard): the work a launcher
	// file the agent writes costs the server, counted for the tests that
	// bound it (review 168) rather than timed.
	launcherRefWork int
	// nested are the ".git" entries the walk found below writable grants.
	nested []string
	// launchers are the launcher files the walk found below writable
	// grants (what they name is kept read-only: protectLauncherRefs), and
	// launcherTargets what the launcher files name that exists there:
	// the helper, which does not walk, is given them (withNested).
	launchers, launcherTargets []string
	// launcherGlobs are the patterns launcher files name in directories
	// that stay writable (launcherglob.go).
	launcherGlobs []launcherGlob
	// nestedItems are the protected list's items in the work trees of
	// nested repositories (protectNestedWorkTrees).
	nestedItems []string
	// nestedMissing are those items that did not exist below a first name
	// that did (or in a work tree that could not be listed);
	// nestedAbsent, by work tree, which of the items' first names
	// (nestedFirsts, each with the first item below it) did.
	nestedMissing []string
	nestedAbsent  []nestedAbsent
	nestedFirsts  [][2]string
	// nestedRels are the items (paths relative to a work tree), and
	// nestedWTs the nested work trees they were looked for in.
	nestedRels []string
	nestedWTs  map[string]bool
	// overlaid are the overlay grants the helper mounted (overlay.go):
	// Landlock gives them write.
	overlaid map[string]bool
	// overflow, when set, is why no command may run with this view: more
	// nested repositories than their items can be protected in
	// (protectNestedWorkTrees).
	overflow string
	// enclosing are the git dirs, outside the writable grants, of the
	// repositories that enclose one (discovery.enclosing).
	enclosing []string
	// linkRefs are paths a git config names, as written and as resolved,
	// whose way passes a symlink in a writable grant.
	linkRefs [][2]string
	// missingRefs are paths in writable grants that a git config names
	// (an include file, a hooks directory) or a launcher file does
	// (launcherrefs.go), and that did not exist.
	missingRefs []string
	// sockets are the unix socket files the walk found below writable
	// grants (prepareSpec masks those a host process listens on).
	sockets []walkedSocket
	// sensitive are the PathSensitive entries: the decision-time checker
	// refuses them by pattern and by file identity too (they are carves
	// as well).
	sensitive []sensitiveRule
	// sensIdx picks the rules of sensitive a path may match, made on
	// first use (sensOnce): a command's helper seldom asks.
	sensIdx  *sensitiveIndex
	sensOnce sync.Once
	// repoRoots are the writable grants whose ".git" the snapshot
	// protects: file tools may not write a repository inside them
	// (repositoryRefusal).
	repoRoots []fsRule
	// agentRoots are the writable grants whose agents' settings
	// directories (.claude, .codex, .agents) the snapshot protects: file
	// tools may not write one below them (agentSettingsRefusal).
	agentRoots []agentSettingsRoot
}

// Kinds of the rules discovery adds.
const (
	// pathKindGitDir is a git dir found on disk (a ".git" directory, the
	// target of a ".git" pointer file, a submodule's or worktree's dir).
	pathKindGitDir domain.PathKind = "git_dir"
	// pathKindGitFile is a file or directory inside a git dir that makes
	// git run a program (config, hooks, info), or a ".git" pointer file;
	// also what a git config or a launcher file names for a program to run
	// (configRefs, protectLauncherRefs).
	pathKindGitFile domain.PathKind = "git_control"
)

// newFSView canonicalises every entry of fp (symlinks resolved; entries that
// do not exist keep their missing components lexically) and discovers the
// git dirs inside its writable grants (see discover), walking each writable
// grant for nested repositories (through walkCache).
func newFSView(fp *domain.FilesystemPolicy) *fsView { return buildFSView(fp, true) }

// buildFSView is newFSView; without walk, only the ".git" entries fp lists
// (and what they lead to) are discovered: the helper gets the walk's
// findings from Run as entries.
func buildFSView(fp *domain.FilesystemPolicy, walk bool) *fsView {
	viewBuilds.Add(1)
	v := &fsView{}
	// About 1.25 keys an entry (their parents are shared; measured: 662
	// keys for the 526 entries of an auto_accept_edits snapshot). The map
	// was sized for two, and its table was a quarter of what a view build
	// allocates: each byte is a fresh page to fault in, in a short-lived
	// program (the helper builds a view for every command).
	memo := make(canonMemo, len(fp.Entries)+len(fp.Entries)/4)
	// The lists sized once (appends that doubled them allocated about
	// twice their final size).
	// A sensitive path is a carve-out only where there is something to
	// mask (a few of them): room for 16.
	nSensitive, nCarves := 0, 16
	for i := range fp.Entries {
		switch e := &fp.Entries[i]; {
		case e.Kind == domain.PathSensitive:
			nSensitive++
		case e.Kind == domain.PathProtected || e.IsCarve():
			nCarves++
		}
	}
	v.sensitive = make([]sensitiveRule, 0, nSensitive)
	v.denied = make([]deniedPath, 0, nSensitive)
	v.carves = make([]fsRule, 0, nCarves)
	lists := dirLists{}
	for _, e := range fp.Entries {
		p := e.ResolvedPath
		if p == "" {
			p = domain.CleanPath(e.Path)
		}
		if e.Kind == domain.PathSensitive || e.Access == domain.AccessDeny {
			// Watched where it leads (a deny named through a link into
			// a root is made by its real name; the link is the
			// person's: the eightieth review).
			d := domain.CleanPath(p)
			if !strings.ContainsAny(d, "*?[") {
				if canon, ok, err := memo.canonical(d); err == nil && ok {
					d = canon
				}
			}
			v.denied = append(v.denied, deniedPath{path: d, sensitive: e.Kind == domain.PathSensitive})
		}
		if e.Kind == domain.PathSensitive {
			// Judged by the decision-time checker (patterns, hard links);
			// a carve-out for the kernel only where there is something
			// to mask (see kernelMasks): for a pattern, each path that
			// matches it now (a home under /home/* that is a root or
			// inside one: its .ssh was readable to the command).
			rule := memo.sensitiveRule(p)
			if strings.Contains(p, "*") {
				for _, a := range lists.linkedMatches(&memo, p) {
					rule.aliases = append(rule.aliases, splitPath(a))
					v.denied = append(v.denied, deniedPath{path: a, sensitive: true})
				}
			}
			rule.fold()
			v.sensitive = append(v.sensitive, rule)
			if strings.Contains(p, "*") {
				for _, m := range lists.sensitiveMatches(memo, p) {
					v.addRule(&memo, e, m)
				}
				continue
			}
			if !memo.kernelMasks(p) {
				continue
			}
		}
		v.addRule(&memo, e, p)
	}
	v.addAboveRootLinks(&memo, fp)
	v.addWorkspaceFolders(&memo)
	v.dropInsideSensitive(memo, lists)
	v.dropPlantedLinks()
	v.repoRoots = repositoryRoots(fp, v.grants)
	v.agentRoots = agentSettingsRoots(fp, v.grants)
	v.discover(walk)
	v.built = true // indexed once it serves lookups (standingIndex)
	return v
}

// dirLists holds the names in each directory one view build listed to
// expand the sensitive patterns: a dozen patterns under /home/* list /home
// once, not once each (filepath.Glob lists every directory on the way,
// each time).
type dirLists map[string][]string

// names returns the names in dir, listed once (none when it cannot be
// listed).
func (l dirLists) names(dir string) []string {
	if ns, ok := l[dir]; ok {
		return ns
	}
	var ns []string
	if f, err := openDir(dir); err == nil {
		ns, _ = f.Readdirnames(-1)
		f.Close()
	}
	slices.Sort(ns)
	l[dir] = ns
	return ns
}

// viewBuilds counts the views this process built (for tests).
var viewBuilds atomic.Int64

// sensitiveMatches returns the paths a sensitive pattern ("*" for one
// element) matches now that kernelMasks would mask, sorted; none under
// /proc (the PID namespace's own procfs holds no other process). An element
// with a pattern character is matched against the names in its directory
// (filepath.Match); the others are joined as they are, and kernelMasks
// keeps only what exists.
func (l dirLists) sensitiveMatches(memo canonMemo, pattern string) []string {
	if domain.PathWithin(pattern, "/proc") {
		return nil
	}
	paths := l.expand(splitPath(domain.CleanPath(pattern)))
	out := paths[:0]
	for _, m := range paths {
		if memo.kernelMasks(m) {
			out = append(out, m)
		}
	}
	return out
}

// linkedMatches returns, for a sensitive pattern, where each match of its
// elements up to the last wildcard one leads when that is elsewhere (a
// home that is a symlink, /home/alice -> /data/alice, or every home under
// a /home that is one), joined with the rest: the same store under its
// real path (the eighty-first review: a write decision by the real path
// passed, and the check after a command never watched it). At most
// maxWatchedMatches matches are looked at.
func (l dirLists) linkedMatches(memo *canonMemo, pattern string) []string {
	els := splitPath(domain.CleanPath(pattern))
	last := -1
	for i, el := range els {
		if hasGlobMeta(el) {
			last = i
		}
	}
	if last < 0 || domain.PathWithin(pattern, "/proc") {
		return nil
	}
	rest := strings.Join(els[last+1:], "/")
	var out []string
	ms := l.expand(els[:last+1])
	for _, m := range ms[:min(len(ms), maxWatchedMatches)] {
		if c, ok, err := memo.canonical(m); err == nil && ok && c != m {
			out = append(out, domain.CleanPath(c+"/"+rest))
		}
	}
	return out
}

// expand returns the paths whose elements match els (a wildcard element
// matched against the names listed in each directory).
func (l dirLists) expand(els []string) []string {
	last := -1
	for i, el := range els {
		if hasGlobMeta(el) {
			last = i
		}
	}
	// The elements after the last pattern are joined once to each match
	// (a store's path under every home: /home/*/.config/sops/age/keys.txt).
	tail := strings.Join(els[last+1:], "/")
	els = els[:last+1]
	paths := []string{"/"}
	for _, el := range els {
		var next []string
		for _, dir := range paths {
			if !hasGlobMeta(el) {
				next = append(next, joinPath(dir, el))
				continue
			}
			for _, n := range l.names(dir) {
				if ok, err := filepath.Match(el, n); err != nil {
					return nil
				} else if ok {
					next = append(next, joinPath(dir, n))
				}
			}
		}
		if paths = next; len(paths) == 0 {
			return nil
		}
	}
	for i, p := range paths {
		paths[i] = joinPath(p, tail)
	}
	return paths
}

// hasGlobMeta reports whether el holds a character filepath.Match treats
// as a pattern.
func hasGlobMeta(el string) bool { return strings.ContainsAny(el, `*?[\`) }

// addRule adds the rule for entry e at the clean path p.
func (v *fsView) addRule(memo *canonMemo, e domain.FilesystemEntry, p string) {
	canon, ok, err := memo.canonical(domain.CleanPath(p))
	if err != nil || !ok {
		canon = domain.CleanPath(p)
	}
	if e.Kind != domain.PathProtected && e.Access != domain.AccessDeny {
		canon = memo.root(p) // a grant: never a future place chosen by a link
	}
	if e.Within != "" && e.Access != domain.AccessDeny && !domain.PathWithin(canon, e.Within) {
		// A root bound to an operator's allowed root that now leads out of
		// it (a directory on its path replaced by a symlink): not granted.
		return
	}
	if e.LedTo != "" && e.Access != domain.AccessDeny && canon != e.LedTo {
		// A root that leads elsewhere than when the turn started (its link
		// pointed into a deny the start judged it against): not granted.
		return
	}
	r := fsRule{Path: canon, Access: e.Access, Kind: e.Kind, From: p, Overlay: e.Overlay && e.Access == domain.AccessRead && !e.IsCarve()}
	switch {
	case e.Kind == domain.PathProtected && e.Reserved && placeholderOrMissing(canon):
		// Held (or to be held) empty: read-only, nothing may be
		// created there. A name whose directory is missing too (a
		// dangling .claude -> dotfiles/claude) is held at the first
		// missing directory on its way: holding the name alone left the
		// command to make its directories and then the name (the
		// sixty-second review).
		stop, _, _ := memo.canonical(domain.CleanPath(filepath.Dir(p)))
		r.Path = firstMissing(canon, stop)
		r.Access, r.Reserved = weaker(r.Access, domain.AccessRead), true
		v.carves = append(v.carves, r)
	case e.Kind == domain.PathProtected && e.Access == domain.AccessWrite:
		r.Pin = true
		v.pins = append(v.pins, r)
	case e.Kind == domain.PathProtected:
		if r.Access != domain.AccessDeny {
			r.Access = domain.AccessRead
		}
		v.carves = append(v.carves, r)
	case e.IsCarve():
		r.Access, r.Reopenable = domain.AccessDeny, e.IsReopenable()
		v.carves = append(v.carves, r)
	default:
		v.grants = append(v.grants, r)
	}
}

// canonMemo canonicalises paths that share parent directories (the
// protected entries of one root, the sensitive paths under a few homes)
// resolving each directory once: the entries of a snapshot then cost one
// lstat each, not one per path element. It maps a clean absolute path to
// canonicalPath's answer for it. A memo lives for one pass over a
// snapshot's entries (one view being built, one list being made), never
// across a change the pass itself makes.
type canonMemo map[string]canonAnswer

// canonAnswer is canonicalPath's answer for one path. The memo keeps,
// under "\x00" and a canonical directory (no path's key), what the pass
// asked about that directory's names: how many (asked), and once that
// reached listAfter, its listing (names) or that it has none (unlisted).
type canonAnswer struct {
	canon string
	err   error
	names map[string]uint32
	asked int32
	// (the flags last: 48 bytes an answer, the memo's bulk)
	exists, ok, unlisted bool
}

// listAfter is how many names of one directory a pass asks about before
// it lists the directory and answers the rest from the listing: a
// writable root, where the protected list asks about 84 names and most
// are missing.
const listAfter = 16

// child returns the S_IFMT bits of the entry name of the existing
// canonical directory dir (0 and ENOENT when missing), looked up
// (lstat) or, once the pass has asked about listAfter names there, read
// from the directory's listing (readListing).
func (m canonMemo) child(dir, name string) (uint32, error) {
	key := "\x00" + dir
	st := m[key]
	if st.names == nil && !st.unlisted {
		if st.asked++; st.asked >= listAfter {
			st.names, st.unlisted = nil, true
			if types, ok := readListing(dir); ok {
				st.names, st.unlisted = types, false
			}
		}
		m[key] = st
	}
	if st.names != nil {
		if t, in := st.names[name]; in {
			return t, nil
		}
		return 0, unix.ENOENT
	}
	var sb unix.Stat_t
	if err := unix.Lstat(joinPath(dir, name), &sb); err != nil {
		return 0, err
	}
	return sb.Mode & unix.S_IFMT, nil
}

// path is canonicalPath(abs) for a clean absolute path, resolving abs's
// parent through the memo: below a missing parent the rest is lexical, as
// canonicalPath gives it.
func (m canonMemo) path(abs string) (canon string, exists, ok bool, err error) {
	if abs == "/" {
		return abs, true, true, nil
	}
	if a, found := m[abs]; found {
		return a.canon, a.exists, a.ok, a.err
	}
	var a canonAnswer
	dir, base := filepath.Dir(abs), filepath.Base(abs)
	pc, pexists, pok, perr := m.path(dir)
	full := ""
	if perr == nil && pok {
		full = joinAs(pc, dir, base, abs)
	}
	switch {
	case perr != nil || !pok:
		a.err = perr
	case !pexists:
		a = canonAnswer{canon: full, ok: true}
	default:
		typ, lerr := m.child(pc, base)
		switch {
		case lerr == nil && typ != unix.S_IFLNK:
			a = canonAnswer{canon: full, exists: true, ok: true}
		case lerr == unix.ENOENT:
			a = canonAnswer{canon: full, ok: true}
		default: // a symlink, or an error to report
			a.canon, a.exists, a.ok, a.err = canonicalPath(full)
		}
	}
	m[abs] = a
	return a.canon, a.exists, a.ok, a.err
}

// canonical is canonicalPath(abs) (without the exists result).
func (m canonMemo) canonical(abs string) (string, bool, error) {
	c, _, ok, err := m.path(abs)
	return c, ok, err
}

// placeholderOrMissing reports whether p does not exist or is an empty
// directory (a held name, or one nothing uses yet).
// firstMissing returns the topmost directory on the way to the clean
// absolute path p that is missing or a hold's placeholder (the helper sees
// the one the server made for it), or p itself when there is none; never
// stop (the name's own directory, a root that does not exist yet) nor one
// above it.
func firstMissing(p, stop string) string {
	for {
		d := filepath.Dir(p)
		if d == p || d == stop || domain.PathWithin(stop, d) {
			return p
		}
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) && !isHeld(d) {
			return p
		}
		p = d
	}
}

func placeholderOrMissing(p string) bool {
	fi, err := os.Lstat(p)
	if err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	if !fi.IsDir() {
		return false
	}
	f, err := openDir(p)
	if err != nil {
		return false
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	return len(names) == 0 && errors.Is(err, io.EOF)
}

// readPointer reads the first line of a small regular file (not following a
// symlink at its last component) and returns it without prefix.
func readPointer(path, prefix string) (string, bool) {
	f, size, ok := openRegular(path)
	if !ok {
		return "", false
	}
	defer f.Close()
	if size > 4096 {
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

// openRegular opens path for reading only if it is a regular file, not
// following a symlink at its last component: O_NOFOLLOW|O_NONBLOCK, so a
// symlink or a FIFO swapped in cannot redirect or block the read. It
// returns the file and its size.
func openRegular(path string) (*os.File, int64, bool) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, 0, false
	}
	f := os.NewFile(uintptr(fd), path)
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, false
	}
	return f, fi.Size(), true
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
// carve-out or pin that narrowed it (nil if none did). It follows
// domain.AccessAt: the strongest grant no reopenable deny shadows, capped by
// every other carve-out covering p. A pinned path itself (not what lies
// below it) cannot be written as a whole: it is read-only.
func (v *fsView) access(p string) (domain.Access, *fsRule) {
	best := domain.AccessDeny
	var by *fsRule
	var buf [32]int32
	cov := v.covering(p, buf[:0])
	for _, g := range v.grants {
		if !domain.PathWithin(p, g.Path) || accessRank(g.Access) <= accessRank(best) {
			continue
		}
		if d := v.shadowAmong(&g, p, cov); d != nil {
			by = d
			continue
		}
		best = g.Access
	}
	if best != domain.AccessDeny {
		by = nil
	}
	for i, c := range v.carvesAmong(cov) {
		if !c.Reopenable && domain.PathWithin(p, c.Path) && accessRank(c.Access) < accessRank(best) {
			best, by = c.Access, &v.carves[v.carveAt(cov, i)]
		}
	}
	if best == domain.AccessWrite {
		for i, c := range v.pins {
			if c.Path == p {
				best, by = domain.AccessRead, &v.pins[i]
			}
		}
	}
	return best, by
}

// linked reports whether the rule's path passed a symlink (its snapshot
// path is not where it leads).
func (r *fsRule) linked() bool { return r.From != "" && domain.CleanPath(r.From) != r.Path }

// shadowAmong returns the reopenable deny that lies at or below grant and covers
// p (the grant does not apply at p), or nil. A grant whose path passes a
// symlink (a root the runtime named through a link) reopens nothing: every
// reopenable deny covering p shadows it, also one above it (a link into a
// denied directory, named as a project root or pointed there after the
// turn started, reopened it: the forty-ninth review).
//
// cov is v.covering(p) (nil: scan every carve-out).
func (v *fsView) shadowAmong(grant *fsRule, p string, cov []int32) *fsRule {
	for i, d := range v.carvesAmong(cov) {
		if d.Reopenable && domain.PathWithin(p, d.Path) && (domain.PathWithin(d.Path, grant.Path) || grant.linkedInto(&d)) {
			return &v.carves[v.carveAt(cov, i)]
		}
	}
	return nil
}

// linkedInto reports whether the grant, whose path passes a symlink, lies
// inside the deny d only through a link: a grant written inside d's own
// written path, below it by the same names as where both lead (a home
// reached through a link, /home -> var/home, with a deny and its reopening
// inside the workspace), reopens d as any grant does (the fifty-second
// review found that denied).
func (r *fsRule) linkedInto(d *fsRule) bool {
	if !r.linked() || !domain.PathWithin(r.Path, d.Path) {
		return false
	}
	gw, dw := domain.CleanPath(r.From), domain.CleanPath(cmp.Or(d.From, d.Path))
	if !domain.PathWithin(gw, dw) {
		return true
	}
	return strings.TrimPrefix(gw, dw) != strings.TrimPrefix(r.Path, d.Path)
}

// gitPointer reads a ".git" file's git dir as git does (setup.c,
// read_gitfile_gently): the whole file (at most 4096 bytes here), which
// must begin "gitdir: ", less its trailing newlines and carriage returns,
// and nothing else trimmed: "gitdir: lnk " names "lnk " to git, and a
// second line is part of the path. readPointer's reading (the first line,
// blanks trimmed) judged a decoy "lnk" while git followed "lnk " (the
// hundred-and-twenty-seventh review).
func gitPointer(path string) (string, bool) {
	f, size, ok := openRegular(path)
	if !ok {
		return "", false
	}
	defer f.Close()
	if size > 4096 {
		return "", false
	}
	b, err := io.ReadAll(io.LimitReader(f, 4097))
	if err != nil || len(b) > 4096 {
		return "", false
	}
	s := strings.TrimRight(string(b), "\r\n")
	rest, ok := strings.CutPrefix(s, "gitdir: ")
	if !ok || rest == "" || strings.ContainsRune(rest, 0) {
		return "", false
	}
	return rest, true
}

package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"turnstile/domain"
)

// Bounds of the discovery of git dirs inside writable roots. A git dir
// deeper than maxDiscoveryDepth directories below a writable root, or found
// only after maxDiscoveryDirs directories of that root were listed, is not
// protected (the bound reached is recorded in fsView.limits).
const (
	maxDiscoveryDepth = 6
	maxDiscoveryDirs  = 4096
	// maxSubmodules bounds the submodule paths read from one .gitmodules,
	// maxGitmodulesSize its size, maxSubmoduleDepth the nesting of
	// submodules and of module git dirs.
	maxSubmodules     = 256
	maxGitmodulesSize = 64 << 10
	maxSubmoduleDepth = 8
)

// gitControl are the entries of a git dir that make git run a program:
// they stay read-only while the rest of the git dir stays writable.
// "commondir" names the dir git takes its config from (a hostile one would
// bring its own core.fsmonitor).
var gitControl = []string{"config", "config.worktree", "hooks", "info", "commondir"}

// gitHeldDirs are the gitControl directories held (created empty, read-only)
// when a git dir lacks them, so that a hook cannot be planted.
var gitHeldDirs = []string{"hooks", "info"}

// discovery finds every git dir git would use inside the view's writable
// grants: ".git" directories and pointer files (with the git dirs and common
// dirs they name), submodules (from .gitmodules and the modules/ dir of a
// git dir) and nested repositories (a bounded walk).
type discovery struct {
	v    *fsView
	seen map[string]bool
	// parsed memoizes gitConfigRefs by file: the global configs are
	// read for every repository.
	parsed map[string][]gitConfigRef
	// listings are the names of the directories launcher patterns were
	// globbed in (glob), and patterns how many were.
	listings map[string][]string
	patterns int
	globWork int
	// direnvRun are the runners the person's direnv libraries define,
	// read once (direnvRead).
	direnvRun  []string
	direnvRead bool
	// launcherBudget is what is left of maxLauncherBytes for the view
	// (spendLauncherBytes).
	launcherBudget int
	// launcherPaths counts launcherPath's lookups (maxLauncherPaths).
	launcherPaths int
	// dirLinkEntries counts the entries keepDirLinks read
	// (maxDirLinkEntries).
	dirLinkEntries int
	// resolvedNames counts the names watched with the extensions an
	// interpreter adds (maxResolvedNamesAll), fileResolved those of the
	// launcher file being read (maxResolvedNames).
	resolvedNames, fileResolved int
}

// discover adds the pins and carve-outs of every git dir inside a writable
// grant: those of the ".git" entries the view lists and, with walk, of
// every ".git" a bounded walk of each writable grant finds.
func (v *fsView) discover(walk bool) {
	d := &discovery{v: v, seen: map[string]bool{}}
	// Last: the launcher files among every carve-out made below.
	defer d.protectLauncherRefs()
	for _, p := range v.pins {
		if filepath.Base(p.Path) == ".git" || filepath.Base(p.From) == ".git" {
			d.dotGit(p.Path, 0)
		}
	}
	for _, g := range v.grants {
		if g.Access == domain.AccessWrite && g.Kind != domain.PathDevice {
			d.enclosing(g.Path)
			d.jjPointer(joinPath(g.Path, ".jj/repo"))
			d.bazelRoot(g.Path)
		}
	}
	if !walk {
		return
	}
	for _, g := range v.grants {
		if g.Access != domain.AccessWrite || g.Kind == domain.PathDevice {
			continue
		}
		w := walkCache.get(g.Path, walkRoot)
		found := w.found
		if len(w.limits) > 0 {
			var deep []string
			found, deep = withKnownDotGits(g.Path, found)
			v.limits = append(v.limits, deep...)
		}
		v.limits = append(v.limits, w.limits...)
		v.sockets = append(v.sockets, w.sockets...)
		v.launchers = append(v.launchers, w.launchers...)
		for _, dir := range w.bazelDirs {
			if d.writable(dir) {
				d.bazelWrapper(dir)
			}
		}
		if w.launcherOverflow && v.overflow == "" {
			// What the files past the bound name would stay writable
			// (the agent can make thousands where the walk lists them
			// first): the command is refused, as past the nested
			// repositories' bound (the hundred-and-forty-first review).
			v.overflow = fmt.Sprintf("the writable root %s holds more than %d launcher and toolchain files: what they name cannot all be kept read-only", g.Path, maxWalkLaunchers)
		}
		for _, p := range found {
			if d.writable(p) {
				v.nested = append(v.nested, p)
				d.dotGit(p, 0)
				d.bazelWrapper(filepath.Dir(p))
			}
		}
	}
	v.protectNestedWorkTrees()
}

// maxNestedWorkTrees bounds the nested repositories whose work trees get
// the protected list's read-only items (protectNestedWorkTrees). Past it a
// command is refused (fsView.overflow) rather than run with some of them
// left writable: the agent can make empty ".git" entries at will, where the
// walk finds them first, and a bound that left the rest writable let it
// crowd the person's repositories out.
const maxNestedWorkTrees = 4096

// protectNestedWorkTrees keeps read-only, in the work tree of each nested
// repository the walk found, the protected list's read-only items that
// exist there, and notes those missing, to be set aside when a command
// makes them, as at a writable root: the hooks a person installed in that
// repository (pre-commit's, lefthook's) read its .pre-commit-config.yaml
// or lefthook.yml on their next commit there, and its editor and agent
// settings are read when it is opened as a project. The items are those
// the snapshot protects at a writable root (a profile's list included),
// less the git dir's, which discovery protects on its own, and the
// server's own files and the root's workspace files (withOwnPrograms,
// withWorkspaceFiles), which name no item of the list. Each work tree is
// listed once (within a budget of names, as the walk is; past it, each
// item is looked up), and only the items whose first name it holds are
// looked up; the first names it does not hold are noted, and the check
// after the command lists it again for them (nestedAbsent): a lookup of
// each item in thousands of work trees the agent made took seconds a
// spawn.
func (v *fsView) protectNestedWorkTrees() {
	if len(v.nested) == 0 {
		return
	}
	if len(v.nested) > maxNestedWorkTrees {
		v.overflow = fmt.Sprintf("the writable roots hold %d nested repositories, more than the %d whose tool settings can be kept read-only", len(v.nested), maxNestedWorkTrees)
		return
	}
	var rels []string
	seen := map[string]bool{}
	own := ownFileList()
	for _, c := range v.carves {
		if c.Kind != domain.PathProtected || c.Access != domain.AccessRead || slices.Contains(own, c.Path) {
			// (The server's own files are no tool's settings.)
			continue
		}
		for _, g := range v.grants {
			if g.Access != domain.AccessWrite || g.Kind == domain.PathDevice {
				continue
			}
			// The item as the list names it (From, below the root as
			// given) as well as where it leads: a root's .claude that is
			// a symlink to the person's dotfiles has its carve-outs
			// outside the root, and .claude/settings.json is still an
			// item of every nested work tree.
			for _, pr := range [][2]string{{c.Path, g.Path}, {c.From, g.From}, {c.From, g.Path}} {
				p, root := pr[0], pr[1]
				if p == "" || root == "" || p == root || !domain.PathWithin(p, root) {
					continue
				}
				rel := strings.TrimPrefix(p, strings.TrimSuffix(root, "/")+"/")
				if first, _, _ := strings.Cut(rel, "/"); first == ".git" || seen[rel] || namedFile(rel) {
					continue
				}
				seen[rel] = true
				rels = append(rels, rel)
			}
		}
	}
	// The first names of the items, each with the first item below it.
	var firsts [][2]string
	index := map[string]int{}
	for _, rel := range rels {
		first, _, _ := strings.Cut(rel, "/")
		if _, ok := index[first]; !ok {
			index[first] = len(firsts)
			firsts = append(firsts, [2]string{first, rel})
		}
	}
	v.nestedFirsts, v.nestedRels, v.nestedWTs = firsts, rels, map[string]bool{}
	names := maxDiscoveryNames
	doneWT := map[string]bool{}
	for _, g := range v.grants {
		if g.Access == domain.AccessWrite && g.Kind != domain.PathDevice {
			doneWT[g.Path] = true // a root's items are its own list's
		}
	}
	for _, p := range v.nested {
		wt := filepath.Dir(p)
		if doneWT[wt] {
			continue
		}
		doneWT[wt] = true
		v.nestedWTs[wt] = true
		var present map[string]bool // nil: not listed, each item looked up
		var top map[string]bool     // the listing's names, for its workspace files
		if ents, _, err := readDirents(wt, &names); err == nil {
			present, top = map[string]bool{}, make(map[string]bool, len(ents))
			for _, e := range ents {
				top[e.name] = true
				if _, ok := index[e.name]; ok {
					present[e.name] = true
				}
			}
			// The check after the command lists the work tree again
			// for the first names it did not hold (setAsideNestedCreated).
			na := nestedAbsent{wt: wt}
			for n := range present {
				na.had = append(na.had, index[n])
			}
			v.nestedAbsent = append(v.nestedAbsent, na)
		}
		for _, rel := range rels {
			first, _, _ := strings.Cut(rel, "/")
			if present != nil && !present[first] {
				continue
			}
			q := joinPath(wt, rel)
			if !entryExists(q) {
				// One the command makes is set aside after it, as at a
				// root (newPlantCheck watches it).
				v.nestedMissing = append(v.nestedMissing, q)
				continue
			}
			if a, _ := v.access(q); a != domain.AccessWrite {
				continue
			}
			v.carves = append(v.carves, fsRule{Path: q, Access: domain.AccessRead, Kind: domain.PathProtected, From: q})
			v.nestedItems = append(v.nestedItems, q)
		}
		v.protectNestedWorkspaceFiles(wt, top)
	}
}

// protectNestedWorkspaceFiles keeps read-only the workspace files
// (namedFiles: a VS Code workspace file, a mise config for an
// environment) at the top of the nested work tree wt, as at a root: VS
// Code offers to open one in a folder the person opens, and mise reads
// one there. A symlink is pinned and what it leads to kept read-only.
// top is wt's listing (nil: not listed), which spares the lookups of
// directories it does not hold.
func (v *fsView) protectNestedWorkspaceFiles(wt string, top map[string]bool) {
	for _, rel := range workspaceFilesIn(wt, top) {
		q := joinPath(wt, rel)
		fi, err := os.Lstat(q)
		if err != nil || !fi.Mode().IsRegular() && fi.Mode()&os.ModeSymlink == 0 {
			continue
		}
		c := q
		if fi.Mode()&os.ModeSymlink != 0 {
			if cc, _, ok, err := canonicalPath(q); err == nil && ok {
				c = cc
			}
		}
		v.carves = append(v.carves, fsRule{Path: c, Access: domain.AccessRead, Kind: domain.PathProtected, From: q})
		v.nestedItems = append(v.nestedItems, q)
	}
}

// missingRefRefusal refuses a write decision on p (canonical) when p is,
// or lies below, a path a held repository's config names that did not
// exist (missingRefs: a core.hooksPath directory, an include file, a
// core.fsmonitor program): one a command makes is set aside after it, but a
// runtime's own write is followed by no check, and git runs or reads it.
func (v *fsView) missingRefRefusal(p string) *Refusal {
	for _, m := range v.missingRefs {
		if domain.PathWithin(p, m) {
			return refuse(CodeWriteRequiresWritable, p, "%s is named by a repository's git config (hooks, an include or a program git runs) or a launcher file (a yarnPath, an SDK or toolchain path, a program or agent a tool runs) and does not exist: it stays the person's to make", m)
		}
	}
	return nil
}

// nestedItemRefusal refuses a write decision on p (canonical) when p is,
// or lies below, an item of the protected list in the work tree of a
// nested repository (protectNestedWorkTrees): one that exists is kept
// read-only, and one a command makes is set aside after it, but a
// runtime's own write is followed by no check.
func (v *fsView) nestedItemRefusal(p string) *Refusal {
	if len(v.nestedWTs) == 0 {
		return nil
	}
	for wt := filepath.Dir(p); wt != "/" && wt != "."; wt = filepath.Dir(wt) {
		if !v.nestedWTs[wt] {
			continue
		}
		rel := strings.TrimPrefix(p, wt+"/")
		if namedFile(rel) {
			return refuse(CodeWriteRequiresWritable, p, "a file a host program runs from (a VS Code workspace file, a mise config for an environment) at the top of the work tree of the nested repository at %s stays the person's", wt)
		}
		for _, item := range v.nestedRels {
			if domain.PathWithin("/"+rel, "/"+item) {
				return refuse(CodeWriteRequiresWritable, p, "a tool setting of the protected list in the work tree of the nested repository at %s stays the person's (a host program reads it there)", wt)
			}
		}
		// Every work tree above, not only the nearest: a repository
		// the agent made at vendor/lib/mise would otherwise hide
		// vendor/lib's mise/config.toml.
	}
	return nil
}

// nestedAbsent is a nested repository's work tree and the first names of
// the protected list's items that it held (indices into
// fsView.nestedFirsts): the others were missing.
type nestedAbsent struct {
	wt, root string // root: the writable root it lies in (newPlantCheck)
	had      []int
}

// withKnownDotGits returns found, the ".git" entries the walk of root
// found before it reached a bound, with those it did not reach that the
// last check for planted repositories in this process met (knownDotGits),
// or, before any check of root, a walk within that check's bound of
// directories found: the agent can spend the walk's bounds with
// directories and names of its own where the walk lists them first, and
// the person's repositories beyond them were left unprotected. The bounds
// that walk reaches are returned as limits (the agent can reach them too,
// with a million long names).
func withKnownDotGits(root string, found []string) (out, limits []string) {
	// Those the last check met at any depth: the bound of this walk is
	// its cost's, not a repository's (the hundred-and-thirty-seventh
	// review's vendored checkout seven levels down).
	known, ok := knownDotGits(root, maxPlantDepth)
	if !ok {
		w := walkCache.get(root+"\x00deep", func(string) walkResult {
			return walkTreeWithin(root, false, nil, maxPlantDirs, maxDiscoveryDepth, 8*maxDiscoveryNames)
		})
		known = w.found
		// Its own bounds reached are reported with the first walk's:
		// repositories beyond them keep no tool settings read-only.
		for _, l := range w.limits {
			limits = append(limits, l+" (the walk past the first bound)")
		}
	}
	in := make(map[string]bool, len(found))
	for _, p := range found {
		in[p] = true
	}
	out = slices.Clone(found)
	for _, p := range known {
		// (The check's may be gone since: its work tree's items would
		// be watched as missing, the work tree with them.)
		if !in[p] && entryExists(p) {
			in[p] = true
			out = append(out, p)
		}
	}
	return out, limits
}

// writable reports whether p lies in a writable grant and is not hidden or
// made read-only by a carve-out (nothing there needs protecting).
func (d *discovery) writable(p string) bool {
	a, _ := d.v.access(p)
	return a == domain.AccessWrite || d.v.isPinned(p)
}

func (v *fsView) isPinned(p string) bool {
	for _, c := range v.pins {
		if c.Path == p {
			return true
		}
	}
	return false
}

// dotGit handles a ".git" entry: a directory is a git dir; a pointer file
// ("gitdir: <path>") is kept read-only and the git dir it names is
// protected; a symlink's target is protected like a directory. The
// submodules of the work tree around it are handled too.
func (d *discovery) dotGit(p string, depth int) {
	if d.seen[p] || depth > maxSubmoduleDepth || !d.writable(p) {
		return
	}
	d.seen[p] = true
	fi, err := os.Lstat(p)
	if err != nil {
		return
	}
	switch {
	case fi.IsDir() && placeholderOrMissing(p):
		// An empty directory is no repository (git does not take it for
		// one): nothing runs from it. It may be a name another command
		// holds (hold.go), which that command's release must find empty
		// to remove: no names are held inside it.
	case fi.IsDir():
		d.gitDir(p, "", depth)
		d.configRefs(p, filepath.Dir(p))
	case fi.Mode().IsRegular():
		d.addCarve(p, pathKindGitFile)
		target, ok := gitPointer(p)
		if !ok {
			break
		}
		if !strings.HasPrefix(target, "/") {
			target = filepath.Dir(p) + "/" + target
		}
		// Resolved as git and the kernel do, ".." after a link taken from
		// the link's target (gitdir: lnk/../real; the sixty-sixth review),
		// not cleaned as text first.
		if c, exists, ok, err := canonicalPath(target); err == nil && ok && exists {
			// Pinned with the pointer's path as git opens it, so that
			// every link on its way is pinned too (the sixty-second
			// review: gitdir: ../gd/real, gd -> store, re-pointed).
			d.gitDir(c, target, depth)
			d.configRefs(c, filepath.Dir(p))
		}
	case fi.Mode()&os.ModeSymlink != 0:
		if c, exists, ok, err := canonicalPath(p); err == nil && ok && exists {
			if st, err := os.Stat(c); err == nil && st.IsDir() {
				d.gitDir(c, p, depth)
				d.configRefs(c, filepath.Dir(p))
			}
		}
	}
	d.submodules(filepath.Dir(p), depth)
}

// gitDir pins the canonical git dir g, keeps its control files read-only,
// and follows its common dir (a linked worktree), its linked worktrees'
// dirs and its modules/ (the git dirs of submodules).
// from, when set, is the path git opens it by (a pointer's target, a
// link, a commondir's path; ".." kept): the links on its way are pinned.
func (d *discovery) gitDir(g, from string, depth int) {
	if d.seen["dir:"+g] {
		// Reached again by another way (a worktree's pointer through a
		// link, after the root's own worktrees/ listed it): the links on
		// this way are pinned too (the sixty-sixth review).
		if from != "" && !d.seen["from:"+g+"\x00"+from] {
			d.seen["from:"+g+"\x00"+from] = true
			d.v.pins = append(d.v.pins, fsRule{Path: g, Access: domain.AccessWrite, Kind: pathKindGitDir, Pin: true, From: from})
		}
		return
	}
	if depth > maxSubmoduleDepth {
		return
	}
	d.seen["dir:"+g] = true
	d.seen["from:"+g+"\x00"+from] = true
	d.v.pins = append(d.v.pins, fsRule{Path: g, Access: domain.AccessWrite, Kind: pathKindGitDir, Pin: true, From: from})
	for _, n := range gitControl {
		d.addCarve(joinPath(g, n), pathKindGitFile)
	}
	if c, from, ok := commonDirFrom(g); ok {
		d.gitDir(c, from, depth+1)
	}
	for _, sub := range []string{"worktrees", "modules"} {
		d.moduleDirs(joinPath(g, sub), sub == "modules", depth+1)
	}
}

// configRefs keeps read-only what the config of the git dir g makes git run
// or read from elsewhere: the core.hooksPath directory (husky and the like
// put it in the work tree; for husky 9's DIR/_, DIR too, whose scripts its
// stubs run), a core.fsmonitor program given as a path, and
// the files [include] and [includeIf] sections name, and what those files
// name in turn, as deep as git follows them. The config is what git reads
// for a work tree of g: g's config and config.worktree, and the config of
// the common dir g names (a linked worktree's admin dir has none of its
// own). Relative hook and monitor paths are taken from the work tree,
// include paths from the including file's directory, "~/" from this
// process's home. A path that does not exist yet is remembered
// (missingRefs): the command may not leave it behind (setAsideCreated).
// Only paths in a writable root need it: the others are read-only
// already. So is each path a command the config gives git to run names,
// a filter's, a signing program's, an editor's … (gitProgramKey): its
// program, or a script it runs, where that is a file.
func (d *discovery) configRefs(g, worktree string) {
	files := []string{joinPath(g, "config"), joinPath(g, "config.worktree")}
	if common, ok := commonDirOf(g); ok && common != g {
		files = append(files, joinPath(common, "config"))
	}
	// And the person's global and the system config, which git reads
	// for every repository: a hooks path given there relative
	// (core.hooksPath = .githooks) is each work tree's.
	files = append(files, globalGitConfigs()...)
	worktrees := append([]string{worktree}, coreWorktreesOf(g, worktree)...)
	for _, f := range files {
		for _, wt := range worktrees {
			d.configFileRefs(f, filepath.Dir(f), wt, 0)
		}
	}
}

// coreWorktreesOf returns the work trees other than worktree that the
// config and config.worktree of the git dir g name (core.worktree,
// relative to g as git takes it, its ".." resolved as the kernel does):
// git takes a relative hooks path, and a program's, from there (the
// ninetieth review: a repository the command made with core.worktree
// naming another directory of the root, where the next command wrote the
// hooks the person's global core.hooksPath = .githooks names). A path
// with ".." is returned as written, for configFileRefs to resolve as the
// kernel does (dotDotWay), one with a symlink on its way lexically (the
// link is noted there, linkRefs); what ends outside the writable roots is
// not kept there.
func coreWorktreesOf(g, worktree string) []string {
	var out []string
	for _, wt := range gitDirWorktrees(g) {
		if !slices.Contains(splitPath(wt), "..") {
			wt = domain.CleanPath(wt)
		}
		if c, _, ok, err := canonicalPath(wt); wt == worktree || err == nil && ok && c == worktree {
			continue // the work tree it is found in (a submodule's)
		}
		if !slices.Contains(out, wt) {
			out = append(out, wt)
		}
	}
	return out
}

// globalGitConfigs are the config files git reads for every repository
// of the person this process runs as: the system's, the XDG one and
// ~/.gitconfig (those that exist are read; GIT_CONFIG_GLOBAL and the like
// are the person's environment, not this process's).
func globalGitConfigs() []string {
	out := []string{"/etc/gitconfig"}
	home, err := os.UserHomeDir()
	if err != nil {
		return out
	}
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if !strings.HasPrefix(xdg, "/") {
		xdg = joinPath(home, ".config")
	}
	return append(out, joinPath(xdg, "git/config"), joinPath(home, ".gitconfig"))
}

// maxIncludeDepth is how deep git follows include paths (config.c).
const maxIncludeDepth = 10

// configFileRefs keeps read-only what the config file names (configRefs).
// dir is the directory git takes the file's relative include paths from:
// that of the path it opened the file by (its symlinks resolved), not that
// of the file's canonical path, which differs where the file itself is a
// symlink.
func (d *discovery) configFileRefs(file, dir, worktree string, depth int) {
	// (Once per work tree: a relative hooks path is each one's.)
	key := "config:" + file + "\x00" + worktree
	if depth > maxIncludeDepth || d.seen[key] {
		return
	}
	d.seen[key] = true
	refs, ok := d.parsed[file]
	if !ok {
		if d.parsed == nil {
			d.parsed = map[string][]gitConfigRef{}
		}
		refs = gitConfigRefs(file)
		d.parsed[file] = refs
	}
	for _, ref := range refs {
		base := worktree
		if ref.include {
			base = dir
		}
		p := ref.path
		if p == "~" || strings.HasPrefix(p, "~/") {
			home, err := os.UserHomeDir()
			if err != nil {
				continue
			}
			p = home + p[1:]
		} else if strings.HasPrefix(p, "~") {
			continue // another user's home (~name/…)
		}
		if !strings.HasPrefix(p, "/") {
			p = base + "/" + p
		}
		written := p
		if way, ok := d.dotDotWay(p); ok {
			p = way // where the kernel's ".." leads, not the lexical one
		} else {
			p = domain.CleanPath(p)
		}
		c, exists, ok, err := canonicalPath(p)
		if err != nil || !ok {
			continue
		}
		if ref.program && (slices.Contains(splitPath(p), "node_modules") || c != p) {
			// A program a package manager installs (node_modules/.bin,
			// rewritten by every install) or one reached through a
			// symlink (a virtual environment's python, remade with
			// it) is not held: setting it aside would break the
			// person's tools, and the packages around it are the
			// command's anyway.
			continue
		}
		if c != p && d.writable(p) {
			// git opens the path as written: a symlink on the way, in a
			// writable root, can be replaced. The check after the command
			// sets aside what the path leads to if it leads elsewhere.
			d.v.linkRefs = append(d.v.linkRefs, [2]string{p, c})
		}
		if !d.writable(c) {
			continue
		}
		if ref.program {
			// A program or its script is a file: a directory named
			// (a "./" of a command) is not kept, nor a missing argument.
			if fi, err := os.Stat(c); exists && (err != nil || fi.IsDir()) || !exists && ref.arg {
				continue
			}
		}
		if !exists {
			d.v.missingRefs = append(d.v.missingRefs, c)
			continue
		}
		d.addCarve(c, pathKindGitFile)
		if ref.include {
			// The directory of the path as git wrote it, as the
			// kernel resolves it.
			wd := written[:max(strings.LastIndexByte(written, '/'), 1)]
			if way, ok := d.dotDotWay(wd); ok {
				wd = way
			}
			if wd, _, ok, err := canonicalPath(domain.CleanPath(wd)); err == nil && ok {
				d.configFileRefs(c, wd, worktree, depth+1)
			}
		}
	}
}

// dotDotWay keeps in place the directories that the path p a git config
// names (as written, absolute, not cleaned) leaves by "..": git opens the
// path as written, and the kernel takes a ".." from the directory resolved
// so far, so a command that replaced one of them (tools in
// core.hooksPath = tools/../.githooks) with a symlink to a directory of its
// own, evil/deep, would have git run evil/.githooks, not the .githooks kept
// read-only. One that exists in a writable root is pinned (the mounts keep
// it and the directories above it in place); one that is missing is noted
// with missingRefs, set aside when a command makes it and refused to a
// write decision. A symlink on the way in a writable directory that a ".."
// follows is pinned too (link/../.githooks leads to the ".." of the link's
// target, and a command that pointed the link elsewhere would choose it).
// It returns the path the kernel reaches (ok): the directory the last ".."
// leads to, resolved, and the names after it as written, cleaned (a
// symlink among them is the check's after the command, linkRefs); a ".."
// after a symlink makes it other than the lexically cleaned path.
func (d *discovery) dotDotWay(p string) (way string, ok bool) {
	if !slices.Contains(splitPath(p), "..") {
		return "", false
	}
	rest := splitPath(p)
	cur := "/" // resolved: no symlink in it
	base, tail := "/", rest
	for links := 0; len(rest) > 0; {
		name := rest[0]
		rest = rest[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			// (Only one in a writable directory can be replaced: a root
			// cannot.)
			if a, _ := d.v.access(filepath.Dir(cur)); cur != "/" && a == domain.AccessWrite && d.writable(cur) && !d.v.isPinned(cur) {
				d.v.pins = append(d.v.pins, fsRule{Path: cur, Access: domain.AccessWrite, Kind: domain.PathProtected, From: cur, Pin: true})
			}
			cur = filepath.Dir(cur)
			base, tail = cur, slices.Clone(rest)
			continue
		}
		next := joinPath(cur, name)
		fi, err := os.Lstat(next)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				return "", false
			}
			if slices.Contains(rest, "..") {
				if d.writable(next) && !slices.Contains(d.v.missingRefs, next) {
					// A ".." below it: what a command makes there
					// decides where git goes.
					d.v.missingRefs = append(d.v.missingRefs, next)
				}
				return domain.CleanPath(next + "/" + strings.Join(rest, "/")), true
			}
			break
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		target, err := os.Readlink(next)
		if links++; err != nil || links > maxSymlinkHops {
			return "", false
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		rest = append(splitPath(target), rest...)
		if a, _ := d.v.access(filepath.Dir(next)); slices.Contains(rest, "..") && a == domain.AccessWrite && d.writable(next) && !d.v.isPinned(next) {
			// The link itself (opPinLink): where it leads decides the
			// directory a ".." after it leaves.
			d.v.pins = append(d.v.pins, fsRule{Path: next, Access: domain.AccessWrite, Kind: domain.PathProtected, From: next, Pin: true})
		}
	}
	return domain.CleanPath(base + "/" + strings.Join(tail, "/")), true
}

// commonDirOf returns the canonical common dir the git dir g's commondir
// file names, if any.
func commonDirOf(g string) (string, bool) {
	c, _, ok := commonDirFrom(g)
	return c, ok
}

// commonDirFrom is commonDirOf with the path git opens the common dir by.
func commonDirFrom(g string) (canon, from string, ok bool) {
	common, ok := readPointer(joinPath(g, "commondir"), "")
	if !ok {
		return "", "", false
	}
	if !strings.HasPrefix(common, "/") {
		common = g + "/" + common
	}
	c, exists, ok, err := canonicalPath(common) // as the pointer's (dotGit)
	return c, common, err == nil && ok && exists
}

// enclosing handles the repository git finds above the writable root
// (the nearest ".git" in an ancestor: a workspace that is a package of a
// monorepo), when it lies outside the writable roots: what its config
// names inside them stays read-only (configRefs), and its git dir counts
// as held for the check after the command (a ".git" file the command
// writes that makes a directory a work tree of it is set aside).
func (d *discovery) enclosing(root string) {
	for dir := filepath.Dir(root); ; dir = filepath.Dir(dir) {
		p := joinPath(dir, ".git")
		if _, err := os.Lstat(p); err == nil {
			if d.seen["enclosing:"+p] || d.writable(p) {
				return
			}
			d.seen["enclosing:"+p] = true
			g, ok := gitDirOf(p)
			if ok && !d.writable(g) {
				d.v.enclosing = append(d.v.enclosing, g)
				d.configRefs(g, dir)
			}
			return
		}
		if dir == "/" {
			return
		}
	}
}

// gitDirOf returns the canonical git dir of a ".git" entry: the directory
// itself, a symlink's target directory, or the dir a pointer file names.
func gitDirOf(p string) (string, bool) {
	fi, err := os.Lstat(p)
	if err != nil {
		return "", false
	}
	target := p
	if fi.Mode().IsRegular() {
		t, ok := gitPointer(p)
		if !ok {
			return "", false
		}
		if !strings.HasPrefix(t, "/") {
			t = filepath.Dir(p) + "/" + t
		}
		target = domain.CleanPath(t)
	}
	c, exists, ok, err := canonicalPath(target)
	if err != nil || !ok || !exists {
		return "", false
	}
	if st, err := os.Stat(c); err != nil || !st.IsDir() {
		return "", false
	}
	return c, true
}

// moduleDirs treats every directory below dir that holds a HEAD file as a
// git dir (a linked worktree's dir under worktrees/, a submodule's under
// modules/, where module names may contain slashes when recursive).
func (d *discovery) moduleDirs(dir string, recursive bool, depth int) {
	if depth > maxSubmoduleDepth {
		return
	}
	// Listed where it is, once, and only within a writable grant: a
	// modules/ linked to / walked the host's file system eight levels
	// deep for each repository that had one, and modules/ linked back to
	// a hub of git dirs listed it again at every level (K^8 git dirs: the
	// hundred-and-seventh review). A git dir no command can write needs
	// nothing kept.
	c, exists, ok, err := canonicalPath(dir)
	if err != nil || !ok || !exists || d.seen["modules:"+c] || !d.writable(c) {
		return
	}
	d.seen["modules:"+c] = true
	dir = c
	ents, err := readDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		p := joinPath(dir, e.Name())
		if _, err := os.Lstat(p + "/HEAD"); err == nil {
			d.gitDir(p, "", depth)
		} else if recursive {
			d.moduleDirs(p, true, depth+1)
		}
	}
}

// submodules handles the ".git" of every submodule path the work tree's
// .gitmodules names.
func (d *discovery) submodules(worktree string, depth int) {
	for _, path := range gitmodulePaths(joinPath(worktree, ".gitmodules")) {
		c, exists, ok, err := canonicalPath(domain.CleanPath(worktree + "/" + path))
		if err != nil || !ok || !exists || !domain.PathWithin(c, worktree) {
			continue
		}
		d.dotGit(joinPath(c, ".git"), depth+1)
	}
}

// gitmodulePaths returns the "path = …" values of a .gitmodules file (read
// without following a final symlink; bounded in size and count).
func gitmodulePaths(file string) []string {
	f, _, ok := openRegular(file)
	if !ok {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(io.LimitReader(f, maxGitmodulesSize))
	for sc.Scan() && len(out) < maxSubmodules {
		k, val, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if ok && strings.TrimSpace(k) == "path" {
			if val = strings.Trim(strings.TrimSpace(val), `"`); val != "" {
				out = append(out, val)
			}
		}
	}
	return out
}

// addCarve keeps p read-only (a git control file or pointer file).
func (d *discovery) addCarve(p string, kind domain.PathKind) {
	if d.seen["carve:"+p] {
		return
	}
	d.seen["carve:"+p] = true
	d.v.carves = append(d.v.carves, fsRule{Path: p, Access: domain.AccessRead, Kind: kind})
}

// withNested returns entries plus one protected ".git" entry (write: pinned,
// its control files read-only) for each nested ".git" v's walk found, so
// that the helper protects them without walking again.
func withNested(entries []domain.FilesystemEntry, v *fsView) []domain.FilesystemEntry {
	if len(v.nested) == 0 && len(v.launcherTargets) == 0 {
		return entries
	}
	out := append(make([]domain.FilesystemEntry, 0, len(entries)+len(v.nested)), entries...)
	for _, p := range v.nested {
		out = append(out, domain.FilesystemEntry{Kind: domain.PathProtected, Path: p, ResolvedPath: p,
			Access: domain.AccessWrite, Provenance: domain.ProvenanceSystem})
	}
	for _, p := range v.nestedItems {
		out = append(out, domain.FilesystemEntry{Kind: domain.PathProtected, Path: p, ResolvedPath: p,
			Access: domain.AccessRead, Provenance: domain.ProvenanceSystem})
	}
	// And what launcher files name (those the walk found deeper too).
	for _, p := range v.launcherTargets {
		out = append(out, domain.FilesystemEntry{Kind: domain.PathProtected, Path: p, ResolvedPath: p,
			Access: domain.AccessRead, Provenance: domain.ProvenanceSystem})
	}
	return out
}

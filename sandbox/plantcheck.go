package sandbox

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// The check for planted repositories. A restricted command may write its
// writable roots, and git takes any directory holding HEAD, objects and refs
// (or HEAD and commondir) for a repository: `git init sub`, or those three
// written into an existing directory (a bare repository). Such a repository
// brings its own config and hooks, which the host's git runs the next time a
// person works there, or at once in the workspace's own repository when the
// command registered it as a submodule (a gitlink in the index, which stays
// writable so that commits work). Nothing in the kernel refuses a file by
// its name, so Run looks after the command, when every process it started
// is dead: every repository in a writable root that is not one the command
// ran with held read-only, and that the command made or changed, must have a
// config of trusted keys only (domain.CheckGitConfig), no hooks but git's
// samples, and the same for the common dir it names; otherwise Run sets
// aside (domain.UntrustedSuffix) its HEAD, config and hooks, so that no git
// takes it for a repository, and reports it. The same check sets aside
// what else a host program would run from the roots (plantjudge.go,
// plantseq.go, setAsideCreated).

// coarseNow reads the clock the kernel stamps file times with (the coarse
// real-time clock: a change made after coarseNow returns is stamped no
// earlier than its result, while the fine clock may already be a tick
// ahead of the stamp).
func coarseNow() time.Time {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_REALTIME_COARSE, &ts) != nil {
		return time.Now().Add(-time.Second)
	}
	return time.Unix(ts.Unix())
}

// plantCheck is what Run needs to check a command's writable roots once it
// has ended (set by prepareSpec).
type plantCheck struct {
	// cmdUID is the host uid the command runs as, when the server drops
	// to the unprivileged one (0: it does not; plantWalk.commandsOwn).
	cmdUID int
	// roots are the canonical writable grants, none below another.
	roots []string
	// cwds are the directories inside them where the protected list is
	// held too (the turn's cwd: fsView.cwdDirs).
	cwds []string
	// catchUp: an earlier command over the roots ran unchecked (its
	// process was killed outright, rootlock.go); this check runs from its
	// start, and a git dir this command ran with held is judged as any
	// other (the killed command may have made it before this one held it).
	catchUp bool
	// held are the canonical git dirs the command ran with pinned, their
	// config and hooks read-only: the command cannot have changed them,
	// unless the git dir had no config (true here) and it made one.
	held map[string]bool
	// heldFiles are the ".git" entries the command ran with held.
	heldFiles map[string]bool
	// missing are the protected paths (read-only where they exist, not
	// held) that did not exist when the command started, each as its
	// first missing component (".config" for ".config/git" when there was
	// no .config), the root it lies in and the path itself: one the
	// command creates is set aside after it (setAsideCreated).
	missing [][3]string
	// launcherGlobs: the view's (setAsideLauncherMatches).
	launcherGlobs []launcherGlob
	// denied are the missing paths of deny entries among missing: one
	// made is set aside only when it holds a link out (plantedLink), for
	// what a person's tools write there meanwhile is masked where it lies
	// and would not be under the new name. (A sensitive path made is set
	// aside whatever it holds: a planted kubeconfig runs its exec plugin.)
	denied map[string]bool
	// globLasts and globRules are the profile's glob deny rules' last
	// components and the rules (plantglob.go).
	globLasts []string
	globRules []domain.PathRule
	// indexes are the held repositories' indexes watched for entries
	// planted at denied paths, and deniedAt the view's verdict on a path
	// (plantindex.go).
	indexes  []*indexWatch
	deniedAt func(p string) bool
	// wayLinks are the symlinks on the way from a root to a path of
	// missing when the command starts: any other symlink there afterwards
	// the command made (madeWayLink).
	wayLinks map[string]wayLink
	// overflow, when set, is why the command may not run: more matches
	// of a sensitive pattern in the writable roots than are watched.
	overflow string
	// agent are the writable grants that protect the agents' settings
	// directories (and readAtAnyDepth) at their top, with those names:
	// one made or changed below is set aside (plantagent.go).
	agent []agentSettingsRoot
	// roAgent are the agents' directories below a root that the command
	// ran with read-only (a nested work tree's protected items), with
	// their identity then: the command cannot have changed one that is
	// still that file.
	roAgent map[string]fileID
	// linkRefs are paths a held repository's config names whose way passes
	// a symlink in a root (a command can replace the symlink).
	linkRefs []linkRef
	// present are the protected paths (read-only, not held) that existed
	// when the command started, with the file each was; heldIDs are, for
	// each held git dir, the files its control names were. The command's
	// read-only mount of a path sits on its directory entry: when another
	// process replaces or renames the file there while the command runs
	// (another command's check setting it aside, a host program writing
	// it by rename), the kernel detaches the mount from the command's
	// namespace, and the command may write what is there now.
	present []presentPath
	heldIDs map[string][]fileID
	// heldConfigs are the held git dirs' config and config.worktree as
	// they were (by git dir, then name): a replaced one is judged by what
	// was added to it (domain.CheckGitConfigChange).
	heldConfigs map[string]map[string][]byte
	// kept are descriptors (O_PATH) of the files present and heldIDs
	// name, open until the check: a file's inode number is not reused
	// while it is open (a file system may give a replacement the number
	// of the file it replaced, as ext4 does to git's second config.lock).
	kept []int
	// nestedAbsent are the nested repositories' work trees, with the root
	// each lies in and which of nestedFirsts, the first names of the
	// protected list's items, each held (setAsideNestedCreated).
	nestedAbsent []nestedAbsent
	nestedFirsts [][2]string
	// nestedRels are the items themselves: each below a first name in
	// rulesOnlyAbove is judged, not the first only.
	nestedRels []string
	// nestedWTs are the nested repositories' work trees (their workspace
	// files are watched as a root's).
	nestedWTs []string
	// wsFiles are the VS Code workspace files at the top of the roots
	// when the command started (workspacefiles.go).
	wsFiles map[string]bool
	// adminIDs are, by held git dir, the identities of the directories
	// in its worktrees/ when the command started (watchIndexes): one
	// there afterwards that is none of them is the command's, whatever
	// its times (worktreeAdmins). A git dir with more than maxAdminIDs
	// has none, and adminsUncounted names it.
	adminIDs        map[string]map[[2]uint64]bool
	adminsUncounted map[string]bool
	// discoveryLimits are the bounds the spawn's discovery of nested
	// repositories reached (summarized), reported with the check's: a
	// repository past them was neither held nor its index watched.
	discoveryLimits []string
}

// keepID returns the identity of name below dfd, not following a final
// symlink (zero when there is none), and keeps the file open until the
// check (close) so that no other file takes its identity meanwhile.
func (pc *plantCheck) keepID(dfd int, name string) fileID {
	fd, err := unix.Openat(dfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fileID{}
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		unix.Close(fd)
		return fileID{}
	}
	pc.kept = append(pc.kept, fd)
	return fileID{uint64(st.Dev), st.Ino}
}

// close closes the descriptors the check kept (after run, or when the
// command did not start).
func (pc *plantCheck) close() {
	for _, fd := range pc.kept {
		unix.Close(fd)
	}
	pc.kept = nil
}

// fileIDAt is the identity of name below dfd, not following a final
// symlink (zero when there is none).
func fileIDAt(dfd int, name string) fileID {
	var st unix.Stat_t
	if unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return fileID{}
	}
	return fileID{uint64(st.Dev), st.Ino}
}

// presentPath is a protected path that existed at the start, the file it
// was, and the root it lies in.
type presentPath struct {
	path, root string
	id         fileID
}

// linkRef is a path a git config names, as written, where it led when the
// command started, and the root it is written in.
type linkRef struct{ written, target, root string }

// Quarantine is one thing a command left that a host program would run,
// set aside: a repository (Path is its git dir), a rebase state, a .git
// file, a protected file or directory.
type Quarantine struct {
	// Path is what was set aside.
	Path string `json:"path"`
	// Reason is what is not trusted.
	Reason string `json:"reason"`
	// MovedTo is where it is now (a repository's HEAD); empty when the
	// rename failed.
	MovedTo string `json:"moved_to,omitempty"`
	// Error is why the rename failed.
	Error string `json:"error,omitempty"`
}

// QuarantineLine is how the command line reports a quarantined repository
// (path is its git dir) or set-aside rebase state (path is its directory).
// The paths come from the command (a file name may hold an escape
// sequence): they are made safe to print (domain.TerminalSafe).
func QuarantineLine(path, reason, movedTo, failed string) string {
	path, reason, movedTo, failed = domain.TerminalSafe(path), domain.TerminalSafe(reason), domain.TerminalSafe(movedTo), domain.TerminalSafe(failed)
	if failed != "" {
		return fmt.Sprintf("turnstile: the command left %s, which a host program could run or trust (%s), and setting it aside failed: %s", path, reason, failed)
	}
	return fmt.Sprintf("turnstile: the command left %s, which a host program could run or trust (%s): set aside as %s, so that nothing uses it; look at it before renaming it back", path, reason, movedTo)
}

// newPlantCheck returns the check of v's writable grants, or nil when there
// are none.
func newPlantCheck(v *fsView) *plantCheck {
	pc := &plantCheck{held: map[string]bool{}, heldFiles: map[string]bool{}}
	for _, g := range v.grants {
		if g.Access == domain.AccessWrite && g.Kind != domain.PathDevice {
			pc.roots = append(pc.roots, g.Path)
		}
	}
	if len(pc.roots) == 0 {
		return nil
	}
	sort.Strings(pc.roots)
	kept := pc.roots[:1]
	for _, r := range pc.roots[1:] {
		// A root nested in a shared one (/tmp writable by :slash_tmp, a
		// workspace in it) is walked as a root of its own: the shared
		// root's walk enters at its top only what the command's uid owns
		// or anyone may write, and the workspace's way is the person's
		// (the hundred-and-forty-sixth review).
		if last := kept[len(kept)-1]; !domain.PathWithin(r, last) || sharedRootPath(last) {
			kept = append(kept, r)
		}
	}
	pc.roots = kept
	pc.cwds = v.cwdDirs()
	pc.agent = v.agentRoots
	pc.keepReadOnlyAgentDirs(v.carves)
	pc.heldIDs = map[string][]fileID{}
	for _, p := range v.pins {
		if p.Kind == pathKindGitDir {
			_, err := os.Lstat(p.Path + "/config")
			pc.held[p.Path] = errors.Is(err, os.ErrNotExist)
			ids := make([]fileID, len(controlNames))
			for i, n := range controlNames {
				ids[i] = pc.keepID(unix.AT_FDCWD, p.Path+"/"+n)
			}
			pc.heldIDs[p.Path] = ids
			for _, n := range []string{"config", "config.worktree"} {
				if b, err := readSmallAt(unix.AT_FDCWD, p.Path+"/"+n, domain.MaxGitConfigSize); err == nil {
					if pc.heldConfigs == nil {
						pc.heldConfigs = map[string]map[string][]byte{}
					}
					if pc.heldConfigs[p.Path] == nil {
						pc.heldConfigs[p.Path] = map[string][]byte{}
					}
					pc.heldConfigs[p.Path][n] = b
				}
			}
		}
	}
	// A repository enclosing a writable root, outside them: the command
	// cannot have changed it, and a ".git" file it made that names it
	// makes a work tree of it (gitfile).
	for _, g := range v.enclosing {
		pc.held[g] = false
	}
	for _, c := range append(slices.Clone(v.carves), v.pins...) {
		// A ".git" file or symlink held for the command (a symlinked
		// .git is pinned at its target, named by From).
		for _, p := range []string{c.Path, c.From} {
			if filepath.Base(p) == ".git" {
				pc.heldFiles[p] = true
			}
		}
	}
	// What the protected list names, and what a held repository's config
	// names relative to its work tree (a core.hooksPath not made yet).
	// (A hooks path is watched as itself: what the command makes on the
	// way to it, node_modules say, is its own.)
	var watch []string
	exact := map[string]bool{}
	// The watched paths share their directories (.config, .git, a
	// nested work tree's), and most of them do not exist: each is looked
	// up once, a root's children in its listing.
	tm := newTypeMemo()
	for _, r := range pc.roots {
		tm.list(r)
	}
	for _, c := range v.carves {
		if c.Kind == domain.PathProtected && !c.Reserved && c.Access == domain.AccessRead {
			watch = append(watch, c.Path)
			if pc.inHeld(c.Path) {
				continue // judged with its repository (heldReplaced)
			}
			if !tm.exists(c.Path) {
				continue // missing: watched below
			}
			if id := pc.keepID(unix.AT_FDCWD, c.Path); id != (fileID{}) {
				for _, r := range pc.roots {
					if domain.PathWithin(c.Path, r) && c.Path != r {
						pc.present = append(pc.present, presentPath{path: c.Path, root: r, id: id})
						break
					}
				}
			}
		}
	}
	for g := range pc.held {
		if filepath.Base(g) == ".git" {
			for _, rel := range relativeProgramPaths(g) {
				p := domain.CleanPath(filepath.Dir(g) + "/" + rel)
				watch, exact[p] = append(watch, p), true
			}
		}
	}
	// What a config names through a symlink in a root: where it leads now
	// is checked after the command (setAsideRelinked).
	for _, l := range v.linkRefs {
		for _, r := range pc.roots {
			if domain.PathWithin(l[0], r) && l[0] != r {
				pc.linkRefs = append(pc.linkRefs, linkRef{written: l[0], target: l[1], root: r})
				break
			}
		}
	}
	// The protected list's items missing in a nested repository's work
	// tree (protectNestedWorkTrees).
	watch = append(watch, v.nestedMissing...)
	pc.nestedFirsts, pc.nestedRels = v.nestedFirsts, v.nestedRels
	pc.launcherGlobs = v.launcherGlobs
	for _, na := range v.nestedAbsent {
		for _, r := range pc.roots {
			if domain.PathWithin(na.wt, r) {
				na.root = r
				pc.nestedAbsent = append(pc.nestedAbsent, na)
				break
			}
		}
	}
	// What a config names that did not exist: an include file, a hooks
	// directory (configRefs).
	for _, p := range v.missingRefs {
		watch, exact[p] = append(watch, p), true
	}
	// A deny entry or sensitive path missing when the command starts,
	// inside a root: nothing holds it (nor its way, which siblings the
	// command may make share), so the command could make it, a hard link
	// to a file of its own there receiving what the person writes later;
	// made, it is set aside (the seventy-third and seventy-eighth
	// reviews).
	denied, overflow := watchDenied(v.denied, pc.roots)
	pc.overflow = overflow
	for _, d := range denied {
		watch, exact[d.path] = append(watch, d.path), true
		if !d.sensitive {
			if pc.denied == nil {
				pc.denied = map[string]bool{}
			}
			pc.denied[d.path] = true
		}
	}
	// Every writable grant, a root nested in another too: the walk to a
	// protected path's first missing component stops at its own root (a
	// project root that does not exist yet, made by an honest command,
	// was set aside whole: the sixty-sixth review).
	granted := map[string]bool{}
	for _, g := range v.grants {
		granted[g.Path] = true
	}
	seen := map[string]bool{}
	for _, path := range watch {
		for _, r := range pc.roots {
			if !domain.PathWithin(path, r) || path == r {
				continue
			}
			first := path
			for d := filepath.Dir(first); !exact[path] && d != r && !granted[d] && domain.PathWithin(d, r); d = filepath.Dir(d) {
				if tm.exists(d) {
					break
				}
				first = d
			}
			// ENOTDIR: a file where a directory of its way would be
			// (Cline's .clinerules file, above .clinerules/hooks); the
			// command can replace it with a directory.
			// Each item below a directory set aside only with one of
			// them (rulesOnlyAbove) is looked at, not the first only.
			key := first
			if rulesOnlyAbove[filepath.Base(first)] {
				key = path
			}
			if !tm.exists(first) && !seen[key] {
				seen[key] = true
				pc.missing = append(pc.missing, [3]string{first, r, path})
				for d := filepath.Dir(path); d != r && domain.PathWithin(d, r); d = filepath.Dir(d) {
					if tm.typeOf(d) == unix.S_IFLNK {
						if l, ok := readWayLink(d); ok {
							if pc.wayLinks == nil {
								pc.wayLinks = map[string]wayLink{}
							}
							pc.wayLinks[d] = l
						}
					}
				}
			}
		}
	}
	for wt := range v.nestedWTs {
		pc.nestedWTs = append(pc.nestedWTs, wt)
	}
	sort.Strings(pc.nestedWTs)
	pc.noteWorkspaceFiles()
	return pc
}

// setAsideCreated renames (domain.UntrustedSuffix) each protected path
// that was missing when the command started and exists now (the first
// component that was missing, with what the command put below it): a shell
// start-up file, .envrc, .mcp.json, .vscode and the like, which a host
// program reads and may run the next time a person works there, and which
// stay read-only where they exist. A directory on the way that the command
// replaced with a symlink (.config made a link to a directory of its own)
// is what is set aside then.
func (pc *plantCheck) setAsideCreated() (found []Quarantine) {
	// Most are names missing at a root, which its listing answers.
	tm := newTypeMemo()
	for _, r := range pc.roots {
		tm.list(r)
	}
	links := map[string]bool{}
	for _, m := range pc.missing {
		// A symlink the command put on the way is set aside whatever it
		// leads to from here: one through /proc/self/cwd leads elsewhere
		// in the server than in the person's programs, and the path
		// looked up below through it seemed not made (the eighty-first
		// review); one to another root sends there what the person
		// writes later.
		if l, ok := pc.madeWayLink(tm, m[1], m[2]); ok {
			if !links[l] {
				links[l] = true
				found = append(found, setAsideLink(l, m[1], m[2]))
			}
			continue
		}
		if d := filepath.Dir(m[0]); tm.listed[d] && !tm.exists(m[0]) {
			continue // not made
		}
		if pc.denied[m[2]] && !plantedLink(m[0]) {
			continue // a person's key written there meanwhile stays masked
		}
		if q, ok := setAsideMade(m, pc.sameWayLink); ok {
			found = append(found, q)
		}
	}
	return found
}

// madeWayLink returns the first symlink on the way from root to p (p
// included) that was not one when the command started (wayLinks), looked
// at component by component, none followed but those.
func (pc *plantCheck) madeWayLink(tm *typeMemo, root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return "", false
	}
	d := root
	for c := range strings.SplitSeq(rel, "/") {
		d = filepath.Join(d, c)
		switch tm.typeOf(d) {
		case 0:
			return "", false // missing: nothing further was made
		case unix.S_IFLNK:
			if !pc.sameWayLink(d) {
				// One the command made, or a person's it changed or
				// made lead elsewhere (review 202), or through
				// /proc/self/cwd (or another magic link), elsewhere in
				// the server than in the person's programs (review 201).
				return d, true
			}
		case unix.S_IFDIR:
		default:
			return "", false // a file: nothing is below it
		}
	}
	return "", false
}

// setAsideLink sets aside the symlink l the command put on the way to the
// protected path p in root.
func setAsideLink(l, root, p string) Quarantine {
	moved, note, err := setAsidePath(l, root)
	return settled(Quarantine{Path: l, Reason: "a symlink the command put on the way to " + p}, moved, note, err)
}

// settled completes q with what setAsidePath did.
func settled(q Quarantine, moved, note string, err error) Quarantine {
	switch {
	case err != nil:
		q.Error = err.Error()
	case note != "":
		q.Reason += note
	default:
		q.MovedTo = moved
	}
	return q
}

// plantedLink reports whether p, made where a deny entry lies, holds another way to its contents: a symlink, a file with another
// hard link, or anything but a directory or a regular file (a FIFO), at p
// or below it (at most maxPlantedEntries entries looked at; more count as
// one). A plain file or tree has no other name: what is written there
// later stays masked (the eightieth review).
func plantedLink(p string) bool {
	n := 0
	planted := false
	filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if n++; err != nil || n > maxPlantedEntries {
			planted = true
			return filepath.SkipAll
		}
		fi, err := d.Info()
		if err != nil {
			planted = true
			return filepath.SkipAll
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		switch {
		case fi.IsDir():
			return nil
		case !fi.Mode().IsRegular() || !ok || st.Nlink != 1:
			planted = true
			return filepath.SkipAll
		}
		return nil
	})
	return planted
}

// maxPlantedEntries bounds plantedLink's walk.
const maxPlantedEntries = 4096

// setAsideMade sets aside m[0], the first component missing of the
// protected path m[2] in the root m[1], if the command made it
// (setAsideCreated). same tells a symlink on the way that was there
// when the command started.
func setAsideMade(m [3]string, same func(string) bool) (Quarantine, bool) {
	p, root := m[0], m[1]
	_, err := os.Lstat(p)
	if err != nil && !errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ENOTDIR) && plainWayOnly(root, p, same) {
		// Not made, or still below a file (a .clinerules file): only
		// a symlink on the way is set aside.
		return Quarantine{}, false
	}
	if p != m[2] && rulesOnlyAbove[filepath.Base(p)] && plainWayOnly(p, m[2], nil) {
		// A directory above a protected path the command made, the
		// path itself not made (.clinerules with rules in it, not its
		// hooks): nothing a host program runs from. The next command
		// watches the path itself.
		return Quarantine{}, false
	}
	return setAsideOnTheWay(p, root, "a protected path the command created (a host program reads it)"), true
}

// setAsideNestedCreated sets aside, in each nested repository's work tree,
// the first names of the protected list's items that it did not hold when
// the command started and holds now (protectNestedWorkTrees), as
// setAsideCreated does (one in rulesOnlyAbove when any item below it was
// made): the work tree is listed once (within a budget of
// names; past it, or where it cannot be listed, each name is looked up).
func (pc *plantCheck) setAsideNestedCreated() (found []Quarantine) {
	names := maxDiscoveryNames
	below := map[string][]string{} // the items below a first name
	for _, rel := range pc.nestedRels {
		first, _, _ := strings.Cut(rel, "/")
		below[first] = append(below[first], rel)
	}
	for _, na := range pc.nestedAbsent {
		had := make([]bool, len(pc.nestedFirsts))
		for _, i := range na.had {
			had[i] = true
		}
		var now map[string]bool
		if ents, _, err := readDirents(na.wt, &names); err == nil {
			now = make(map[string]bool, len(ents))
			for _, e := range ents {
				now[e.name] = true
			}
		}
		for i, it := range pc.nestedFirsts {
			if had[i] || now != nil && !now[it[0]] || isHeld(joinPath(na.wt, it[0])) {
				// (A name held for a command is its placeholder.)
				continue
			}
			items := []string{it[1]}
			if rulesOnlyAbove[it[0]] {
				// Set aside only with one of the items below it (a
				// .config holding mise's or lefthook's config, not
				// the first item of the list: the ninetieth review),
				// as at a root (newPlantCheck).
				items = below[it[0]]
			}
			for _, rel := range items {
				if q, ok := setAsideMade([3]string{joinPath(na.wt, it[0]), na.root, joinPath(na.wt, rel)}, nil); ok {
					found = append(found, q)
					break
				}
			}
		}
	}
	return found
}

// rulesOnlyAbove names the directories above a protected path that hold,
// apart from it, only what no program runs (Cline's rules above its
// hooks; .github's CI workflows, which run elsewhere, above Copilot CLI's
// hooks; mise's tasks, which a person runs by name, beside its config):
// one a command makes without the path is not set aside; nor is .config
// without one of the items below it (dotnet's tool manifest, nextest's
// config: the eighty-ninth review; what is not listed there is writable
// in a .config that was there before). Others are (.hg, whose sharedpath
// names another repository's config, .jj, whose repo file names another
// repository).
var rulesOnlyAbove = map[string]bool{".clinerules": true, ".github": true, "mise": true, ".mise": true, ".config": true}

// plainWayOnly reports whether the protected path full, below first, does
// not exist, without a symlink on its way: every component from first down
// to where it stops is a directory, or a file of another type but a
// symlink (nothing can be below it; the next command watches the path
// itself again). A symlink same tells for the one that was on the way when
// the command started (sameWayLink) is passed through: what it leads to now is judged as
// the component would be. Such a link to a file was taken for one the
// command put there and set aside (a person's .mvn linked to a file, and
// under a turn rooted at "/", /proc/mounts).
func plainWayOnly(first, full string, same func(string) bool) bool {
	rel, err := filepath.Rel(first, full)
	if err != nil || strings.HasPrefix(rel, "..") {
		return false
	}
	d := first
	for _, c := range append([]string{""}, strings.Split(rel, "/")...) {
		if c != "" {
			d = filepath.Join(d, c)
		}
		var st unix.Stat_t
		err := unix.Lstat(d, &st)
		if err == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK && same != nil && same(d) && d != full {
			st, err = statNoMagic(d)
		}
		switch {
		case errors.Is(err, unix.ENOENT) && d != first:
			return true
		case err == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR && st.Mode&unix.S_IFMT != unix.S_IFLNK && d != full:
			// A file, or a FIFO or a socket (the hundred-and-third
			// review's .config), ends the way: nothing is below it.
			return true
		case err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR:
			return false
		}
	}
	return false
}

// statNoMagic stats what the symlink l leads to, through no magic link
// (/proc/PID/cwd, root, fd/N, and /dev/fd through /proc/self): those lead
// elsewhere in the server than in the person's programs, and such a way
// fails (ELOOP).
func statNoMagic(l string) (unix.Stat_t, error) {
	var st unix.Stat_t
	fd, err := unix.Openat2(unix.AT_FDCWD, l, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_MAGICLINKS})
	if err != nil {
		return st, err
	}
	defer unix.Close(fd)
	return st, unix.Fstat(fd, &st)
}

// statxNoMagic is statNoMagic with the type and the birth time (statx).
func statxNoMagic(l string) (unix.Statx_t, error) {
	var st unix.Statx_t
	fd, err := unix.Openat2(unix.AT_FDCWD, l, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_MAGICLINKS})
	if err != nil {
		return st, err
	}
	defer unix.Close(fd)
	return st, unix.Statx(fd, "", unix.AT_EMPTY_PATH|unix.AT_STATX_SYNC_AS_STAT, unix.STATX_TYPE|unix.STATX_INO|unix.STATX_BTIME, &st)
}

// wayLink is a symlink on a protected path's way as it was when the
// command started: the link itself, what it holds, and the file it led
// to through no magic link (zero: none).
type wayLink struct {
	self, to fileID
	target   string
	// toKind and toBorn are the type and the birth time (statx; zero
	// where the file system keeps none) of the file it led to: an inode
	// number alone is handed out again at once (ext4), and a command that
	// removed the file a person's .mvn led to got a directory of the same
	// number in its place, judged the same file (review 203).
	toKind uint16
	toBorn unix.StatxTimestamp
}

// readWayLink reads the symlink at d.
func readWayLink(d string) (wayLink, bool) {
	var st unix.Stat_t
	if unix.Lstat(d, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFLNK {
		return wayLink{}, false
	}
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlink(d, buf)
	if err != nil {
		return wayLink{}, false
	}
	l := wayLink{self: fileID{st.Dev, st.Ino}, target: string(buf[:n])}
	if t, err := statxNoMagic(d); err == nil {
		l.to = fileID{uint64(unix.Mkdev(t.Dev_major, t.Dev_minor)), t.Ino}
		l.toKind = t.Mode & unix.S_IFMT
		if t.Mask&unix.STATX_BTIME != 0 {
			l.toBorn = t.Btime
		}
	}
	return l, true
}

// sameWayLink reports whether the symlink at d is one that was on a
// protected path's way when the command started, unchanged: the same
// link holding the same target and leading, through no magic link, to the
// same file (or to nothing, as then), and naming nothing set aside. A link
// trusted by its path alone was retargeted by the command to where the
// check's own renames then put its directory of jvm.config
// (NAME.turnstile-untrusted), or to an empty directory a later command
// over another root fills (review 202).
func (pc *plantCheck) sameWayLink(d string) bool {
	was, ok := pc.wayLinks[d]
	if !ok {
		return false
	}
	now, ok := readWayLink(d)
	return ok && now == was && !strings.Contains(now.target, domain.UntrustedSuffix) && !crossesMagicLink(d)
}

// crossesMagicLink reports whether the way of the symlink l passes a
// magic link (or loops): where it leads cannot be told from the server.
func crossesMagicLink(l string) bool {
	_, err := statNoMagic(l)
	return errors.Is(err, unix.ELOOP)
}

// inHeld reports whether p lies in a held git dir.
func (pc *plantCheck) inHeld(p string) bool {
	for g := range pc.held {
		if domain.PathWithin(p, g) {
			return true
		}
	}
	return false
}

// controlIDs are the identities of the control names of the git dir open
// at gfd.
func controlIDs(gfd int) []fileID {
	ids := make([]fileID, len(controlNames))
	for i, n := range controlNames {
		ids[i] = fileIDAt(gfd, n)
	}
	return ids
}

// heldReplaced returns, for the held git dir g (open at gfd), the control
// names that are the same files as when the command started, or nil when
// all are: another replaced (or removed, or made) the others while the
// command ran, and the command's read-only mount of each went with the old
// file, so the repository is judged as one the command may have changed.
func (pc *plantCheck) heldReplaced(gfd int, g string) (same map[string]bool) {
	was, ok := pc.heldIDs[g]
	if !ok {
		return nil
	}
	now := controlIDs(gfd)
	if slices.Equal(was, now) {
		return nil
	}
	same = map[string]bool{}
	for i, n := range controlNames {
		same[n] = was[i] == now[i]
	}
	return same
}

// setAsideReplaced sets aside each protected path that existed when the
// command started and is another file now: another process replaced or
// renamed it while the command ran (another command's check setting it
// aside, a host program writing it by rename), which detached the
// command's read-only mount of it, and what is there now may be the
// command's.
func (pc *plantCheck) setAsideReplaced() (found []Quarantine) {
	for _, p := range pc.present {
		id := fileIDAt(unix.AT_FDCWD, p.path)
		if id == (fileID{}) || id == p.id {
			continue
		}
		found = append(found, setAsideOnTheWay(p.path, p.root, "a protected path replaced while the command ran (its read-only mount went with the file it replaced)"))
	}
	return found
}

// setAsideCaughtUp sets aside, when this check catches up on an earlier
// command that was killed before its own (catchUp), each protected path
// that existed when this command started and was made or changed since
// the earlier one's start (since): one the killed command made (a
// .cargo/config.toml, an .envrc) was there at this command's start, so
// the watch of missing paths did not take it for made (the
// hundred-and-forty-sixth review). What the person changed there after
// the kill is set aside as well: the check cannot tell who made it. Only
// the paths within within (the killed command's root) are looked at.
func (pc *plantCheck) setAsideCaughtUp(since time.Time, within string) (found []Quarantine) {
	for _, p := range pc.present {
		if !domain.PathWithin(p.path, within) {
			continue
		}
		var st unix.Stat_t
		if unix.Lstat(p.path, &st) != nil || !changedSince(p.path, p.root, within, since) {
			continue
		}
		found = append(found, setAsideOnTheWay(p.path, p.root, "a protected path made or changed since an earlier command over the root started, which was killed before its check ran"))
	}
	return found
}

// changedSince reports whether p (below root) or a directory on its way
// below root and within (a killed command's root; not root or within
// themselves, whose times change with any entry) changed since: a tree
// renamed into place keeps its files' times, the renamed directory's
// alone change (review 205: a killed command's `mv stash .cargo` put an
// older stash/config.toml at .cargo/config.toml, judged by its own time).
func changedSince(p, root, within string, since time.Time) bool {
	for d := p; d != root && domain.PathWithin(d, root) && domain.PathWithin(d, within); d = filepath.Dir(d) {
		if d == within && d != p {
			break
		}
		var st unix.Stat_t
		if unix.Lstat(d, &st) == nil && !time.Unix(st.Ctim.Unix()).Before(since) {
			return true
		}
	}
	return false
}

// setAsideRelinked sets aside what a path a held repository's config names
// (an include file, a hooks directory) leads to when it no longer leads
// where it led when the command started: git opens the path as written,
// and the command may have replaced a symlink on its way (with a
// directory of its own, or a link elsewhere). Setting it aside leaves git
// a missing include, which it skips.
func (pc *plantCheck) setAsideRelinked() (found []Quarantine) {
	for _, l := range pc.linkRefs {
		c, exists, ok, err := canonicalPath(l.written)
		if err == nil && ok && (c == l.target || !exists) {
			continue
		}
		if _, lerr := os.Lstat(l.written); lerr != nil && !errors.Is(lerr, unix.ELOOP) && !errors.Is(lerr, unix.ENOTDIR) {
			continue
		}
		found = append(found, setAsideOnTheWay(l.written, l.root, "a path a repository's config names, which the command made lead elsewhere (a symlink on its way replaced)"))
	}
	return found
}

// setAsideOnTheWay sets aside p (below root) or, when a directory on its
// way is now a symlink, that symlink.
func setAsideOnTheWay(p, root, reason string) Quarantine {
	q := Quarantine{Path: p, Reason: reason}
	moved, note, err := setAsidePath(p, root)
	if errors.Is(err, unix.ELOOP) {
		// A directory on the way is now a symlink: set it aside.
		for d := filepath.Dir(p); d != root && domain.PathWithin(d, root); d = filepath.Dir(d) {
			if fi, lerr := os.Lstat(d); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
				q.Path, q.Reason = d, "a symlink the command put on the way to "+p
				moved, note, err = setAsidePath(d, root)
				break
			}
		}
	}
	return settled(q, moved, note, err)
}

// setAsidePath sets aside p, opening its parent from root without
// following any symlink; it returns where p is now, or, when there was no
// room to rename it, what was done instead (noRoom).
func setAsidePath(p, root string) (moved, note string, err error) {
	dir, name := filepath.Split(p)
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return "", "", err
	}
	rfd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", "", err
	}
	defer unix.Close(rfd)
	pfd, err := unix.Openat2(rfd, rel, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err != nil {
		return "", "", err
	}
	defer unix.Close(pfd)
	moved, err = setAside(pfd, name)
	if err != nil {
		if note, ok := noRoom(pfd, name, err); ok {
			return "", note, nil
		}
	}
	return dir + moved, "", err
}

// setAsideIn sets aside name in the directory dir (open at dfd) and
// returns the report of it.
//
// A rename adds the new name before it drops the old one, and on a full
// file system a directory whose blocks the command filled with names has
// no room for it (ENOSPC, or EDQUOT under a quota): the command chose
// that, and what it left would stay as it is, a repository git runs a
// program from. A small file (HEAD, a .git file) is then removed, which
// needs no room, and the report says what it held, so that the person
// can put it back.
func setAsideIn(dfd int, dir, name, reason string) Quarantine {
	q := Quarantine{Path: joinPath(dir, name), Reason: reason}
	moved, err := setAside(dfd, name)
	if err == nil {
		q.MovedTo = joinPath(dir, moved)
	} else if note, ok := noRoom(dfd, name, err); ok {
		q.Reason += note
	} else {
		q.Error = err.Error()
	}
	return q
}

// noRoom is what setting aside name (below dfd) does when the rename
// failed with err for want of room (ENOSPC, EDQUOT): it is removed, which
// needs no room, and the note says what it held (a file's or symlink's
// first 4096 bytes, a directory's names). Mode 0 is no answer: it keeps no
// program of root out, and the person and the server are often root (a
// HEAD padded with blanks past any size git trims, or an .mcp.json padded
// with whitespace, stayed usable so). A directory (.vscode, a rebase's
// state) that cannot be removed whole is given mode 0 as a last resort,
// and the note says so. It reports false for another error, or when that
// failed too.
func noRoom(dfd int, name string, err error) (string, bool) {
	if !errors.Is(err, unix.ENOSPC) && !errors.Is(err, unix.EDQUOT) {
		return "", false
	}
	if held, ok := removeFile(dfd, name); ok {
		return fmt.Sprintf("; removed, not renamed (%v), it held %q", err, held), true
	}
	if names, ok := removeTree(dfd, name, 0); ok {
		return fmt.Sprintf("; removed, not renamed (%v), a directory that held %s", err, heldNames(names)), true
	}
	if chmodNoFollow(dfd, name, 0) == nil {
		return fmt.Sprintf("; not renamed (%v), nor removed whole: what is left is made unreadable (mode 0), chmod it back to use it (root's programs still read it)", err), true
	}
	return "", false
}

// chmodNoFollow sets the mode of name below dfd, never through a symlink:
// a command of another turn in the same root may put one there between
// the removal that failed and this change (fchmodat follows it, and the
// server, often root, would have made /etc/passwd unreadable). The file is
// opened without following (O_PATH), and its mode set through that
// descriptor's /proc link, which names that file and no path.
func chmodNoFollow(dfd int, name string, mode uint32) error {
	fd, err := unix.Openat(dfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return unix.ELOOP
	}
	return unix.Chmod(fmt.Sprintf("/proc/self/fd/%d", fd), mode)
}

// removeFile removes name below dfd when it is a symlink or a regular
// file, and returns what it held (at most its first 4096 bytes, and its
// size when it held more).
func removeFile(dfd int, name string) (string, bool) {
	var st unix.Stat_t
	if unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return "", false
	}
	var held string
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		buf := make([]byte, 4096)
		n, err := unix.Readlinkat(dfd, name, buf)
		if err != nil {
			return "", false
		}
		held = "symlink to " + string(buf[:n])
	case unix.S_IFREG:
		fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != nil {
			return "", false
		}
		f := os.NewFile(uintptr(fd), name)
		b, err := io.ReadAll(io.LimitReader(f, 4096))
		f.Close()
		if err != nil {
			return "", false
		}
		held = string(b)
		if st.Size > 4096 {
			held += fmt.Sprintf("… (%d bytes in all)", st.Size)
		}
	default:
		return "", false
	}
	if unix.Unlinkat(dfd, name, 0) != nil {
		return "", false
	}
	return held, true
}

// removeTree removes the directory name below dfd and all it holds, not
// following any symlink, and returns the names it held at its top. It
// goes on past what it cannot remove (a level deeper than 64, an error),
// so that what a host program reads near the top (.vscode/tasks.json) goes
// whatever order the directory lists its names in, and reports false when
// anything was left.
func removeTree(dfd int, name string, depth int) ([]string, bool) {
	if depth > 64 {
		return nil, false
	}
	fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, false
	}
	ok := true
	for _, n := range names {
		if unix.Unlinkat(fd, n, 0) == nil {
			continue
		}
		if _, sub := removeTree(fd, n, depth+1); !sub {
			ok = false
		}
	}
	if !ok || unix.Unlinkat(dfd, name, unix.AT_REMOVEDIR) != nil {
		return nil, false
	}
	return names, true
}

// heldNames is how noRoom names a removed directory's entries.
func heldNames(names []string) string {
	if len(names) == 0 {
		return "nothing"
	}
	sort.Strings(names)
	s := ""
	for i, n := range names {
		if i == 20 {
			return s + fmt.Sprintf(" and %d more", len(names)-i)
		}
		if i > 0 {
			s += ", "
		}
		s += strconv.Quote(n)
	}
	return s
}

// setAside renames name (below dfd) to name+domain.UntrustedSuffix (name
// cut to fit in a file name), or to that followed by .1, .2, … .99 when
// taken, and returns the new name. The
// command may have taken all of those names (and may have made the
// directory unwritable, which a server that is not root obeys): what it
// left must be set aside all the same, or it stays as it is, a repository
// git runs a program from. So past .99 the name ends in a random part no
// command can guess, and a directory the server owns but may not write is
// given back its owner's write and search permission first.
func setAside(dfd int, name string) (string, error) {
	chmodded := false
	// A name is at most 255 bytes: a long one (a directory the command
	// named) is cut so that the suffix, and the random part past .99,
	// still fit, or the rename fails (ENAMETOOLONG) and it stays.
	base := name
	if n := unix.NAME_MAX - len(domain.UntrustedSuffix) - 17; len(base) > n {
		base = base[:n]
	}
	for i := 0; ; i++ {
		to := base + domain.UntrustedSuffix
		switch {
		case i > 99:
			var b [8]byte
			if _, err := unix.Getrandom(b[:], 0); err != nil {
				return to, err
			}
			to += fmt.Sprintf(".%x", b)
		case i > 0:
			to += fmt.Sprintf(".%d", i)
		}
		err := unix.Renameat2(dfd, name, dfd, to, unix.RENAME_NOREPLACE)
		if (errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM)) && !chmodded && ownWritable(dfd) {
			chmodded = true
			err = unix.Renameat2(dfd, name, dfd, to, unix.RENAME_NOREPLACE)
		}
		if err == nil || !errors.Is(err, unix.EEXIST) || i == 107 {
			return to, err
		}
	}
}

// ownWritable gives the directory at dfd its owner's write and search
// permission when this process owns it and it lacks them, and reports
// whether it changed anything.
func ownWritable(dfd int) bool {
	var st unix.Stat_t
	if unix.Fstat(dfd, &st) != nil || int(st.Uid) != os.Geteuid() || st.Mode&0o300 == 0o300 {
		return false
	}
	return unix.Fchmod(dfd, (st.Mode&0o7777)|0o300) == nil
}

// readSmallAt reads the regular file name below dfd, not following a
// final symlink and refusing one larger than limit.
func readSmallAt(dfd int, name string, limit int64) ([]byte, error) {
	fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ELOOP) {
		return nil, errors.New("a symlink")
	}
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = fmt.Errorf("larger than %d bytes", limit)
	}
	return b, err
}

// listAt lists the names in the directory name below dfd (not following a
// symlink).
func listAt(dfd int, name string) ([]string, error) {
	fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	return f.Readdirnames(-1)
}

// watchDenied returns the paths of denied (deny entries and sensitive
// paths) that lie strictly inside a root of roots: a literal path as it
// is; a pattern (/home/*/.kube/config) where its part up to its last
// wildcard matches a directory now (/home/alice, listed: at most
// maxWatchedMatches of them) and the rest is literal.
func watchDenied(denied []deniedPath, roots []string) (out []deniedPath, overflow string) {
	globs := map[string][]string{}
	inRoot := func(p string) bool {
		for _, r := range roots {
			if domain.PathWithin(p, r) && p != r {
				return true
			}
		}
		return false
	}
	for _, dp := range denied {
		d := dp.path
		if !strings.ContainsAny(d, "*?[") {
			if inRoot(d) {
				out = append(out, dp)
			}
			continue
		}
		pc := strings.Split(strings.TrimPrefix(d, "/"), "/")
		last := -1
		for i, c := range pc {
			if strings.ContainsAny(c, "*?[") {
				last = i
			}
		}
		if last < 0 || last == len(pc)-1 {
			continue // what the last element matches exists already, or not at all
		}
		first := 0
		for first < len(pc) && !strings.ContainsAny(pc[first], "*?[") {
			first++
		}
		if prefix := "/" + strings.Join(pc[:first], "/"); !slices.ContainsFunc(roots, func(r string) bool {
			return domain.PathWithin(r, prefix) || domain.PathWithin(prefix, r)
		}) {
			continue // no root where it could match: nothing listed (every spawn runs this)
		}
		dirs := "/" + strings.Join(pc[:last+1], "/")
		ms, seen := globs[dirs]
		if !seen {
			ms, _ = filepath.Glob(dirs)
			globs[dirs] = ms // the /home/* of a dozen patterns, listed once
		}
		rest := strings.Join(pc[last+1:], "/")
		if len(ms) > maxWatchedMatches && slices.ContainsFunc(ms, inRoot) {
			// A command could pad the matches (empty homes that sort
			// first) past what is watched: refused rather than run with
			// some stores unwatched (the eighty-first review).
			return nil, fmt.Sprintf("%d directories in the writable roots match the sensitive pattern %s, more than the %d in which a credential store the command creates can be found", len(ms), d, maxWatchedMatches)
		}
		for _, m := range ms[:min(len(ms), maxWatchedMatches)] {
			if p := domain.CleanPath(m + "/" + rest); inRoot(p) {
				out = append(out, deniedPath{path: p, sensitive: dp.sensitive})
			}
		}
	}
	return out, ""
}

// maxWatchedMatches bounds the directories one sensitive pattern's
// wildcard part is watched in (the homes under /home).
const maxWatchedMatches = 4096

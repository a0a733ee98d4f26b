package sandbox

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// Judging one repository the walk found (plantwalk.go): whether to read
// it, and what makes it untrusted.
//
// A repository is read when the command may have made it one, or changed
// what it runs: its config, config.worktree, commondir or hooks changed
// since the command started (or its common dir, or that dir's config or
// hooks); or no earlier walk of the root found it (a server's later
// walks); or, on a root's first walk, its git dir, objects or refs were
// made, or its HEAD made or renamed into place, since the command started
// (a first walk cannot tell a HEAD git rewrote, checking out in a person's
// repository, from one a command put in a directory that was no
// repository: it reads both). A repository the command ran with held
// (its config read-only, its hooks held) is read only when it had no
// config and has one now. A person's own repository
// is therefore read only when the command could have written what runs
// from it.
//
// A repository found untrusted loses what makes it one and what it would
// run: its HEAD, config, config.worktree, commondir and hooks are set
// aside together, so that a HEAD put back later brings back an inert
// repository (the next command's discovery holds it like any other).

// Bounds of one check: maxJudged repositories read, maxJudgedBytes of
// config parsed. Past them, a repository that must be read is quarantined
// unread: a command cannot buy its way past the check with volume.
const (
	maxJudged      = 4096
	maxJudgedBytes = 32 << 20
	// maxHooks bounds a trusted hooks dir (git init makes 13 samples).
	maxHooks = 64
)

// controlNames are what in a git dir makes git run a program.
var controlNames = []string{"config", "config.worktree", "commondir", "hooks"}

// commonNames are what of a common dir git takes: itself (one swapped in
// by a rename changes its own time only), its config and its hooks.
var commonNames = []string{".", "config", "config.worktree", "hooks"}

// gitDir decides on the repository whose git dir is open at gfd (path g);
// unseen: no earlier walk of this root found it. It reports whether it
// quarantined it (the walk then does not count it as seen: a HEAD put back
// makes it one the next walk has not seen).
func (w *plantWalk) gitDir(gfd int, g string, unseen bool) (quarantined bool) {
	noConfig, held := w.pc.held[g]
	// A catch-up's check was set up after the killed command (the held
	// list is the next command's): a held repository is judged as any
	// other unless nothing that makes git run a program changed since the
	// killed command's start (that command had them read-only; a person's
	// own hooks, older, are not its: review 204, its own commit there had
	// the person's repository set aside).
	held = held && (!w.pc.catchUp || !w.changed(gfd, controlNames) && !w.hooksChanged(gfd))
	var same map[string]bool // of a held git dir whose controls were replaced
	if held {
		same = w.pc.heldReplaced(gfd, g)
	}
	if held && same == nil && (!noConfig || unix.Faccessat(gfd, "config", unix.F_OK, unix.AT_SYMLINK_NOFOLLOW) != nil) {
		return false
	}
	cd := w.commonDir(gfd, g)
	if cd.fd >= 0 {
		defer unix.Close(cd.fd)
	}
	var refsChanged bool
	var globalRef string
	if !held {
		refsChanged, globalRef = w.configRefsChange(g, w.coreWorktrees(g)...)
	}
	if !held && !unseen && !w.changed(gfd, controlNames) && !(cd.fd >= 0 && w.changed(cd.fd, commonNames)) &&
		!w.hooksChanged(gfd) && !(cd.fd >= 0 && w.hooksChanged(cd.fd)) &&
		!refsChanged && !(cd.fd >= 0 && cd.path != g && w.configRefsChanged(cd.path)) &&
		!(w.memo.gen == 1 && (w.born(gfd, ".", "objects", "refs") || w.changed(gfd, []string{"HEAD", "objects", "refs", "commondir"}))) {
		return false
	}
	reason := cd.reason
	w.judged++
	if reason == "" && (w.judged > maxJudged || w.parsed > maxJudgedBytes) {
		reason = fmt.Sprintf("not read: a check reads at most %d repositories and %d MiB of config", maxJudged, maxJudgedBytes>>20)
	}
	if reason == "" && same != nil {
		reason = w.trustReplaced(gfd, g, same)
	} else if reason == "" {
		reason = w.trust(gfd, g, true)
	}
	if reason == "" && globalRef != "" {
		// Nothing of the repository's own names it: the person's
		// global config does (a relative core.hooksPath), and the
		// command changed what it holds in this work tree.
		reason = globalRef + ", which the person's global git config names for this repository, changed"
	}
	if reason == "" && cd.held && cd.path != g && len(relativeProgramPaths(cd.path)) > 0 {
		// A new work tree of a held repository whose config names its
		// hooks or monitor by a path relative to the work tree (husky's
		// core.hooksPath = .husky/_): in this one, the command chose
		// what that path holds.
		reason = "a work tree of " + cd.path + ", whose config names hooks or a program relative to the work tree"
	}
	if reason == "" && cd.fd >= 0 {
		if r := w.trust(cd.fd, cd.path, !cd.outside); r != "" {
			where := cd.path
			if cd.outside {
				where = "outside the writable roots"
			}
			reason = "its common dir (" + where + "): " + r
		}
	}
	if reason == "" {
		return false
	}
	w.found = append(w.found, quarantineRepo(gfd, g, reason))
	return true
}

// quarantineRepo sets aside the HEAD of the git dir open at gfd (path g),
// and with it its config, config.worktree, commondir and hooks.
func quarantineRepo(gfd int, g, reason string) Quarantine {
	q := setAsideIn(gfd, g, "HEAD", reason)
	q.Path = g
	if q.Error == "" {
		for _, n := range controlNames {
			_, err := setAside(gfd, n)
			if err == nil || errors.Is(err, unix.ENOENT) {
				continue
			}
			// On a full disk, as HEAD: removed (the note holds what it
			// held), or the repository's config, whose core.fsmonitor is
			// the command's, would run again once HEAD is put back.
			if note, ok := noRoom(gfd, n, err); ok {
				q.Reason += "; " + n + ":" + strings.TrimPrefix(note, ";")
				continue
			}
			q.Error = n + ": " + err.Error()
		}
	}
	return q
}

// commonRef is the common dir a git dir names.
type commonRef struct {
	path string
	fd   int // -1: none, or one held for the command (trusted: held)
	held bool
	// outside: not below a writable root (read, never quoted).
	outside bool
	// reason is why the commondir file itself is not trusted.
	reason string
}

// commonDir reads the git dir's commondir file and opens the dir it
// names (following symlinks, as git does). A commondir that is not a
// small regular file holding one plain path, or names a dir that cannot
// be opened, is not trusted: git reads such files in ways a stricter
// reading would miss (up to a NUL, trailing blanks kept, any length).
func (w *plantWalk) commonDir(gfd int, g string) commonRef {
	none := commonRef{fd: -1}
	b, err := readSmallAt(gfd, "commondir", 4096)
	switch {
	case errors.Is(err, unix.ENOENT):
		return none
	case err != nil:
		return commonRef{fd: -1, reason: "commondir: " + err.Error()}
	}
	c := strings.TrimSuffix(string(b), "\n")
	if c == "" || strings.ContainsAny(c, "\x00\r\n") || strings.Trim(c, " \t") != c {
		return commonRef{fd: -1, reason: "commondir does not hold one plain path"}
	}
	if !strings.HasPrefix(c, "/") {
		c = g + "/" + c
	}
	raw := c
	c = domain.CleanPath(c)
	if canon, exists, ok, err := canonicalPath(c); err != nil || !ok || exists && canon != c || dotDotAfterLink(raw) {
		// A link on the way can be pointed elsewhere later without
		// anything the check looks at changing.
		return commonRef{fd: -1, reason: "commondir leads through a symlink"}
	}
	if _, held := w.pc.held[c]; held {
		return commonRef{path: c, fd: -1, held: true}
	}
	fd, err := unix.Open(c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return commonRef{fd: -1, reason: "its common dir cannot be opened: " + err.Error()}
	}
	out := true
	for _, r := range w.pc.roots {
		if domain.PathWithin(c, r) {
			out = false
		}
	}
	return commonRef{path: c, fd: fd, outside: out}
}

// changed reports whether any of names (relative to dfd; "." is the
// directory) changed since the command started. A hooks dir is judged by
// its own time: an entry made, removed or renamed there changes it, and a
// trusted one holds git's samples only, whose content git never runs.
func (w *plantWalk) changed(dfd int, names []string) bool {
	for _, n := range names {
		var st unix.Stat_t
		if unix.Fstatat(dfd, n, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && w.recent(st.Ctim) {
			return true
		}
	}
	return false
}

// hooksChanged reports whether a file in the hooks dir below dfd changed
// since the command started. The dir's own time (changed) covers an entry
// made, removed or renamed there, not a hook rewritten in place (a shell's
// `>` truncates it): in a repository discovery did not hold (deeper than
// its bound, or bare) the person's own hooks (pre-commit's, git lfs
// install's) stay writable during the command, and one rewritten so ran
// the agent's program at the person's next commit or push. Past maxHooks
// entries, or a hooks dir that cannot be listed, it reports true: the
// repository is judged (a trusted hooks dir holds git's samples only).
func (w *plantWalk) hooksChanged(dfd int) bool {
	// Followed where it is a symlink, as git follows it (a person's
	// .git/hooks linked to a directory of the work tree): the link's own
	// time says nothing of what the directory it leads to holds.
	fd, err := unix.Openat(dfd, "hooks", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false // none, or no directory
	}
	return w.entriesChanged(os.NewFile(uintptr(fd), "hooks"))
}

// entriesChanged reports whether an entry of the directory d (which it
// closes) changed since the command started: at most maxHooks entries are
// looked at; more, or a directory that cannot be listed, count as changed.
func (w *plantWalk) entriesChanged(d *os.File) bool {
	defer d.Close()
	names, err := d.Readdirnames(maxHooks + 1)
	if (err != nil && !errors.Is(err, io.EOF)) || len(names) > maxHooks {
		return true
	}
	for _, n := range names {
		var st unix.Stat_t
		if unix.Fstatat(int(d.Fd()), n, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && w.recent(st.Ctim) {
			return true
		}
	}
	return false
}

// configRefsChanged reports whether a path the config of the git dir g
// (or the person's global one) names changed since the command started: an include (and what it
// includes, maxIncludeDepth deep), the hooks path and the hooks in it, a program. Each
// is taken relative to the git dir and to the directory above it (git
// resolves an include from the config's directory, the hooks path and a
// program from the work tree). In a repository discovery did not hold,
// these stay writable during the command, and a person's include
// (include.path = ../.gitconfig, a config the project ships) or hooks path
// (.githooks) rewritten there ran the agent's program at the person's next
// git status or commit, with nothing of the git dir changed.
func (w *plantWalk) configRefsChanged(g string) bool {
	changed, _ := w.configRefsChange(g)
	return changed
}

// configRefsChange is configRefsChanged, with the changed path when the
// person's global config named it (the repository's own config may then
// hold trusted keys only: gitDir needs a reason of its own).
func (w *plantWalk) configRefsChange(g string, worktrees ...string) (changed bool, global string) {
	seen := map[string]bool{}
	var hit string
	var walk func(cfg string, depth int) bool
	walk = func(cfg string, depth int) bool {
		if depth > maxIncludeDepth || seen[cfg] {
			return false
		}
		seen[cfg] = true
		refs, ok := w.cfgRefs[cfg]
		if !ok {
			refs = gitConfigRefs(cfg)
			if w.cfgRefs == nil {
				w.cfgRefs = map[string][]gitConfigRef{}
			}
			w.cfgRefs[cfg] = refs
		}
		for _, r := range refs {
			if strings.HasPrefix(r.path, "~") {
				continue
			}
			for _, base := range append([]string{path.Dir(cfg), g, path.Dir(g)}, worktrees...) {
				p := r.path
				if !strings.HasPrefix(p, "/") {
					p = base + "/" + p
				}
				p = domain.CleanPath(p)
				if !w.inRoots(p) {
					continue // not the command's to write
				}
				if w.pathChanged(p) {
					hit = p
					return true
				}
				if r.include && walk(p, depth+1) {
					return true
				}
			}
		}
		return false
	}
	// The person's global configs too: a relative hooks path given
	// there is each work tree's.
	if walk(joinPath(g, "config"), 0) {
		return true, ""
	}
	for _, cfg := range globalGitConfigs() {
		if walk(cfg, 0) {
			return true, hit
		}
	}
	return false, ""
}

// physicallyAt reports whether raw, a core.worktree joined to its git
// dir, leads where its lexical cleaning (clean) does: git changes into
// the git dir and then into the value, so a ".." after a symlink is the
// parent of the link's target, not of the link ("../lnk/.." with lnk ->
// the person's ~/.config was the person's home to git and the
// repository's own dir to a lexical check: the ninety-second review). A
// work tree that does not exist yet (a removed submodule's, whose git dir
// stays in .git/modules: the ninety-third review) is judged by its
// longest existing prefix, the rest taken as written but for a "..".
func physicallyAt(raw, clean string) bool {
	phys, err := filepath.EvalSymlinks(raw)
	if err == nil {
		return phys == clean
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	parts := strings.Split(raw, "/")
	for i := len(parts) - 1; i > 0; i-- {
		p, err := filepath.EvalSymlinks(strings.Join(parts[:i], "/"))
		if err != nil {
			continue
		}
		if slices.Contains(parts[i:], "..") {
			return false
		}
		return domain.CleanPath(p+"/"+strings.Join(parts[i:], "/")) == clean
	}
	return false
}

// coreWorktrees returns the work trees the config and config.worktree of
// the git dir g name (core.worktree, relative to g as git takes it) that
// lie in the writable roots: git takes a relative hooks path there, not
// beside the git dir (the ninetieth review: git init evil; git -C evil
// config core.worktree "$PWD/wt"; wt/.githooks, which the person's global
// core.hooksPath = .githooks names, ran at their next commit in evil). One
// outside the roots is not the command's to write; one that leads there
// through a symlink trust refuses.
func (w *plantWalk) coreWorktrees(g string) []string {
	var out []string
	for _, wt := range gitDirWorktrees(g) {
		// Where git goes: a ".." after a symlink is the parent of its
		// target (the ninety-second review).
		phys, err := filepath.EvalSymlinks(wt)
		if err != nil {
			continue // no work tree there: nothing git reads
		}
		if w.inRoots(phys) && phys != path.Dir(g) {
			out = append(out, phys)
		}
	}
	return out
}

// inRoots reports whether p lies in one of the command's writable roots.
func (w *plantWalk) inRoots(p string) bool {
	for _, r := range w.pc.roots {
		if domain.PathWithin(p, r) {
			return true
		}
	}
	return false
}

// pathChanged reports whether p, or for a directory an entry in it (at
// most maxHooks; more count as changed), changed since the command
// started.
func (w *plantWalk) pathChanged(p string) bool {
	var st unix.Stat_t
	if unix.Lstat(p, &st) != nil {
		return false
	}
	if w.recent(st.Ctim) {
		return true
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return false
	}
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	return w.entriesChanged(os.NewFile(uintptr(fd), p))
}

// born reports whether any of names (relative to dfd) was made since the
// command started (its birth time; its change time where the file system
// keeps no birth time).
func (w *plantWalk) born(dfd int, names ...string) bool {
	for _, n := range names {
		var sx unix.Statx_t
		if unix.Statx(dfd, n, unix.AT_SYMLINK_NOFOLLOW|unix.AT_STATX_DONT_SYNC, unix.STATX_BTIME|unix.STATX_CTIME, &sx) != nil {
			continue
		}
		t := sx.Ctime
		if sx.Mask&unix.STATX_BTIME != 0 {
			t = sx.Btime
		}
		if w.recent(unix.Timespec{Sec: t.Sec, Nsec: int64(t.Nsec)}) {
			return true
		}
	}
	return false
}

func (w *plantWalk) recent(ts unix.Timespec) bool { return !time.Unix(ts.Unix()).Before(w.since) }

// trust returns why the git dir at gfd (path g) is not trusted, or "": its
// config and config.worktree hold trusted keys only, a core.worktree among
// them leads, without a symlink, to a directory in the root being walked
// (git would check out there: a work tree in the host user's home would
// write their start-up files), and its hooks are git's samples. reveal
// false (a dir outside the writable roots, which the command may not
// read): the reason names no key, line or file of it.
func (w *plantWalk) trust(gfd int, g string, reveal bool) string {
	untrusted := func(detail, generic string) string {
		if reveal {
			return detail
		}
		return generic
	}
	for _, n := range []string{"config", "config.worktree", "commondir"} {
		if hardLinked(gfd, n) {
			return untrusted(n+" has another hard link, through which it stays writable once the repository is held", n+" not trusted")
		}
	}
	for _, n := range []string{"config", "config.worktree"} {
		wt, err := w.readConfig(gfd, n)
		if errors.Is(err, unix.ENOENT) {
			continue
		}
		if err != nil {
			return untrusted(n+": "+err.Error(), n+" not trusted")
		}
		if wt == "" {
			continue
		}
		if w.worktreeEscapes(g, wt) {
			return untrusted(n+": core.worktree leads out of "+w.rootPath+" or through a symlink", n+" not trusted")
		}
	}
	var st unix.Stat_t
	switch err := unix.Fstatat(gfd, "hooks", &st, unix.AT_SYMLINK_NOFOLLOW); {
	case errors.Is(err, unix.ENOENT):
	case err != nil:
		return untrusted("hooks: "+err.Error(), "hooks not trusted")
	case st.Mode&unix.S_IFMT != unix.S_IFDIR:
		return "hooks is not a directory"
	default:
		hooks, err := listAt(gfd, "hooks")
		if err != nil {
			return untrusted("hooks: "+err.Error(), "hooks not trusted")
		}
		if len(hooks) > maxHooks {
			return fmt.Sprintf("more than %d hooks", maxHooks)
		}
		for _, h := range hooks {
			if !domain.GitHookTrusted(h) {
				return untrusted("hooks/"+h+" is a hook git would run", "a hook git would run")
			}
		}
	}
	return ""
}

// worktreeEscapes reports whether the core.worktree wt of the git dir g
// (relative to g as git takes it) leads out of the root being walked or
// through a symlink on its way (lexically or physically: a ".." after a
// symlink is the parent of its target).
func (w *plantWalk) worktreeEscapes(g, wt string) bool {
	if !strings.HasPrefix(wt, "/") {
		wt = g + "/" + wt
	}
	raw := wt
	wt = domain.CleanPath(wt)
	canon, _, ok, err := canonicalPath(wt)
	return !domain.PathWithin(wt, w.rootPath) || err != nil || !ok || canon != wt || !physicallyAt(raw, wt)
}

// hardLinked reports whether name below dfd is a regular file with more
// than one link. A control file is held read-only by a bind mount of its
// directory entry: another link the command made to it while it was its
// own stays writable in the root, and the next command could write what
// git runs through it while the check takes the held file for unchanged.
func hardLinked(dfd int, name string) bool {
	var st unix.Stat_t
	return unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG && st.Nlink > 1
}

// trustReplaced is trust for a held git dir some of whose control names
// were replaced while the command ran (same names those that were not):
// what was not replaced is as it was (its read-only mount held); a replaced
// config is judged by what it gained (domain.CheckGitConfigChange), and
// anything else replaced as in a repository the command made.
func (w *plantWalk) trustReplaced(gfd int, g string, same map[string]bool) string {
	if !same["hooks"] || !same["commondir"] {
		return w.trust(gfd, g, true)
	}
	for _, n := range []string{"config", "config.worktree"} {
		if same[n] {
			continue
		}
		b, err := readSmallAt(gfd, n, domain.MaxGitConfigSize)
		if errors.Is(err, unix.ENOENT) {
			continue
		}
		w.parsed += len(b)
		wt := ""
		if err == nil {
			wt, err = domain.CheckGitConfigChange(w.pc.heldConfigs[g][n], b)
		}
		if err != nil {
			return n + " (replaced while the command ran): " + err.Error()
		}
		if wt == "" {
			continue
		}
		if w.worktreeEscapes(g, wt) {
			return n + ": core.worktree leads out of " + w.rootPath + " or through a symlink"
		}
	}
	return ""
}

// readConfig checks the config file name below gfd and returns its
// core.worktree; a file already judged in this check (the same inode,
// change time and size: hard links to one config) is not parsed again.
func (w *plantWalk) readConfig(gfd int, name string) (string, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(gfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return "", err
	}
	key := [4]int64{int64(st.Dev), int64(st.Ino), st.Ctim.Nano(), st.Size}
	if v, ok := w.verdicts[key]; ok {
		return v.worktree, v.err
	}
	b, err := readSmallAt(gfd, name, domain.MaxGitConfigSize)
	wt := ""
	if err == nil {
		w.parsed += len(b)
		wt, err = domain.CheckGitConfigWorktree(b)
	}
	if w.verdicts == nil {
		w.verdicts = map[[4]int64]verdict{}
	}
	w.verdicts[key] = verdict{wt, err}
	return wt, err
}

type verdict struct {
	worktree string
	err      error
}

// relativeProgramPaths returns the paths the config of the git dir g
// names, relative to a work tree, for hooks (core.hooksPath) or a program
// (core.fsmonitor).
func relativeProgramPaths(g string) []string {
	var out []string
	for _, r := range gitConfigRefs(joinPath(g, "config")) {
		if !r.include && !strings.HasPrefix(r.path, "/") && !strings.HasPrefix(r.path, "~") {
			out = append(out, r.path)
		}
	}
	return out
}

// gitfile sets aside the ".git" file in the directory at rel when the
// command wrote it and it names a git dir the command ran with held that
// takes its work tree from where it is used (a repository's own .git, not
// a submodule's under modules/, whose config names its work tree): the
// directory would become a second work tree of that repository, where a
// path its config names relative to the work tree (husky's hooks) is the
// command's to fill.
func (w *plantWalk) gitfile(rel string) {
	dfd, err := w.open(rel)
	if err != nil {
		return
	}
	defer unix.Close(dfd)
	if w.pc.heldFiles[joinPath(w.path(rel), ".git")] || !w.changed(dfd, []string{".git"}) {
		return
	}
	reason := ""
	var st unix.Stat_t
	if unix.Fstatat(dfd, ".git", &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
		// git follows it; where it leads can change later without
		// anything here changing.
		reason = "a .git symlink"
	} else if hardLinked(dfd, ".git") {
		// Held read-only from the next command on, and still writable
		// through the other link: it could name another git dir then.
		reason = "a .git file with another hard link, through which it stays writable once held"
	} else {
		target, ok := gitPointer(joinPath(w.path(rel), ".git"))
		if !ok {
			return
		}
		if !strings.HasPrefix(target, "/") {
			target = w.path(rel) + "/" + target
		}
		lexical := domain.CleanPath(target)
		c, exists, ok, err := canonicalPath(lexical)
		_, held := w.pc.held[c]
		switch {
		case err != nil || !ok || !exists || c != lexical || dotDotAfterLink(target):
			// A git dir made, or a link retargeted, later would
			// change nothing the check looks at.
			reason = "a .git file whose git dir does not exist or is reached through a symlink"
		case held && !w.pc.submoduleDir(c):
			reason = "a .git file that makes this directory a second work tree of " + c
		case !w.inRoots(c):
			// No command writes such a link honestly: the other
			// repository's worktrees/ is not its to write. Its config,
			// or the person's, can name a hooks path relative to the
			// work tree this file makes (husky's .husky/_), written here
			// (the eighty-ninth review).
			reason = "a .git file naming a git dir outside the writable roots (" + c + ")"
		default:
			// A separate git dir or a linked work tree (git worktree
			// add): a relative path its config or the person's names is
			// this directory's, not the git dir's parent (the
			// eighty-ninth review).
			if !w.workTreeRefsChanged(c, w.path(rel)) {
				return
			}
			reason = "a .git file whose work tree holds what a git config names (a hooks path), made or changed by the command"
		}
	}
	w.found = append(w.found, setAsideIn(dfd, w.path(rel), ".git", reason))
}

// workTreeRefsChanged reports whether a path the config of the git dir g,
// of its common dir (a linked work tree's), or the person's names relative
// to the work tree wt changed since the command started.
func (w *plantWalk) workTreeRefsChanged(g, wt string) bool {
	if changed, _ := w.configRefsChange(g, append([]string{wt}, w.coreWorktrees(g)...)...); changed {
		return true
	}
	gfd, err := unix.Open(g, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(gfd)
	cd := w.commonDir(gfd, g)
	if cd.fd >= 0 {
		unix.Close(cd.fd)
	}
	if cd.path == "" {
		return false
	}
	changed, _ := w.configRefsChange(cd.path, wt)
	return changed
}

// submoduleDir reports whether the git dir c lies in the modules/ of a
// held git dir (a submodule's, whose config names its work tree).
func (pc *plantCheck) submoduleDir(c string) bool {
	for g := range pc.held {
		if domain.PathWithin(c, g+"/modules") && c != g+"/modules" {
			return true
		}
	}
	return false
}

// otherVCS sets aside, in the directory at rel (a Mercurial, Jujutsu or
// Sapling repository's: domain.OtherVCSDir), each config file the command
// made or changed (domain.OtherVCSConfigs) that a program could run from:
// the tool reads it the next time a person works there, as git reads a
// planted repository's config. A Mercurial or Sapling config of [paths]
// alone (a clone's) stays; a symlink or a file with another hard link, whose
// content can change later without anything here changing, does not.
func (w *plantWalk) otherVCS(rel string) {
	for _, name := range domain.OtherVCSConfigs[strings.ToLower(path.Base(rel))] {
		dir, base := rel, name
		if i := strings.LastIndexByte(name, '/'); i >= 0 {
			dir, base = relChild(rel, name[:i]), name[i+1:]
		}
		dfd, err := w.open(dir)
		if err != nil {
			continue
		}
		var st unix.Stat_t
		if unix.Fstatat(dfd, base, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT == unix.S_IFDIR || !w.recent(st.Ctim) {
			unix.Close(dfd)
			continue
		}
		if st.Mode&unix.S_IFMT == unix.S_IFREG && st.Nlink == 1 && (base == "hgrc" || base == "config" && !strings.HasSuffix(name, ".toml")) {
			if b, err := readAtMost(dfd, base, 1<<20); err == nil && domain.OtherVCSConfigTrusted(b) {
				unix.Close(dfd)
				continue
			}
		}
		w.found = append(w.found, setAsideIn(dfd, w.path(dir), base, "a version control config the command made or changed in "+w.path(rel)+" (the host's hg, jj or sl runs what it names)"))
		unix.Close(dfd)
	}
}

// otherVCSLink sets aside the entry name of the directory at rel, named
// as another version control system's directory but no directory (a
// symlink to one elsewhere, whose config the tool reads as this
// directory's), when the command made or changed it.
func (w *plantWalk) otherVCSLink(rel, name string) {
	dfd, err := w.open(rel)
	if err != nil {
		return
	}
	defer unix.Close(dfd)
	var st unix.Stat_t
	if unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFLNK || !w.recent(st.Ctim) {
		return
	}
	w.found = append(w.found, setAsideIn(dfd, w.path(rel), name, "a symlink the command made as a version control directory (the host's hg, jj or sl reads the config where it leads)"))
}

// readAtMost reads the regular file name in dfd, without following a
// symlink, up to limit bytes (an error past it).
func readAtMost(dfd int, name string, limit int64) ([]byte, error) {
	fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = errors.New("too large")
	}
	return b, err
}

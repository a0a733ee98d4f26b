package sandbox

import (
	"errors"
	"fmt"
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
// walks); or, on a root's first walk, the git dir, its objects or its refs
// were made since the command started (their birth time: git status or
// checkout in a person's own repository changes HEAD, the index and the
// git dir's times, not these). A repository next to a quarantine marker
// (a HEAD set aside earlier, domain.UntrustedSuffix) is read whenever it
// has a HEAD again, even one the command ran with held. A person's own
// repository is therefore read only when the command could have written
// what runs from it.

// Bounds of one check: maxJudged repositories read, maxJudgedBytes of
// config parsed. Past them, a repository that must be read is quarantined
// unread: a command cannot buy its way past the check with volume.
const (
	maxJudged      = 4096
	maxJudgedBytes = 32 << 20
)

// quarantineMarker is the start of the name a set-aside HEAD gets.
const quarantineMarker = "HEAD" + domain.UntrustedSuffix

// controlNames are what in a git dir makes git run a program.
var controlNames = []string{"config", "config.worktree", "commondir", "hooks"}

// commonNames are what of a common dir git takes: itself (one swapped in
// by a rename changes its own time only), its config and its hooks.
var commonNames = []string{".", "config", "config.worktree", "hooks"}

// gitDir decides on the repository whose git dir is open at gfd (path g);
// unseen: no earlier walk of this root found it; marked: a quarantine
// marker sits next to its HEAD. It reports whether it quarantined it (the
// walk then does not count it as seen: a HEAD renamed back makes it one
// the next walk has not seen).
func (w *plantWalk) gitDir(gfd int, g string, unseen, marked bool) (quarantined bool) {
	if w.pc.held[g] && !marked {
		return false
	}
	cd := w.commonDir(gfd, g)
	if cd.fd >= 0 {
		defer unix.Close(cd.fd)
	}
	if !marked && !unseen && !w.changed(gfd, controlNames) && !(cd.fd >= 0 && w.changed(cd.fd, commonNames)) &&
		!(w.memo.gen == 1 && w.born(gfd, ".", "objects", "refs")) {
		return false
	}
	reason := cd.reason
	w.judged++
	if reason == "" && (w.judged > maxJudged || w.parsed > maxJudgedBytes) {
		reason = fmt.Sprintf("not read: a check reads at most %d repositories and %d MiB of config", maxJudged, maxJudgedBytes>>20)
	}
	if reason == "" {
		reason = w.trust(gfd, g, true)
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
	q := Quarantine{Path: g, Reason: reason}
	if name, err := setAside(gfd, "HEAD"); err != nil {
		q.Error = err.Error()
	} else {
		q.MovedTo = joinPath(g, name)
	}
	w.found = append(w.found, q)
	return true
}

// commonRef is the common dir a git dir names.
type commonRef struct {
	path string
	fd   int // -1: none, or one held for the command (trusted)
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
	c = domain.CleanPath(c)
	if canon, exists, ok, err := canonicalPath(c); err == nil && ok && exists {
		c = canon
	}
	if w.pc.held[c] {
		return none
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
// directory) or any entry of dfd's hooks changed since the command started.
func (w *plantWalk) changed(dfd int, names []string) bool {
	for _, n := range names {
		var st unix.Stat_t
		if unix.Fstatat(dfd, n, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			continue
		}
		if w.recent(st.Ctim) {
			return true
		}
		if n == "hooks" && st.Mode&unix.S_IFMT == unix.S_IFDIR {
			hooks, err := listAt(dfd, "hooks")
			if err != nil {
				return true
			}
			for _, h := range hooks {
				if unix.Fstatat(dfd, "hooks/"+h, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && w.recent(st.Ctim) {
					return true
				}
			}
		}
	}
	return false
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
		if !strings.HasPrefix(wt, "/") {
			wt = g + "/" + wt
		}
		wt = domain.CleanPath(wt)
		canon, _, ok, err := canonicalPath(wt)
		if !domain.PathWithin(wt, w.rootPath) || err != nil || !ok || canon != wt {
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
		for _, h := range hooks {
			if !domain.GitHookTrusted(h) {
				return untrusted("hooks/"+h+" is a hook git would run", "a hook git would run")
			}
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

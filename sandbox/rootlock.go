package sandbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// Restricted commands over the same writable roots run one at a time.
//
// The check after a command judges what it finds against what it recorded
// when the command started: a protected path or a config-named hooks
// directory that was missing, where a symlink on a config's way led, the
// index, a data directory without a server's marks. Two commands of an
// agent at once (parallel tool calls of one turn, two `turnstile sandbox`
// processes) broke that: B started while A's plant stood and took it for
// the way things were; A's check set the plant aside (carrying B's
// read-only mount of it away), B made it again, and B's check found
// nothing new (the hundred-and-thirty-seventh review: a hooks directory, a
// relinked hooks path, an index entry at a denied path, the next server's
// admin token). So a restricted command holds its writable roots from
// before its start is recorded until its check has run: an exclusive
// flock(2) on each root's lock file and a shared one on the lock file of
// each directory above it (a command over /ws and one over /ws/sub
// exclude each other; commands over /ws/a and /ws/b do not; the lock
// files: rootLockDir). flock works across processes (the command
// line and a server) and between descriptors of one process; the locks
// are taken in path order, so two commands never wait on each other.

// RootLock is the flocks a restricted command holds on its writable roots
// and the directories above them.
type RootLock struct {
	once sync.Once
	fds  []int
	// pending are the markers of the exclusive roots (pendingMarker);
	// since is the earliest start a marker held when the lock was taken:
	// a command over the roots whose check never ran (its process was
	// killed outright), zero when there was none.
	pending []string
	since   time.Time
	// dir is the lock directory; roots the exclusive roots (their
	// markers are also left beside each directory above them, in its
	// below-directory: belowMarker); consumed the roots below one of
	// them whose marker was found there (removed with theirs once the
	// check has run).
	dir      string
	roots    []string
	consumed []string
	// below are the consumed markers' roots with the start each holds:
	// each is checked from its own start (Below), not the whole of this
	// command's roots.
	below []BelowSince
}

// BelowSince is a root below one of a command's exclusive roots, over
// which an earlier command was killed before its check ran, and that
// command's start.
type BelowSince struct {
	Root  string
	Since time.Time
	// id is the root directory's as the command started (ino zero: not
	// known, a marker of an earlier version or of a file root): a path
	// that no longer leads to it has the catch-up check the whole
	// enclosing root (rootReplaced).
	id rootID
}

// A command's check runs in the process that started it, after the
// command; a process killed outright (SIGKILL: a runtime's timeout that
// escalates, a second Ctrl-C) runs none, and the next command's check, in
// a process with no earlier walk, goes by times after its own start: what
// the killed one planted was judged by nobody (the hundred-and-forty-third
// review). So a command leaves, next to each exclusive root's lock file, a
// marker holding its start (pendingMarker, written when it starts,
// removed once its check has run); the next holder of the lock that finds
// one checks from the earliest start it names. A marker is the writing
// user's (named by uid, mode 0600, in the directory restricted turns are
// denied): one of another user is not read.

// pendingMarker is the marker of the root lock file lockFile.
func pendingMarker(lockFile string) string {
	return lockFile + ".pending-" + strconv.Itoa(os.Geteuid())
}

// A command over a directory above a killed command's root (/ws after
// /ws/sub) holds /ws exclusive and /ws/sub not at all, so it never read
// the marker beside /ws/sub's lock file (the hundred-and-forty-sixth
// review). A command's marker is also left in the below-directory of each
// directory above its root (belowDir: one per directory and user, mode
// 0700), named by its root's hash and holding the root's path; the holder
// of an exclusive root reads its below-directory too, and removes what it
// found there once its check has run. (A command over /ws/sub after a
// killed one over /ws does not read /ws's marker, which /ws's next holder
// removes: read by every command below, a marker left above a root would
// widen their checks until then.)

// belowDir is the directory of the markers of the roots below path.
func belowDir(dir, path string) string {
	return lockFileName(dir, path) + ".below-" + strconv.Itoa(os.Geteuid())
}

// belowMarker is root's marker in the below-directory of its ancestor.
func belowMarker(dir, ancestor, root string) string {
	sum := sha256.Sum256([]byte(root))
	return belowDir(dir, ancestor) + "/" + hex.EncodeToString(sum[:20])
}

// lockAncestors returns the directories above the clean absolute path p,
// "/" included.
func lockAncestors(p string) []string {
	var out []string
	for d := p; d != "/"; {
		d = filepath.Dir(d)
		out = append(out, d)
	}
	return out
}

// ownDir reports whether d is a directory of this user's, not a link.
func ownDir(d string) bool {
	var st unix.Stat_t
	return unix.Lstat(d, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR && int(st.Uid) == os.Geteuid()
}

// readBelow returns the markers in path's below-directory: the roots they
// name, each with its start.
func readBelow(dir, path string) (below []BelowSince) {
	d := belowDir(dir, path)
	if !ownDir(d) {
		return nil
	}
	ents, err := os.ReadDir(d)
	if err != nil {
		return nil
	}
	for _, e := range ents {
		b := readBelowMarker(d + "/" + e.Name())
		if b.Since.IsZero() || b.Root == "" || !domain.PathWithin(b.Root, path) || b.Root == path {
			continue
		}
		below = append(below, b)
	}
	return below
}

// readBelowMarker reads a below-directory's marker: the root it names, its
// start, and the root directory's identity when it holds one.
func readBelowMarker(name string) BelowSince {
	start, root, id := readMarker(name)
	b := BelowSince{Root: root, Since: start}
	if f := strings.Fields(id); len(f) == 3 {
		dev, derr := strconv.ParseUint(f[0], 10, 64)
		ino, ierr := strconv.ParseUint(f[1], 10, 64)
		btime, berr := strconv.ParseInt(f[2], 10, 64)
		if derr == nil && ierr == nil && berr == nil {
			b.id = rootID{dev: dev, ino: ino, btime: btime}
		}
	}
	return b
}

// readPending returns the start a marker holds, or zero.
func readPending(name string) time.Time {
	t, _, _ := readMarker(name)
	return t
}

// readMarker returns the start a marker holds, or zero; the root it names
// (a below-directory's marker; "" otherwise); and what follows the root
// after a NUL, which no path holds: the root directory's identity,
// "dev ino btime" (MarkStarted), in a marker of this version.
func readMarker(name string) (start time.Time, root, id string) {
	fd, err := unix.Open(name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return time.Time{}, "", ""
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || int(st.Uid) != os.Geteuid() {
		return time.Time{}, "", ""
	}
	buf := make([]byte, 128+unix.PathMax)
	n, _ := unix.Read(fd, buf)
	if n <= 0 {
		return time.Time{}, "", ""
	}
	first, root, _ := strings.Cut(string(buf[:n]), "\n")
	ns, err := strconv.ParseInt(strings.TrimSpace(first), 10, 64)
	if err != nil || ns <= 0 {
		return time.Time{}, "", ""
	}
	root, id, _ = strings.Cut(root, "\x00")
	root = strings.TrimSuffix(root, "\n")
	if root != "" && domain.CleanPath(root) != root {
		root = ""
	}
	return time.Unix(0, ns), root, strings.TrimSpace(id)
}

// Since is the earliest start of a command over the roots themselves whose
// check never ran, or zero (nil: zero).
func (l *RootLock) Since() time.Time {
	if l == nil {
		return time.Time{}
	}
	return l.since
}

// Below are the roots below the exclusive ones over which a command was
// killed before its check ran, each with its start (nil: none). Each is
// checked from its start on its own: judging the whole of the roots from
// the earliest of them (a command over "/" after one killed anywhere
// below it, hours before) set aside what every other program had made
// since, the suite's built binaries and work trees' gitdir files among it.
func (l *RootLock) Below() []BelowSince {
	if l == nil {
		return nil
	}
	return l.below
}

// MarkStarted records, for each exclusive root, that a command started at
// start (or at the earliest unchecked start found) runs unchecked until
// Checked.
func (l *RootLock) MarkStarted(start time.Time) {
	if l == nil {
		return
	}
	if !l.since.IsZero() && l.since.Before(start) {
		start = l.since
	}
	data := []byte(strconv.FormatInt(start.UnixNano(), 10) + "\n")
	for _, name := range l.pending {
		writeMarker(name, data)
	}
	for _, r := range l.roots {
		m := append(slices.Clone(data), r+"\n"...)
		if id, ok := rootDirID(r); ok {
			// Which directory the root is: another in its place is not
			// it (rootReplaced).
			m = append(append(m, 0), fmt.Sprintf("%d %d %d\n", id.dev, id.ino, id.btime)...)
		}
		for _, a := range lockAncestors(r) {
			d := belowDir(l.dir, a)
			if err := unix.Mkdir(d, 0o700); err != nil && !errors.Is(err, unix.EEXIST) || !ownDir(d) {
				continue
			}
			writeMarker(belowMarker(l.dir, a, r), m)
		}
	}
}

// writeMarker writes a marker (through a temporary file renamed over it).
func writeMarker(name string, data []byte) {
	tmp := name + ".tmp"
	unix.Unlink(tmp)
	fd, err := unix.Open(tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return
	}
	_, werr := unix.Write(fd, data)
	unix.Close(fd)
	if werr != nil || unix.Rename(tmp, name) != nil {
		unix.Unlink(tmp)
	}
}

// Checked removes the markers: the command's check has run.
func (l *RootLock) Checked() {
	if l == nil {
		return
	}
	for _, name := range l.pending {
		unix.Unlink(name)
	}
	for _, r := range append(slices.Clone(l.roots), l.consumed...) {
		if slices.Contains(l.consumed, r) {
			unix.Unlink(pendingMarker(lockFileName(l.dir, r)))
		}
		for _, a := range lockAncestors(r) {
			unix.Unlink(belowMarker(l.dir, a, r))
		}
	}
	l.consumed, l.below = nil, nil
	l.since = time.Time{}
}

// noteSince takes t (zero: none) for the earliest unchecked start.
func (l *RootLock) noteSince(t time.Time) {
	if !t.IsZero() && (l.since.IsZero() || t.Before(l.since)) {
		l.since = t
	}
}

// Release drops the locks (once; nil is a no-op).
func (l *RootLock) Release() {
	if l == nil {
		return
	}
	l.once.Do(func() {
		for _, fd := range l.fds {
			unix.Close(fd) // closing the last descriptor drops its flock
		}
	})
}

// LockWritableRoots takes the locks for a command under s: none (nil) when
// the filesystem is unrestricted (full_access has no check to protect). It
// waits while another command holds one of them, until ctx is done.
func LockWritableRoots(ctx context.Context, s *domain.TurnExecutionSecuritySnapshot) (*RootLock, error) {
	return lockSnapshotRoots(func() context.Context { return ctx }, s)
}

func lockSnapshotRoots(ctx func() context.Context, s *domain.TurnExecutionSecuritySnapshot) (*RootLock, error) {
	if s == nil || s.Sandbox.Filesystem.Unrestricted {
		return nil, nil
	}
	return lockRootsLazy(ctx, writableRoots(s.Sandbox.Filesystem.Entries))
}

// lockTarget is one directory (or file) to flock.
type lockTarget struct {
	path      string
	exclusive bool
}

// lockTargets returns the roots (canonical, the topmost of nested ones, a
// shared root's shared and the roots nested in it exclusive too) exclusive
// and the directories above them shared, in path order.
func lockTargets(roots []string) []lockTarget {
	var canon []string
	for _, r := range roots {
		if c, err := filepath.EvalSymlinks(r); err == nil {
			canon = append(canon, c)
		}
	}
	slices.Sort(canon)
	canon = slices.Compact(canon)
	// A world-writable sticky root (/tmp made writable by :slash_tmp) is
	// shared, not held: every command over a workspace in /tmp holds it
	// shared, and an exclusive wait there would starve. Its check judges
	// only the top entries the command could have made. It holds nothing
	// below it whole: a root nested in it (a workspace in /tmp) is still
	// held exclusive (the hundred-and-forty-third review: two commands
	// over one workspace in /tmp ran at once when /tmp was writable too).
	mode := map[string]bool{}
	var held []string
	for _, c := range canon {
		if slices.ContainsFunc(held, func(h string) bool { return domain.PathWithin(c, h) }) {
			continue // below a root already held whole
		}
		var st unix.Stat_t
		ex := !(unix.Stat(c, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR && sharedRoot(c, st.Mode))
		if ex {
			held = append(held, c)
		}
		mode[c] = ex
		for d := filepath.Dir(c); ; d = filepath.Dir(d) {
			if _, ok := mode[d]; !ok {
				mode[d] = false
			}
			if d == "/" {
				break
			}
		}
	}
	out := make([]lockTarget, 0, len(mode))
	for p, ex := range mode {
		out = append(out, lockTarget{p, ex})
	}
	// One global order (a path sorts before the paths below it).
	slices.SortFunc(out, func(a, b lockTarget) int { return strings.Compare(a.path, b.path) })
	return out
}

// lockRoots takes lockTargets(roots) in order, waiting for each.
func lockRoots(ctx context.Context, roots []string) (*RootLock, error) {
	return lockRootsLazy(func() context.Context { return ctx }, roots)
}

// lockRootsLazy is lockRoots with the context asked for only when a lock
// is taken by another command (the command line's comes from its signal
// handling, started on another goroutine).
func lockRootsLazy(ctx func() context.Context, roots []string) (*RootLock, error) {
	targets := lockTargets(roots)
	if len(targets) == 0 {
		return nil, nil
	}
	dir, err := rootLockDir()
	if err != nil {
		return nil, err
	}
	l := &RootLock{dir: dir}
	for _, t := range targets {
		fd, err := openLockFile(dir, t.path)
		if err != nil {
			l.Release()
			return nil, fmt.Errorf("the lock of %s: %w", t.path, err)
		}
		how := unix.LOCK_SH
		if t.exclusive {
			how = unix.LOCK_EX
		}
		if err := flockCtx(ctx, fd, how); err != nil {
			unix.Close(fd)
			l.Release()
			return nil, err
		}
		l.fds = append(l.fds, fd)
		if t.exclusive {
			// Held: a marker here is from a holder that is gone.
			m := pendingMarker(lockFileName(dir, t.path))
			l.noteSince(readPending(m))
			l.pending = append(l.pending, m)
			l.roots = append(l.roots, t.path)
			for _, b := range readBelow(dir, t.path) {
				l.below = append(l.below, b)
				l.consumed = append(l.consumed, b.Root)
			}
		}
	}
	return l, nil
}

// The locks are not taken on the directories themselves: a sandboxed
// command may open any directory it can read and flock it, and one that
// held an exclusive lock on /opt or /home kept every other principal's
// command over a root below it waiting for as long as it ran (the
// hundred-and-thirty-eighth review). Each path's lock is a file named by
// the path's hash in a directory of the host's (domain.RootLockDirs: the
// first whose parent exists, /dev/shm on nearly every system), shared by
// every user's `turnstile sandbox` and the server (world-writable and
// sticky, as /dev/shm is) and denied to every restricted turn
// (domain.SensitiveSystemPaths): masked in its view, refused to its file
// decisions. A lock file is never removed (one removed while another
// process waits on it would let two commands in); they are empty, one per
// root and directory above one, and go with the tmpfs at boot.

// rootLockDir returns the lock directory, made (mode 1777) when missing.
func rootLockDir() (string, error) {
	for _, dir := range domain.RootLockDirs {
		parent, err := os.Stat(filepath.Dir(dir))
		if err != nil || !parent.IsDir() {
			continue
		}
		if err := os.Mkdir(dir, 0o755); err == nil {
			// Through a descriptor, not by name: a chmod by name follows a
			// link another process put there meanwhile (the
			// hundred-and-forty-eighth review).
			fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				return "", err
			}
			err = unix.Fchmod(fd, 0o777|unix.S_ISVTX)
			unix.Close(fd)
			if err != nil {
				return "", err
			}
		} else if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("the roots' lock directory %s: %w", dir, err)
		}
		var st unix.Stat_t
		if err := unix.Lstat(dir, &st); err != nil {
			return "", err
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR {
			return "", fmt.Errorf("the roots' lock directory %s is not a directory", dir)
		}
		return dir, nil
	}
	return "", fmt.Errorf("no directory for the roots' locks: none of %s has its parent", strings.Join(domain.RootLockDirs, ", "))
}

// lockFileName is the name of path's lock file in dir.
func lockFileName(dir, path string) string {
	sum := sha256.Sum256([]byte(path))
	return dir + "/" + hex.EncodeToString(sum[:20])
}

// openLockFile opens (making it when missing) the lock file of path in dir.
func openLockFile(dir, path string) (int, error) {
	name := lockFileName(dir, path)
	for {
		fd, err := unix.Open(name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
		if !errors.Is(err, unix.ENOENT) {
			return fd, err
		}
		fd, err = unix.Open(name, unix.O_RDONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0o644)
		if errors.Is(err, unix.EEXIST) {
			continue // made meanwhile by another process
		}
		if err == nil {
			unix.Fchmod(fd, 0o644) // whatever the umask: every user opens it
		}
		return fd, err
	}
}

// flockCtx takes the lock on fd, waiting until ctx is done. A wait that
// ctx ends leaves the blocked flock to a goroutine, which drops the lock
// as soon as it gets it.
func flockCtx(ctxOf func() context.Context, fd, how int) error {
	if unix.Flock(fd, how|unix.LOCK_NB) == nil {
		return nil
	}
	ctx := ctxOf()
	// Taken by another command: wait on a duplicate, so that closing
	// fd on cancellation cannot close a reused number under the wait.
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return err
	}
	got := make(chan error, 1)
	go func() {
		err := flockRetry(dup, how)
		got <- err
	}()
	select {
	case err := <-got:
		unix.Close(dup) // fd shares the open file, and so the lock
		return err
	case <-ctx.Done():
		go func() {
			<-got
			unix.Close(dup) // with fd closed by the caller: the lock goes
		}()
		return ctx.Err()
	}
}

func flockRetry(fd, how int) error {
	for {
		err := unix.Flock(fd, how)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

package sandbox

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"

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
// flock(2) on each root directory and a shared one on each directory above
// it (a command over /ws and one over /ws/sub exclude each other; commands
// over /ws/a and /ws/b do not). flock works across processes (the command
// line and a server) and between descriptors of one process; the locks
// are taken in path order, so two commands never wait on each other.

// RootLock is the flocks a restricted command holds on its writable roots
// and the directories above them.
type RootLock struct {
	once sync.Once
	fds  []int
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

// lockTargets returns the roots (canonical, the topmost of nested ones)
// exclusive and the directories above them shared, in path order.
func lockTargets(roots []string) []lockTarget {
	var canon []string
	for _, r := range roots {
		if c, err := filepath.EvalSymlinks(r); err == nil {
			canon = append(canon, c)
		}
	}
	slices.Sort(canon)
	canon = slices.Compact(canon)
	var top []string
	for _, c := range canon {
		if len(top) > 0 && domain.PathWithin(c, top[len(top)-1]) {
			continue // below a root already held whole
		}
		top = append(top, c)
	}
	mode := map[string]bool{}
	for _, c := range top {
		// A world-writable sticky root (/tmp made writable by :slash_tmp)
		// is shared, not held: every command over a workspace in /tmp
		// holds it shared, and an exclusive wait there would starve. Its
		// check judges only the top entries the command could have made.
		var st unix.Stat_t
		mode[c] = !(unix.Stat(c, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR && sharedMode(st.Mode))
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
	l := &RootLock{}
	for _, t := range targets {
		fd, err := unix.Open(t.path, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
		if err != nil {
			if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ELOOP) {
				continue // gone, or a link since: the spawn's own checks refuse it
			}
			l.Release()
			return nil, err
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
	}
	return l, nil
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

// Package suitelock keeps the end-to-end tests whose turns make "/"
// writable apart from the sandbox package's tests. Such a turn's command
// runs as root over the whole file system, so its check after the command
// judges every repository changed anywhere while it ran as the command's
// doing, and set aside those the sandbox package's tests were making in
// /tmp at that moment (their configs name aliases, hooks paths, textconv
// programs): `go test ./...` runs the two packages side by side, and their
// tests failed now and then with "not a git repository". The sandbox
// package holds the lock shared for its whole run; such a test holds it
// exclusively while its server runs.
package suitelock

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// path is the lock file, shared by the test processes of one machine.
var path = filepath.Join(os.TempDir(), "turnstile-test-suite.lock")

// hold takes the lock (how: unix.LOCK_SH or unix.LOCK_EX), waiting for it,
// and returns its release.
func hold(how int) (release func(), err error) {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	for {
		err = unix.Flock(int(f.Fd()), how)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// Shared holds the lock shared (for a whole test binary's run).
func Shared() (release func(), err error) { return hold(unix.LOCK_SH) }

// Exclusive holds the lock exclusively (for one test's server).
func Exclusive() (release func(), err error) { return hold(unix.LOCK_EX) }

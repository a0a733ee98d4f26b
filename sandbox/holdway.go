package sandbox

import (
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// The way to a missing deny entry.
//
// A deny entry inside a writable root is held (an empty placeholder the
// helper masks) when its directory exists. One whose directory did not
// (ws/secret/prod, no ws/secret yet) was neither masked nor held: the
// command made the directory itself and read what a host tool of the
// person's wrote there while it ran (the hundred-and-fifty-first review).
// Holding the first missing directory read-only (the seventy-third
// review's fix) kept the command from making its siblings, and was
// reverted. Now Run makes the missing directories on the way as ordinary
// ones, writable to the command (the owner and mode of the directory they
// are made in), holds the deny entry in them as it holds any, and removes
// each again after the command where it is still the empty directory it
// made. Mounted below them, the held name pins them in place (mountPlan's
// chains): the command cannot move them to make the name anew elsewhere.

// denyWays returns, for a deny entry c whose directory is missing inside a
// writable grant, the holds of the missing directories on its way (the
// outermost first), or nil.
func (v *fsView) denyWays(c fsRule) []hold {
	if c.Access != domain.AccessDeny || c.Reserved || strings.ContainsAny(c.Path, "*?[") {
		return nil
	}
	var missing []string
	for d := filepath.Dir(c.Path); d != "/" && v.grantAt(d) == domain.AccessWrite; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
				// A file (or a dangling link) where the way goes: the
				// name could be neither held nor masked, and the
				// command removed it and made the denied directory
				// (the hundred-and-fifty-fourth review).
				return []hold{{path: d, blocked: true}}
			}
			break
		}
		missing = append(missing, d)
	}
	if len(missing) == 0 || v.grantAt(filepath.Dir(missing[len(missing)-1])) != domain.AccessWrite {
		return nil
	}
	out := make([]hold, 0, len(missing))
	for i := len(missing) - 1; i >= 0; i-- {
		out = append(out, hold{path: missing[i], way: true})
	}
	return out
}

// madeWay is a directory Run made on the way to a held deny entry.
type madeWay struct {
	path     string
	dev, ino uint64
}

// makeWay makes the directory h.path (never through a symlink) with the
// owner and permission bits of the directory it is made in; made is false
// when it exists already (another command's, or the person's).
func makeWay(h hold) (w madeWay, made bool, err error) {
	dir, name, err := openHoldParent(h.path)
	if err != nil {
		return w, false, err
	}
	defer unix.Close(dir)
	var parent unix.Stat_t
	if err := unix.Fstat(dir, &parent); err != nil {
		return w, false, wrapHoldErr("stat the directory of", h.path, err)
	}
	if err := unix.Mkdirat(dir, name, 0o700); err != nil {
		if err == unix.EEXIST {
			return w, false, nil
		}
		return w, false, wrapHoldErr("mkdir", h.path, err)
	}
	fd, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return w, true, wrapHoldErr("open", h.path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return w, true, wrapHoldErr("stat", h.path, err)
	}
	w = madeWay{path: h.path, dev: st.Dev, ino: st.Ino}
	if err := unix.Fchown(fd, int(parent.Uid), int(parent.Gid)); err != nil {
		return w, true, wrapHoldErr("chown", h.path, err)
	}
	return w, true, wrapHoldErr("chmod", h.path, unix.Fchmod(fd, parent.Mode&0o777&^0o022|0o700))
}

// removeWay removes w where it is still the directory Run made, and empty.
func removeWay(w madeWay) {
	dir, name, err := openHoldParent(w.path)
	if err != nil {
		return
	}
	defer unix.Close(dir)
	var st unix.Stat_t
	if unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Dev != w.dev || st.Ino != w.ino {
		return
	}
	_ = unix.Unlinkat(dir, name, unix.AT_REMOVEDIR) // ENOTEMPTY: the command's, or another's hold
}

package sandbox

import (
	"errors"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// A root the runtime names through a symlink (a home reached through
// /home -> var/home, ~/code -> /mnt/data/code) is attached in the view at
// the canonical path it leads to. Where that symlink lies in a hidden area
// (/tmp, or a 0700 home above a root for the unprivileged uid), the view
// had no such name: a command given the path as the runtime wrote it
// found no such directory (the fifty-second review's linked home, run
// from /tmp). The view re-creates those symlinks, and only those, in the
// hidden area's tmpfs, with the host's target text: a symlink grants
// nothing (what it leads to is what the view holds there).

// maxViewLinks bounds the symlinks one view re-creates.
const maxViewLinks = 256

// viewLink is a host symlink on the way to a grant: at is where it lies
// (its directory canonical), target its text.
type viewLink struct{ at, target string }

// hostLinksToGrants returns the symlinks that the paths the snapshot wrote
// for the view's grants pass (fsRule.From), read on the host before the
// hidden areas are mounted.
func hostLinksToGrants(v *fsView) []viewLink {
	seen := map[string]bool{}
	var out []viewLink
	for _, g := range v.grants {
		if !g.linked() {
			continue
		}
		// Every link the lookup passes, a link in another's target too
		// (lnk -> lnk2 -> real: the sixty-second review), each where it
		// lies (its directory canonical).
		links, _ := linksPassed(g.From)
		for _, at := range links {
			target, err := os.Readlink(at)
			if err != nil || seen[at] {
				continue
			}
			if len(out) == maxViewLinks {
				return out
			}
			seen[at] = true
			out = append(out, viewLink{at: at, target: target})
		}
	}
	return out
}

// makeViewLinks re-creates in the hidden areas' tmpfs (before they are made
// read-only; fds are the areas' own, opened when mounted) each link of
// links that lies in one of areas, where the view has nothing. Each
// directory on the way is made and opened beneath the area's tmpfs, never
// through a symlink nor across a mount: the host may have changed since
// the links were read (a link the agent re-pointed between two reads), and
// a name made in an attached root would be made on the host, in a
// protected path the carve-outs, mounted next, do not yet cover. Best
// effort: a link that cannot be made leaves the path missing, as before.
func makeViewLinks(links []viewLink, areas []string, fds []int) {
	for _, l := range links {
		a := -1
		for i, d := range areas {
			if d != l.at && domain.PathWithin(l.at, d) && (a < 0 || len(d) > len(areas[a])) {
				a = i
			}
		}
		if a < 0 {
			continue
		}
		makeViewLink(fds[a], strings.TrimPrefix(l.at, areas[a]+"/"), l.target)
	}
}

// makeViewLink makes the symlink rel (relative to the area's directory
// dir) with target, and the directories on its way.
func makeViewLink(dir int, rel, target string) {
	parts := strings.Split(rel, "/")
	fd := dir
	defer func() {
		if fd != dir {
			unix.Close(fd)
		}
	}()
	for _, c := range parts[:len(parts)-1] {
		if err := unix.Mkdirat(fd, c, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
			return
		}
		next, err := unix.Openat2(fd, c, &unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_XDEV})
		if err != nil {
			return
		}
		if fd != dir {
			unix.Close(fd)
		}
		fd = next
	}
	_ = unix.Symlinkat(target, fd, parts[len(parts)-1])
}

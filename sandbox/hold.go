package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// hold is a path Run creates before the helper starts, so that the helper
// can keep it read-only and the command cannot create it: an empty
// directory, or a file with the given content.
type hold struct {
	path    string
	file    bool
	content string
}

// holds lists what Run must hold: the reserved protected names, the deny
// entries and, in every git dir discovery found, the hooks and info dirs, a
// "commondir" file naming the git dir itself (".": git reads it as "this
// dir is its own common dir", which it is) and an empty "config.worktree"
// (read when the config enables extensions.worktreeConfig). Run creates
// those that do not exist (and keeps those it holds already for another
// command). Only paths whose parent is a directory inside a writable grant
// are listed.
func (v *fsView) holds() []hold {
	var out []hold
	add := func(h hold) {
		if v.grantAt(filepath.Dir(h.path)) != domain.AccessWrite {
			return
		}
		if fi, err := os.Stat(filepath.Dir(h.path)); err != nil || !fi.IsDir() {
			return
		}
		out = append(out, h)
	}
	for _, c := range v.carves {
		// A deny entry that does not exist is held too: what is denied
		// cannot be created either. A glob is never a name to create.
		if c.Reserved || (c.Access == domain.AccessDeny && !strings.ContainsAny(c.Path, "*?[")) {
			add(hold{path: c.Path})
		}
	}
	for _, p := range v.pins {
		if p.Kind != pathKindGitDir {
			continue
		}
		for _, n := range gitHeldDirs {
			add(hold{path: joinPath(p.Path, n)})
		}
		add(hold{path: joinPath(p.Path, "commondir"), file: true, content: ".\n"})
		add(hold{path: joinPath(p.Path, "config.worktree"), file: true})
	}
	return out
}

// held counts, per path, the commands of this process that hold it (see
// holdNames); the last to release it removes it if it is still empty.
var held struct {
	mu sync.Mutex // guards n
	n  map[string]int
}

// holdNames creates, empty, every path the view lists in holds (before the
// helper starts, so that the helper can mount the name read-only and the
// command cannot create it), and returns the function that removes them
// again once no command of this process holds them. A hold that cannot be
// made is an error: the command must not run.
func holdNames(v *fsView) (release func(), err error) {
	var mine []string
	release = func() {
		held.mu.Lock()
		defer held.mu.Unlock()
		for i := len(mine) - 1; i >= 0; i-- {
			p := mine[i]
			if held.n[p]--; held.n[p] <= 0 {
				delete(held.n, p)
				removeHold(p)
			}
		}
	}
	held.mu.Lock()
	defer held.mu.Unlock()
	if held.n == nil {
		held.n = map[string]int{}
	}
	for _, h := range v.holds() {
		if held.n[h.path] == 0 {
			// Not held by another command of this process: hold it only
			// if it does not exist (an existing path is the user's).
			if _, err := os.Lstat(h.path); err == nil {
				continue
			}
			if err := makeHold(h); errors.Is(err, fs.ErrExist) {
				continue // made meanwhile by someone else: theirs
			} else if err != nil {
				held.mu.Unlock()
				release()
				held.mu.Lock()
				return nil, fmt.Errorf("hold the protected name %s: %w", h.path, err)
			}
		}
		held.n[h.path]++
		mine = append(mine, h.path)
	}
	return release, nil
}

// makeHold creates h (never through a symlink, never over an existing
// path).
func makeHold(h hold) error {
	if !h.file {
		return os.Mkdir(h.path, 0o755)
	}
	f, err := os.OpenFile(h.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(h.content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// removeHold removes a held path if it is still what makeHold made: an
// empty directory, a "commondir" file that names its own dir, an empty
// "config.worktree".
func removeHold(p string) {
	switch filepath.Base(p) {
	case "commondir":
		if c, ok := readPointer(p, ""); !ok || c != "." {
			return
		}
	case "config.worktree":
		if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() || fi.Size() != 0 {
			return
		}
	}
	os.Remove(p) // a directory goes only when empty
}

package sandbox

import (
	"fmt"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// maxWalkSockets bounds the socket files one cached walk of a root keeps
// (a command can leave any number behind); a host listener beyond them is
// looked for again (hostSocketMasks).
const maxWalkSockets = 1 << 16

// hostSocketMasks returns the socket files a command's view masks: those
// /proc/net/unix lists, at the path they were bound at, and in the writable
// roots every socket file a host process listens on, wherever it lies now.
// A host socket renamed after binding (by the host, or by an earlier
// command renaming a directory above it), or bound at a relative path, is
// listed under a name that no longer leads to it: the kernel's socket list
// (hostSocketFiles) names each listener by its file's identity, and the
// walk of the writable roots (walked, from the view) finds it by that
// identity; a listener of the writable roots the walk did not meet (inside
// a .git directory, a walk reused from before the move) is looked for by a
// fresh walk that enters .git directories too. Socket files nothing
// listens on are left alone (a command's own earlier sockets died with
// it). A listener bound in another mount namespace, at a name that does
// not lead to it here, is masked where its file lies here
// (foreignSocketPaths). Without the kernel's list (an error), the first
// maxWalkedSocketMasks socket files the walk found are masked instead.
func hostSocketMasks(walked []walkedSocket, roots []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	live, err := hostSocketFiles()
	if err != nil {
		for _, p := range hostUnixSockets() {
			add(p)
		}
		for i, w := range walked {
			if i == maxWalkedSocketMasks {
				break
			}
			add(w.path)
		}
		return out, nil
	}
	// The names the listeners were bound at: what /proc/net/unix lists.
	for _, name := range live {
		if strings.HasPrefix(name, "/") {
			add(name)
		}
	}
	slices.Sort(out)
	met := map[fileID]bool{}
	for _, w := range walked {
		// The walk may be a reused one (walkTTL): a listener it met is
		// counted as met only where it still is.
		if _, ok := live[w.id]; ok && at(w.path, w.id) {
			add(w.path)
			met[w.id] = true
		}
	}
	// A listener's file with more names than its bound one (a hard link a
	// command made to a socket the host bound while it ran: the hundred-
	// and-sixty-second review) is looked for by a fresh walk, for every
	// name (a reused walk predates the link), and counted (links).
	lost := map[fileID]int{}
	links := map[fileID]uint64{}
	elsewhere := map[fileID]string{}
	for id, name := range live {
		if strings.HasPrefix(name, "/") {
			if n := linksAt(name, id); n > 1 {
				links[id] = n
				lost[id] = int(min(n, maxSocketLinks))
				continue
			} else if met[id] {
				continue
			} else if n == 1 {
				continue // where it was bound: masked there
			}
			if !withinAny(name, roots) {
				// Bound outside the writable roots (no command moved
				// it) at a name that does not lead to it here: bound
				// in another mount namespace, or under another root.
				elsewhere[id] = name
				continue
			}
		}
		if !met[id] {
			lost[id] = 1
		}
	}
	for _, p := range foreignSocketPaths(elsewhere) {
		add(p)
	}
	// Each name counted once: the bound one may be written through a
	// symlinked directory the walk meets under its real path.
	names := map[fileID]map[dirEntryID]bool{}
	count := func(id fileID, p string) {
		if k, ok := keyOf(p); ok && names[id] != nil {
			names[id][k] = true
		}
	}
	for id := range links {
		names[id] = map[dirEntryID]bool{}
		count(id, live[id])
	}
	for _, r := range roots {
		if len(lost) == 0 {
			break
		}
		for _, w := range walkTree(r, true, lost).sockets {
			add(w.path)
			count(w.id, w.path)
			if lost[w.id]--; lost[w.id] <= 0 {
				delete(lost, w.id)
			}
		}
	}
	for id, n := range links {
		if uint64(len(names[id])) < n {
			// A name outside the writable roots (or past the walk's
			// bounds) reaches the listener, and nothing can find it to
			// mask it: the command is refused.
			return out, fmt.Errorf("the host's socket %s has %d names, and %d of them are not in the writable roots: a command could reach the host's service through them; remove the hard links to it", live[id], n, n-uint64(len(names[id])))
		}
	}
	return out, nil
}

// maxSocketLinks bounds the names of one socket file a walk looks for.
const maxSocketLinks = 1 << 10

// linksAt is the link count of the file at p when p leads to id (not
// following a symlink), or 0.
func linksAt(p string, id fileID) uint64 {
	var st unix.Stat_t
	if unix.Lstat(p, &st) != nil || st.Dev != id.dev || st.Ino != id.ino {
		return 0
	}
	return uint64(st.Nlink)
}

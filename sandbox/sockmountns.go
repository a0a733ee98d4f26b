package sandbox

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Host sockets bound in another mount namespace. A service that shares the
// host's network namespace but has a mount namespace of its own (a container
// on the host's network with a volume, a unit with bind mounts of its own)
// binds its socket at a path of its own view: the kernel's socket list names
// that path, which here holds nothing or another file, while the socket file
// lies here at another path (the volume's). Such a listener is found where
// its name does lead to its file: in the mount namespace of some process on
// the host. That namespace's mount table says which file system, and where
// in it, the name lies; this namespace's table says where that place is
// mounted here. Each such path that holds the listener's file is masked.

// Bounds: listeners looked for this way, and mount namespaces looked in.
const (
	maxForeignSockets = 64
	maxForeignNS      = 4096
)

// foreignSocketPaths returns the paths, in this mount namespace, of the
// files of the listeners in lost (by identity, with the absolute name each
// was bound at) that some other mount namespace names: each path leads
// here to the listener's own file (checked).
func foreignSocketPaths(lost map[fileID]string) []string {
	if len(lost) == 0 {
		return nil
	}
	here, err := readMountinfo("/proc/thread-self/mountinfo")
	if err != nil {
		return nil
	}
	own, _ := os.Readlink("/proc/thread-self/ns/mnt")
	left := map[fileID]string{}
	for id, name := range lost {
		if len(left) == maxForeignSockets {
			break
		}
		left[id] = name
	}
	var out []string
	// Processes first (a service is one); then every thread, whose mount
	// namespace may be its own too.
	for _, tasks := range []bool{false, true} {
		if len(left) == 0 {
			break
		}
		for _, proc := range namespaceHolders(own, tasks) {
			for id, name := range left {
				var st unix.Stat_t
				if unix.Lstat(proc+"/root"+name, &st) != nil || st.Dev != id.dev || st.Ino != id.ino {
					continue
				}
				// Under a root of its own in this namespace (chroot): the
				// name lies below that root, as this thread names it.
				if r, err := os.Readlink(proc + "/root"); err == nil && r != "/" && strings.HasPrefix(r, "/") {
					if p := joinPath(r, strings.TrimPrefix(name, "/")); at(p, id) {
						out = append(out, p)
						delete(left, id)
						continue
					}
				}
				there, err := readMountinfo(proc + "/mountinfo")
				if err != nil {
					continue
				}
				for _, p := range samePlace(there, here, name, devString(id.dev)) {
					if at(p, id) {
						out = append(out, p)
					}
				}
				delete(left, id)
			}
			if len(left) == 0 {
				break
			}
		}
	}
	return out
}

// at reports whether the path p is the file id (not following a symlink).
func at(p string, id fileID) bool {
	var st unix.Stat_t
	return unix.Lstat(p, &st) == nil && st.Dev == id.dev && st.Ino == id.ino
}

// namespaceHolders returns one /proc directory (a process's, or with tasks
// a thread's) for each view of the file systems other than own's: each
// mount namespace and, within one, each root directory (a chrooted service
// names its socket from its root).
func namespaceHolders(own string, tasks bool) []string {
	pids, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	view := func(dir, ns string) string {
		var st unix.Stat_t
		if unix.Stat(dir+"/root", &st) != nil {
			return ns
		}
		return ns + " " + strconv.FormatUint(st.Dev, 10) + ":" + strconv.FormatUint(st.Ino, 10)
	}
	seen := map[string]bool{view("/proc/thread-self", own): true}
	var out []string
	add := func(dir string) {
		ns, err := os.Readlink(dir + "/ns/mnt")
		if err != nil || len(out) == maxForeignNS {
			return
		}
		if v := view(dir, ns); !seen[v] {
			seen[v] = true
			out = append(out, dir)
		}
	}
	for _, e := range pids {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		dir := "/proc/" + e.Name()
		if !tasks {
			add(dir)
			continue
		}
		threads, err := os.ReadDir(dir + "/task")
		if err != nil {
			continue
		}
		for _, t := range threads {
			add(dir + "/task/" + t.Name())
		}
	}
	return out
}

// samePlace maps the path name of the mount table there (on the file
// system dev, "major:minor") to the paths of the mount table here that
// show the same place of the same file system.
func samePlace(there, here []mountEntry, name, dev string) []string {
	best := -1
	for i, m := range there { // a later mount on the same point hides an earlier one
		if pathUnder(name, m.point) && (best < 0 || len(m.point) >= len(there[best].point)) {
			best = i
		}
	}
	if best < 0 || there[best].dev != dev {
		return nil
	}
	m := there[best]
	inFS := joinPath(m.root, strings.TrimPrefix(strings.TrimPrefix(name, m.point), "/"))
	var out []string
	for _, h := range here {
		if h.dev != m.dev || !pathUnder(inFS, h.root) {
			continue
		}
		out = append(out, joinPath(h.point, strings.TrimPrefix(strings.TrimPrefix(inFS, h.root), "/")))
	}
	return out
}

// devString is an st_dev as mountinfo writes it ("major:minor").
func devString(dev uint64) string {
	return strconv.FormatUint(uint64(unix.Major(dev)), 10) + ":" + strconv.FormatUint(uint64(unix.Minor(dev)), 10)
}

// pathUnder reports whether p is dir or lies below it.
func pathUnder(p, dir string) bool {
	return dir == "/" || p == dir || strings.HasPrefix(p, dir+"/")
}

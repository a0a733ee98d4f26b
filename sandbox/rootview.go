package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// The root view is the world a restricted command sees. The helper builds
// it in its own mount namespace (and PID namespace, where it is pid 1),
// the way bubblewrap does, before mountCarveOuts and Landlock:
//
//  1. every mount is made private (nothing propagates back to the host),
//     and a fresh procfs of the new PID namespace is mounted on /proc: the
//     command sees only its own processes;
//  2. each writable root is cloned (open_tree) while still writable, and,
//     when the command is to run as the unprivileged sandbox uid, the clone
//     is idmapped so that the root's owner appears as that uid;
//  3. the whole tree under / is made read-only (mount_setattr RDONLY,
//     recursive): chmod, chown, utimensat, setxattr and every write fail
//     with EROFS outside the writable roots, whatever Landlock allows;
//  4. hidden areas get an empty read-only tmpfs: /tmp (host sockets,
//     other users' files) when the filesystem is restricted and unix
//     sockets are not allowed, and, for the
//     unprivileged uid, every ancestor of a granted root that it could not
//     search (so the roots stay reachable, their siblings are not);
//  5. the writable clones are attached on top of their paths (and the read
//     roots that lay in a hidden area are bound back, read-only);
//  6. unless unix sockets are allowed, every pathname socket the host had
//     bound when the command started (/proc/net/unix, read by Run) is
//     covered by a bind of /dev/null: connect() then fails (ECONNREFUSED).
//     A read-only mount does not stop connect(), and Landlock below ABI 9
//     does not govern it.
//
// What remains for unix sockets (stated in Limits): a socket the host binds
// after the command started, outside /tmp, one bound in another network
// namespace (not listed), and a host socket reached through a hard link made
// before the command started, stay connectable subject to their file
// permissions (the unprivileged uid is "other" for a root-owned socket).
// Abstract sockets are refused by Landlock scoping (ABI 6) or, below it, by
// a network namespace of the command's own (run.go).

// SandboxUID is the host uid (and gid) a command runs as when the server
// runs as root: no account uses it, so the command has no owner access to
// any file outside its writable roots (which are idmapped to it).
const SandboxUID = 2147483646

// viewRoot is a granted root that the view re-attaches.
type viewRoot struct {
	path  string
	write bool
	// overlay: mounted as the command's own overlay (overlay.go) instead
	// of a clone; tree is then the overlay's detached mount.
	overlay bool
	tree    int // detached clone, -1 when not cloned
}

// buildRootView builds the view described above. It runs in the helper, in
// its new mount and PID namespaces, with the capabilities to mount.
func buildRootView(v *fsView, sp *SandboxSpec) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make / private: %w", err)
	}
	// The PID namespace's procfs first: /proc/<pid> must name this
	// namespace's processes (idmapUserns writes a child's id maps there).
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount the PID namespace's /proc: %w", err)
	}
	dropUID := sp.UID != 0 && sp.RestrictFilesystem
	// A writable "/" is the whole tree: nothing is made read-only (a mount
	// stacked on "/" would not be seen: lookups start at the process root).
	readOnly := sp.RestrictFilesystem && v.grantAt("/") != domain.AccessWrite
	roots := viewRoots(v, readOnly)
	areas := hiddenAreas(roots, sp, dropUID)
	inner := sharedInnerAreas(roots, dropUID) // before the areas hide what it reads
	links := hostLinksToGrants(v)             // likewise
	defer func() {
		for _, r := range roots {
			if r.tree >= 0 {
				unix.Close(r.tree)
			}
		}
	}()
	userns := map[[2]int]int{}
	defer func() {
		for _, fd := range userns {
			unix.Close(fd)
		}
	}()
	scratch := newOverlayScratch()
	defer scratch.close()
	for i := range roots {
		r := &roots[i]
		if r.overlay {
			tree, err := overlayTree(r.path, sp, dropUID, userns, scratch)
			if err == nil {
				r.tree = tree
				if v.overlaid == nil {
					v.overlaid = map[string]bool{}
				}
				v.overlaid[r.path] = true
				continue
			}
			if !errors.Is(err, errOverlayNotDir) {
				return err
			}
			r.overlay = false // a file: read-only, as a read root
		}
		if !r.write && !withinAny(r.path, areas) {
			continue
		}
		if !r.write && withinCloned(r.path, roots[:i]) {
			continue // the enclosing root's clone carries it
		}
		tree, err := cloneTree(r.path)
		if err != nil {
			return err
		}
		r.tree = tree
		attr := unix.MountAttr{}
		if !r.write {
			attr.Attr_set = unix.MOUNT_ATTR_RDONLY
		} else {
			if !slices.Contains(domain.DeviceFiles, r.path) {
				// No device file in a writable root opens: root's
				// 0600 block device there was the unprivileged
				// uid's own through the id map, and the command
				// read and wrote the raw disk (the eighty-fifth
				// review). The device files every command may use
				// keep theirs; any other root under /dev does not
				// (a workspace in /dev/shm: the eighty-sixth).
				attr.Attr_set = unix.MOUNT_ATTR_NODEV
			}
			if dropUID && !sharedDir(r.path) {
				fd, err := idmapFor(tree, r.path, sp, userns)
				if err != nil {
					return err
				}
				attr.Attr_set, attr.Userns_fd = attr.Attr_set|unix.MOUNT_ATTR_IDMAP, uint64(fd)
			}
		}
		if attr.Attr_set != 0 {
			if err := unix.MountSetattr(tree, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &attr); err != nil {
				return fmt.Errorf("mount_setattr %s (idmap, nodev or read-only): %w", r.path, err)
			}
		}
	}
	if readOnly {
		attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
		if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, &attr); err != nil {
			return fmt.Errorf("make the root view read-only: %w", err)
		}
		// /proc is the namespace's own (its files carry their own
		// permissions): writable as bubblewrap mounts it.
		attr = unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY}
		if err := unix.MountSetattr(unix.AT_FDCWD, "/proc", 0, &attr); err != nil {
			return fmt.Errorf("make /proc writable: %w", err)
		}
	}
	var tmpfsFDs []int
	defer func() {
		for _, fd := range tmpfsFDs {
			unix.Close(fd)
		}
	}()
	for _, a := range areas {
		if err := unix.Mount("tmpfs", a, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755,size=1m,nr_inodes=4096"); err != nil {
			return fmt.Errorf("hide %s: %w", a, err)
		}
		fd, err := unix.Open(a, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("hide %s: %w", a, err)
		}
		tmpfsFDs = append(tmpfsFDs, fd)
	}
	for i := range roots {
		r := &roots[i]
		if r.tree < 0 {
			continue
		}
		if err := attachRoot(r, areas); err != nil {
			return err
		}
		// Inside a shared root, which is not idmapped, the directories
		// the unprivileged uid cannot search that lead to a root nested
		// in it are hidden as the areas above are, once the shared root
		// is attached: the nested root is attached in their tmpfs.
		for _, a := range inner {
			if !domain.PathWithin(a, r.path) || a == r.path {
				continue
			}
			if err := unix.Mount("tmpfs", a, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755,size=1m,nr_inodes=4096"); err != nil {
				return fmt.Errorf("hide %s: %w", a, err)
			}
			fd, err := unix.Open(a, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				return fmt.Errorf("hide %s: %w", a, err)
			}
			tmpfsFDs, areas = append(tmpfsFDs, fd), append(areas, a)
		}
	}
	makeViewLinks(links, areas, tmpfsFDs) // rootlinks.go
	for i, fd := range tmpfsFDs {
		attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
		if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH, &attr); err != nil {
			return fmt.Errorf("make %s read-only: %w", areas[i], err)
		}
	}
	if !sp.AllowUnixSockets {
		for _, s := range sp.HostSockets {
			if err := maskSocket(s); err != nil {
				return err
			}
		}
	}
	return nil
}

// viewRoots lists the granted roots that exist (directories and regular
// files; devices are writable on a read-only mount), parents first.
func viewRoots(v *fsView, readOnly bool) []viewRoot {
	seen := map[string]int{}
	var out []viewRoot
	for _, g := range v.grants {
		if g.Access != domain.AccessRead && g.Access != domain.AccessWrite {
			continue
		}
		var st unix.Stat_t
		if err := unix.Lstat(g.Path, &st); err != nil {
			continue
		}
		if m := st.Mode & unix.S_IFMT; m != unix.S_IFDIR && m != unix.S_IFREG {
			continue
		}
		if g.Path == "/proc" || strings.HasPrefix(g.Path, "/proc/") {
			continue // replaced by the PID namespace's own procfs
		}
		overlay := g.Overlay && st.Mode&unix.S_IFMT == unix.S_IFDIR // a file stays read-only
		if i, ok := seen[g.Path]; ok {
			out[i].write = out[i].write || g.Access == domain.AccessWrite
			out[i].overlay = out[i].overlay || overlay
			continue
		}
		seen[g.Path] = len(out)
		out = append(out, viewRoot{path: g.Path, write: g.Access == domain.AccessWrite, overlay: overlay, tree: -1})
	}
	for i := range out {
		// At one path an overlay wins a write grant (the rules' tie:
		// deny > overlay > write > read).
		out[i].write = out[i].write && !out[i].overlay
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	if !readOnly {
		// Nothing is made read-only: only the hidden areas need roots.
		for i := range out {
			out[i].write = false
		}
	}
	return out
}

// hiddenAreas returns the directories that get an empty tmpfs: /tmp when the
// filesystem is restricted and unix sockets are not allowed, and, when the command drops to SandboxUID, the
// highest ancestor of each root that "other" cannot search (and that lies in
// no granted root). Nested areas are dropped.
func hiddenAreas(roots []viewRoot, sp *SandboxSpec, dropUID bool) []string {
	var cand []string
	if sp.RestrictFilesystem && !sp.AllowUnixSockets && isRealDir("/tmp") {
		cand = append(cand, "/tmp")
	}
	if dropUID {
		for _, r := range roots {
			for anc := range ancestors(r.path) {
				if withinRoot(anc, roots) {
					break
				}
				if hide, stop := blocksSearch(anc); stop {
					if hide {
						cand = append(cand, anc)
					}
					break
				}
			}
		}
	}
	return outermost(cand)
}

// blocksSearch says, of a directory on the way to a root, whether the way
// stops there (it is not a directory, or others may not search it) and
// whether it is to be hidden (the latter).
func blocksSearch(anc string) (hide, stop bool) {
	var st unix.Stat_t
	if unix.Lstat(anc, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return false, true
	}
	return st.Mode&0o001 == 0, st.Mode&0o001 == 0
}

// outermost is dirs sorted, without those within another of them.
func outermost(dirs []string) []string {
	sort.Strings(dirs)
	var out []string
	for _, c := range dirs {
		if !withinAny(c, out) {
			out = append(out, c)
		}
	}
	return out
}

// sharedInnerAreas are, for each root nested in a shared writable root
// (sharedDir: not idmapped, so the unprivileged uid has only what any user
// has there), the outermost directory between the two that the uid cannot
// search (a 0700 /tmp/TestX above a workspace in /tmp): hidden by a tmpfs
// in the view once the shared root is attached, so that the nested root
// stays reachable. What it hides the uid could not reach anyway. Read
// before the hidden areas are mounted (the shared root is in one).
func sharedInnerAreas(roots []viewRoot, dropUID bool) []string {
	if !dropUID {
		return nil
	}
	var cand []string
	for _, s := range roots {
		if !s.write || !sharedDir(s.path) {
			continue
		}
		for _, r := range roots {
			if r.path == s.path || !domain.PathWithin(r.path, s.path) {
				continue
			}
			for anc := range ancestors(r.path) {
				if !domain.PathWithin(anc, s.path) || anc == s.path {
					continue
				}
				if hide, stop := blocksSearch(anc); stop {
					if hide {
						cand = append(cand, anc)
					}
					break
				}
			}
		}
	}
	return outermost(cand)
}

// ancestors yields the proper ancestors of p below "/", outermost first.
func ancestors(p string) func(func(string) bool) {
	return func(yield func(string) bool) {
		parts := splitPath(p)
		cur := ""
		for _, c := range parts[:max(len(parts)-1, 0)] {
			cur += "/" + c
			if !yield(cur) {
				return
			}
		}
	}
}

func isRealDir(p string) bool {
	var st unix.Stat_t
	return unix.Lstat(p, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR
}

func withinAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if domain.PathWithin(p, d) {
			return true
		}
	}
	return false
}

func withinRoot(p string, roots []viewRoot) bool {
	for _, r := range roots {
		if domain.PathWithin(p, r.path) {
			return true
		}
	}
	return false
}

// withinCloned reports whether p lies inside one of roots (its parents,
// sorted first) that was cloned to be re-attached.
func withinCloned(p string, roots []viewRoot) bool {
	for _, r := range roots {
		if r.tree >= 0 && domain.PathWithin(p, r.path) {
			return true
		}
	}
	return false
}

// openNoSymlinks opens the canonical path with O_PATH, refusing a symlink
// in any component: a root's ancestor swapped for a link (by a command of
// the same turn, in a writable root) cannot redirect a mount.
func openNoSymlinks(path string) (int, error) {
	return unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS})
}

// cloneTree returns a detached recursive clone of the mount tree at path.
func cloneTree(path string) (int, error) {
	fd, err := openNoSymlinks(path)
	if err != nil {
		return -1, fmt.Errorf("open %s: %w", path, err)
	}
	defer unix.Close(fd)
	tree, err := unix.OpenTree(fd, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_EMPTY_PATH|unix.AT_RECURSIVE)
	if err != nil {
		return -1, fmt.Errorf("open_tree %s: %w", path, err)
	}
	return tree, nil
}

// attachRoot attaches r's clone on top of r.path, creating the mount point
// first when r lies in a hidden area.
func attachRoot(r *viewRoot, areas []string) error {
	if withinAny(r.path, areas) {
		if err := makeMountPoint(r.path, r.tree); err != nil {
			return err
		}
	}
	fd, err := openNoSymlinks(r.path)
	if err != nil {
		return fmt.Errorf("open %s: %w", r.path, err)
	}
	defer unix.Close(fd)
	if err := unix.MoveMount(r.tree, "", fd, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH); err != nil {
		return fmt.Errorf("move_mount %s: %w", r.path, err)
	}
	unix.Close(r.tree)
	r.tree = -1
	return nil
}

// makeMountPoint creates path (a directory, or an empty file when the tree
// is a file) and its missing parents inside a hidden area's tmpfs.
func makeMountPoint(path string, tree int) error {
	var st unix.Stat_t
	if err := unix.Fstat(tree, &st); err != nil {
		return fmt.Errorf("stat the clone of %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("mount point %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		if err := unix.Mkdir(path, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
			return fmt.Errorf("mount point %s: %w", path, err)
		}
		return nil
	}
	fd, err := unix.Open(path, unix.O_CREAT|unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return fmt.Errorf("mount point %s: %w", path, err)
	}
	return unix.Close(fd)
}

// hostUnixSockets returns the absolute paths of the pathname unix sockets
// bound in this network namespace (abstract and relative names skipped).
// Run reads them (the helper may be in a network namespace of its own).
func hostUnixSockets() []string {
	f, err := os.Open("/proc/net/unix")
	if err != nil {
		return nil
	}
	defer f.Close()
	seen := map[string]bool{}
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 8 {
			continue
		}
		p := strings.Join(fields[7:], " ")
		if !strings.HasPrefix(p, "/") || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out
}

// maskSocket covers the socket at path (if it is one in the view) with a
// bind mount of /dev/null. The path is opened without following a final
// symlink, so a path swapped for a link is never masked through.
func maskSocket(path string) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil // not visible in the view (hidden area, gone, or not searchable)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return nil
	}
	null, err := unix.OpenTree(unix.AT_FDCWD, "/dev/null", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	if err != nil {
		return fmt.Errorf("mask host socket %s: open_tree /dev/null: %w", path, err)
	}
	defer unix.Close(null)
	if err := unix.MoveMount(null, "", fd, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH); err != nil {
		return fmt.Errorf("mask host socket %s: %w", path, err)
	}
	return nil
}

// sharedDir reports whether path is a directory every user may create in
// and only an entry's owner may remove from (world-writable and sticky),
// and one of the system's shared temporary directories (sharedTempDirs:
// /tmp, /var/tmp, /dev/shm). Such a writable root is not idmapped: the
// sandbox uid creates and uses its own files there as any user may, and
// mapped to the directory's owner (root) the command became the owner of
// everything root keeps there, whatever its mode: root services' private
// temp directories, every other command's isolated temp dir (the
// twenty-sixth review).
func sharedDir(path string) bool {
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil {
		return false
	}
	return st.Mode&unix.S_IFMT == unix.S_IFDIR && sharedRoot(path, st.Mode)
}

// sharedRoot reports whether the directory path, of mode mode, is shared:
// world-writable and sticky, and one of sharedTempDirs (or where one
// leads). The mode alone is the agent's to set: a command owns its
// workspace root through the idmap, and one that ran `chmod 1777 .` made
// the root look like /tmp, whose check judges only the top entries a
// command could have made (the rest was left unjudged: a .claude/settings.json
// planted in a subdirectory stayed) and whose lock is shared (two of its
// commands ran at once): the hundred-and-fortieth review. Another shared
// directory given as a root is judged and locked as any other root.
func sharedRoot(path string, mode uint32) bool {
	return sharedMode(mode) && slices.Contains(sharedTempDirs(), path)
}

// sharedRootPath is sharedRoot of the directory at path (not followed).
func sharedRootPath(path string) bool {
	var st unix.Stat_t
	return unix.Lstat(path, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR && sharedRoot(path, st.Mode)
}

// sharedMode reports whether a directory's mode makes it shared:
// world-writable and sticky.
func sharedMode(mode uint32) bool { return mode&unix.S_ISVTX != 0 && mode&0o002 != 0 }

// sharedTempDirs are the system's shared temporary directories, as named
// and where each leads.
var sharedTempDirs = sync.OnceValue(func() []string {
	out := []string{"/tmp", "/var/tmp", "/dev/shm"}
	for _, d := range out[:3] {
		if c, err := filepath.EvalSymlinks(d); err == nil && c != d {
			out = append(out, c)
		}
	}
	return out
})

// idmapFor returns a user namespace whose map sends the owner of path (uid
// and gid) to SandboxUID, for an idmapped mount: the one Run passed, or one
// made here (an owner Run did not foresee), cached per owner.
func idmapFor(tree int, path string, sp *SandboxSpec, cache map[[2]int]int) (int, error) {
	// The owner of what was cloned, not of what the path leads to now.
	var st unix.Stat_t
	if err := unix.Fstat(tree, &st); err != nil {
		return -1, fmt.Errorf("stat %s: %w", path, err)
	}
	if fd := passedIdmap(sp, IdmapOwner{UID: int(st.Uid), GID: int(st.Gid)}); fd >= 0 {
		return fd, nil
	}
	key := [2]int{int(st.Uid), int(st.Gid)}
	if fd, ok := cache[key]; ok {
		return fd, nil
	}
	fd, err := idmapUserns(selfExe, key[0], key[1], sp.UID, sp.GID)
	if err != nil {
		return -1, fmt.Errorf("idmap %s: %w", path, err)
	}
	cache[key] = fd
	return fd, nil
}

// idmapUserns creates a user namespace mapping uid→hostUID and gid→hostGID
// and returns a descriptor of it. The namespace is made by starting a child
// (executing exe) that stops (ptrace) once its execve completes, before it
// runs any instruction of exe, so it runs no code: its
// namespace is opened, then it is killed. The caller's goroutine is locked to
// its thread (ptrace ties the child to the tracing thread).
func idmapUserns(exe string, uid, gid, hostUID, hostGID int) (int, error) {
	attr := &syscall.SysProcAttr{
		Cloneflags:  unix.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: hostUID, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: hostGID, Size: 1}},
		Ptrace:      true,
		Pdeathsig:   unix.SIGKILL,
	}
	var proc *os.Process
	err := startMapped(attr, func() (err error) {
		proc, err = os.StartProcess(exe, []string{"turnstile-idmap"}, &os.ProcAttr{Sys: attr})
		return err
	})
	if err != nil {
		return -1, fmt.Errorf("start the user namespace holder: %w", err)
	}
	defer func() {
		proc.Kill()
		proc.Wait()
	}()
	fd, err := unix.Open(fmt.Sprintf("/proc/%d/ns/user", proc.Pid), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("open the user namespace: %w", err)
	}
	return fd, nil
}

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// mountOpKind says what the helper mounts at a path.
type mountOpKind int

const (
	// opPin: a writable bind of the directory onto itself. A mount point
	// cannot be renamed or removed (EBUSY), so the directory stays in
	// place while its contents stay writable.
	opPin mountOpKind = iota + 1
	// opReadOnly: a recursive read-only bind of the path onto itself
	// (directory or file): unwritable and immovable.
	opReadOnly
	// opPinLink: a bind of a symlink onto itself: the link (whose target
	// cannot change) cannot be removed or replaced.
	opPinLink
	// opMask: an empty read-only tmpfs (mode 0) over a directory, or an
	// empty read-only mode-0 file over a file: the contents are hidden,
	// and nothing can be read, written or created there. Reopened
	// subtrees are bound back inside.
	opMask
)

// mountOp is one mount the helper makes in its mount namespace.
type mountOp struct {
	path string
	kind mountOpKind
	// reopen lists, for opMask, the grants strictly inside the masked
	// directory that reopen it: each is cloned before the mask and bound
	// back afterwards (read-only when the view gives read there but the
	// Landlock grants would give write).
	reopen []reopenBind
}

type reopenBind struct {
	path     string
	readOnly bool
}

// mountPlan returns the mounts that make the kernel enforce the view's
// carve-outs and pins inside granted directories, sorted so that a
// directory is handled before anything below it:
//   - a read-only carve-out under a writable grant: opReadOnly;
//   - a deny carve-out under any grant: opMask (with its reopened grants);
//   - a pinned directory under a writable parent: opPin;
//   - every directory between such a path and the writable grant that holds
//     it, and every writable grant whose parent is writable: opPin, so that
//     no ancestor can be renamed or removed to carry the path away.
//
// A carve-out that does not exist needs nothing (a reserved one is held by
// Run first; missing at this point is an error when it lies in a writable
// directory). A protected path that is a symlink is pinned (opPinLink) and
// its target carved out.
func (v *fsView) mountPlan() ([]mountOp, error) {
	ops := map[string]*mountOp{}
	set := func(p string, k mountOpKind) *mountOp {
		if o, ok := ops[p]; ok {
			if k > o.kind {
				o.kind = k
			}
			return o
		}
		o := &mountOp{path: p, kind: k}
		ops[p] = o
		return o
	}
	tm := newTypeMemo()
	v.listRoots(tm)
	for _, c := range v.carves {
		lg := v.grantAt(c.Path)
		if accessRank(c.Access) >= accessRank(lg) {
			continue
		}
		typ := tm.typeOf(c.Path)
		if typ == 0 {
			// Missing although Run held it: refused, unless its directory
			// is not in the command's view either (in a hidden area such
			// as /tmp), where nothing can be created.
			if tm.exists(filepath.Dir(c.Path)) && c.Reserved && v.grantAt(filepath.Dir(c.Path)) == domain.AccessWrite {
				_, err := os.Lstat(c.Path)
				return nil, fmt.Errorf("reserved protected name %s could not be held: %v", c.Path, err)
			}
			continue
		}
		if typ == unix.S_IFLNK {
			if c.Kind == domain.PathProtected || c.Kind == pathKindGitFile {
				return nil, fmt.Errorf("protected path %s is a symlink: refused", c.Path)
			}
			continue
		}
		if c.Access == domain.AccessRead {
			if v.overlaid[c.Path] {
				// The command's overlay is mounted there: pinned (it
				// and its parents stay in place), writable to it.
				set(c.Path, opPin)
				continue
			}
			set(c.Path, opReadOnly)
			continue
		}
		o := set(c.Path, opMask)
		if !c.Reopenable || typ != unix.S_IFDIR {
			continue
		}
		for _, g := range v.grants {
			if g.Path == c.Path || !domain.PathWithin(g.Path, c.Path) {
				continue
			}
			if !tm.exists(g.Path) {
				continue
			}
			eff, _ := v.access(g.Path)
			if eff == domain.AccessDeny {
				continue
			}
			o.reopen = append(o.reopen, reopenBind{path: g.Path, readOnly: eff != domain.AccessWrite && v.grantAt(g.Path) == domain.AccessWrite})
		}
	}
	for _, p := range v.pins {
		if tm.isDir(p.Path) && v.grantAt(filepath.Dir(p.Path)) == domain.AccessWrite {
			set(p.Path, opPin)
		}
	}
	links, left := v.protectedLinks(tm)
	for _, l := range links {
		if v.grantAt(filepath.Dir(l)) == domain.AccessWrite {
			set(l, opPinLink)
		}
	}
	for _, d := range left {
		if v.grantAt(filepath.Dir(d)) == domain.AccessWrite {
			set(d, opPin)
		}
	}
	// The chains: every directory between a mounted path and the
	// outermost writable directory above it, and the writable grants.
	var starts []string
	for p := range ops {
		starts = append(starts, p)
	}
	for _, g := range v.grants {
		if g.Access == domain.AccessWrite && g.Kind != domain.PathDevice {
			starts = append(starts, g.Path)
		}
	}
	for _, p := range starts {
		for a := p; a != "/"; a = filepath.Dir(a) {
			if v.grantAt(filepath.Dir(a)) != domain.AccessWrite {
				break
			}
			if a == p && ops[a] != nil {
				continue
			}
			if tm.isDir(a) {
				set(a, opPin)
			}
		}
	}
	out := make([]mountOp, 0, len(ops))
	for _, o := range ops {
		out = append(out, *o)
	}
	// Parents first: a path sorts after every path that is a prefix of it.
	sort.Slice(out, func(i, j int) bool { return pathLess(out[i].path, out[j].path) })
	return out, nil
}

// pathLess orders paths element by element, so that a directory comes
// before everything below it.
func pathLess(a, b string) bool {
	return strings.ReplaceAll(a, "/", "\x00") < strings.ReplaceAll(b, "/", "\x00")
}

// mountCarveOuts runs in the helper inside its own user + mount namespace:
// it makes every mount private (nothing propagates back to the host) and
// makes each mount of the plan, in order. Mounts are made on file
// descriptors (open_tree, fsmount, mount_setattr, move_mount), so a path
// swapped for a symlink between the check and the mount cannot redirect
// it. A path that vanished (or lies in a masked directory) is skipped. It
// returns the paths it mounted; Landlock (which also forbids unmounting
// them) then grants what the view grants.
func mountCarveOuts(ops []mountOp) (map[string]bool, error) {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return nil, fmt.Errorf("make / private: %w", err)
	}
	done := map[string]bool{}
	shared := newSharedMask()
	defer shared.close()
	for _, o := range ops {
		var err error
		switch o.kind {
		case opPin:
			err = bindSelf(o.path, false, true)
		case opReadOnly:
			err = bindSelf(o.path, true, false)
		case opPinLink:
			err = bindLink(o.path)
		case opMask:
			err = mask(o.path, o.reopen, shared)
		}
		if err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue
			}
			return nil, err
		}
		done[o.path] = true
	}
	return done, nil
}

// openNoFollow opens the canonical path with openNoSymlinks (no symlink in
// any component: one swapped in since the plan was made by a command
// running concurrently fails the open instead of redirecting a mount) and
// refuses a symlink.
func openNoFollow(path string) (int, *unix.Stat_t, error) {
	fd, err := openNoSymlinks(path)
	if errors.Is(err, unix.ELOOP) {
		return -1, nil, fmt.Errorf("open %s: a component is a symlink (swapped since the plan was made?): %w", path, err)
	}
	if err != nil {
		return -1, nil, fmt.Errorf("open %s: %w", path, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, nil, fmt.Errorf("stat %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		unix.Close(fd)
		return -1, nil, fmt.Errorf("protected path %s is a symlink: refused", path)
	}
	return fd, &st, nil
}

// bindSelf bind-mounts path onto itself, recursively; read-only when ro. A
// pin (dirOnly) of a directory that already is a mount root is left as it
// is: it already cannot be moved.
func bindSelf(path string, ro, dirOnly bool) error {
	fd, st, err := openNoFollow(path)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if dirOnly {
		if st.Mode&unix.S_IFMT != unix.S_IFDIR {
			return nil
		}
		var stx unix.Statx_t
		if unix.Statx(fd, "", unix.AT_EMPTY_PATH, unix.STATX_BASIC_STATS, &stx) == nil &&
			stx.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT != 0 && stx.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0 {
			return nil
		}
	}
	tree, err := unix.OpenTree(fd, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_EMPTY_PATH|unix.AT_RECURSIVE)
	if err != nil {
		return fmt.Errorf("open_tree %s: %w", path, err)
	}
	defer unix.Close(tree)
	if ro {
		attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
		if err := unix.MountSetattr(tree, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &attr); err != nil {
			return fmt.Errorf("mount_setattr(RDONLY) %s: %w", path, err)
		}
	}
	if err := unix.MoveMount(tree, "", fd, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH); err != nil {
		return fmt.Errorf("move_mount %s: %w", path, err)
	}
	return nil
}

// bindLink bind-mounts the symlink path onto itself (never following it,
// nor any symlink on the way to it).
func bindLink(path string) error {
	dir, err := openNoSymlinks(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("open %s: %w", filepath.Dir(path), err)
	}
	fd, err := unix.Openat(dir, filepath.Base(path), unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	unix.Close(dir)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFLNK {
		return fmt.Errorf("protected link %s is no longer a symlink: refused", path)
	}
	tree, err := unix.OpenTree(fd, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_EMPTY_PATH)
	if err != nil {
		return fmt.Errorf("open_tree %s: %w", path, err)
	}
	defer unix.Close(tree)
	if err := unix.MoveMount(tree, "", fd, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH); err != nil {
		return fmt.Errorf("move_mount %s: %w", path, err)
	}
	return nil
}

// mask hides path: a directory under an empty read-only tmpfs, a file under
// an empty read-only file, both mode 0 (a process without capabilities can
// neither read nor list them). The reopened subtrees are cloned first and
// bound back through directories of mode 0111 made in the tmpfs. Without
// reopened subtrees the mask is a clone of shared's file or directory.
func mask(path string, reopen []reopenBind, shared *sharedMask) error {
	fd, st, err := openNoFollow(path)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	isDir := st.Mode&unix.S_IFMT == unix.S_IFDIR
	if !isDir {
		reopen = nil
	}
	if len(reopen) == 0 {
		src, err := shared.clone(isDir)
		if err != nil {
			return fmt.Errorf("mask %s: %w", path, err)
		}
		defer unix.Close(src)
		if err := unix.MoveMount(src, "", fd, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH); err != nil {
			return fmt.Errorf("mask %s: move_mount: %w", path, err)
		}
		return nil
	}
	clones := make([]int, 0, len(reopen))
	defer func() {
		for _, c := range clones {
			unix.Close(c)
		}
	}()
	for _, r := range reopen {
		rfd, _, err := openNoFollow(r.path)
		if err != nil {
			return err
		}
		c, err := unix.OpenTree(rfd, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_EMPTY_PATH|unix.AT_RECURSIVE)
		unix.Close(rfd)
		if err != nil {
			return fmt.Errorf("open_tree %s: %w", r.path, err)
		}
		clones = append(clones, c)
		if r.readOnly {
			attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
			if err := unix.MountSetattr(c, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &attr); err != nil {
				return fmt.Errorf("mount_setattr(RDONLY) %s: %w", r.path, err)
			}
		}
	}
	// A directory with reopened subtrees: its own tmpfs, with a skeleton.
	mnt, err := emptyTmpfs("0111")
	if err != nil {
		return fmt.Errorf("mask %s: %w", path, err)
	}
	defer unix.Close(mnt)
	for _, r := range reopen {
		rel := strings.TrimPrefix(r.path, path+"/")
		parts := strings.Split(rel, "/")
		for i := range parts {
			if err := unix.Mkdirat(mnt, strings.Join(parts[:i+1], "/"), 0o111); err != nil && !errors.Is(err, unix.EEXIST) {
				return fmt.Errorf("mask %s: skeleton for %s: %w", path, r.path, err)
			}
		}
	}
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(mnt, "", unix.AT_EMPTY_PATH, &attr); err != nil {
		return fmt.Errorf("mask %s: mount_setattr(RDONLY): %w", path, err)
	}
	if err := unix.MoveMount(mnt, "", fd, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH); err != nil {
		return fmt.Errorf("mask %s: move_mount: %w", path, err)
	}
	for i, r := range reopen {
		tfd, _, err := openNoFollow(r.path)
		if err != nil {
			return fmt.Errorf("mask %s: reopen: %w", path, err)
		}
		err = unix.MoveMount(clones[i], "", tfd, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH)
		unix.Close(tfd)
		if err != nil {
			return fmt.Errorf("mask %s: bind back %s: %w", path, r.path, err)
		}
	}
	return nil
}

// emptyTmpfs creates a detached, tiny tmpfs (nosuid, nodev, noexec) whose
// root has the given mode, and returns its mount fd.
func emptyTmpfs(mode string) (int, error) {
	mnt, err := newFS("tmpfs", [][2]string{{"mode", mode}, {"size", "64k"}, {"nr_inodes", "256"}}, unix.MOUNT_ATTR_NOEXEC)
	if err != nil {
		return -1, fmt.Errorf("an empty tmpfs: %w", err)
	}
	return mnt, nil
}

package sandbox

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sys/unix"
)

// A profile's "overlay" rule (domain.FilesystemEntry.Overlay) gives a
// command a directory it may write without writing it: a build cache or a
// package store the host's tools trust. Made writable, such a directory is
// a way out of the sandbox (a command points the Go build cache's entry for
// a package at an object of its own, and the person's next build, outside
// the sandbox, links it: the twenty-sixth review); made read-only, the
// tools that use it fail. The helper mounts an overlay there instead: the
// directory is its lower layer (a clone, idmapped to the command's uid as a
// writable root is), and the upper layer and its work directory are on a
// tmpfs of the command's own, which goes with its mount namespace when the
// command ends. The command reads what is there and writes a copy nobody
// else sees.

// Bounds of the overlays' upper layers (one tmpfs, in memory, for every
// overlay of a command: a profile with k overlay keys gave a command k of
// them, k GiB of the host's memory): past them a command's writes to any of
// its overlays fail with ENOSPC.
const (
	overlayScratchSize   = "1g"
	overlayScratchInodes = "262144"
)

// errOverlayNotDir: the path is no longer a directory (it stays read-only).
var errOverlayNotDir = errors.New("an overlay needs a directory")

// overlayScratch is the tmpfs that holds the upper layers and work
// directories of a command's overlays, each in a directory of its own
// ("0", "1", …), made on first use.
type overlayScratch struct {
	fd, n int
}

func newOverlayScratch() *overlayScratch { return &overlayScratch{fd: -1} }

// next makes the next overlay's directory and returns it (O_PATH).
func (o *overlayScratch) next() (int, error) {
	if o.fd < 0 {
		fd, err := newFS("tmpfs", [][2]string{{"size", overlayScratchSize}, {"nr_inodes", overlayScratchInodes}, {"mode", "0700"}}, 0)
		if err != nil {
			return -1, fmt.Errorf("the overlays' tmpfs: %w", err)
		}
		o.fd = fd
	}
	name := fmt.Sprint(o.n)
	o.n++
	if err := unix.Mkdirat(o.fd, name, 0o700); err != nil {
		return -1, err
	}
	return unix.Openat(o.fd, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
}

func (o *overlayScratch) close() {
	if o.fd >= 0 {
		unix.Close(o.fd)
		o.fd = -1
	}
}

// overlayTree returns a detached overlay mount of the directory path, for
// buildRootView to attach there; its upper layer is in scratch.
func overlayTree(path string, sp *SandboxSpec, dropUID bool, userns map[[2]int]int, scratchFS *overlayScratch) (int, error) {
	lower, err := cloneTree(path)
	if err != nil {
		return -1, err
	}
	defer unix.Close(lower)
	var st unix.Stat_t
	if err := unix.Fstat(lower, &st); err != nil {
		return -1, fmt.Errorf("overlay %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return -1, errOverlayNotDir
	}
	uid, gid := int(st.Uid), int(st.Gid)
	if dropUID && !sharedRoot(path, st.Mode) {
		fd, err := idmapFor(lower, path, sp, userns)
		if err != nil {
			return -1, err
		}
		attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_IDMAP, Userns_fd: uint64(fd)}
		if err := unix.MountSetattr(lower, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &attr); err != nil {
			return -1, fmt.Errorf("overlay %s: idmap the lower layer: %w", path, err)
		}
		uid, gid = sp.UID, sp.GID
	}
	scratch, err := scratchFS.next()
	if err != nil {
		return -1, fmt.Errorf("overlay %s: %w", path, err)
	}
	defer unix.Close(scratch)
	if err := unix.Mkdirat(scratch, "upper", st.Mode&0o7777); err != nil {
		return -1, fmt.Errorf("overlay %s: %w", path, err)
	}
	if err := unix.Fchmodat(scratch, "upper", st.Mode&0o7777, 0); err != nil { // past the umask
		return -1, fmt.Errorf("overlay %s: %w", path, err)
	}
	if err := unix.Fchownat(scratch, "upper", uid, gid, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return -1, fmt.Errorf("overlay %s: %w", path, err)
	}
	if err := unix.Mkdirat(scratch, "work", 0o700); err != nil {
		return -1, fmt.Errorf("overlay %s: %w", path, err)
	}
	var layers [2]int
	for i, name := range []string{"upper", "work"} {
		if layers[i], err = unix.Openat(scratch, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err != nil {
			return -1, fmt.Errorf("overlay %s: %w", path, err)
		}
		defer unix.Close(layers[i])
	}
	var ov int
	for _, byPath := range []bool{false, true} {
		// Layers as descriptors need Linux 6.13 (nothing is attached);
		// before it, as /proc/self/fd paths (the helper's own procfs).
		for _, userxattr := range []bool{false, true} {
			// In a user namespace (a server that is not root) overlay
			// may need to keep its attributes in user.* xattrs.
			if ov, err = overlayMount(lower, layers[0], layers[1], byPath, userxattr); err == nil {
				return ov, nil
			}
		}
	}
	return -1, fmt.Errorf("overlay %s: %w", path, err)
}

// overlayMount makes the overlay of the layers given as descriptors (or as
// their /proc/self/fd paths) and returns its detached mount (nosuid, nodev).
func overlayMount(lower, upper, work int, byPath, userxattr bool) (int, error) {
	fs, err := unix.Fsopen("overlay", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("fsopen overlay: %w", err)
	}
	defer unix.Close(fs)
	for _, l := range []struct {
		key string
		fd  int
	}{{"lowerdir+", lower}, {"upperdir", upper}, {"workdir", work}} {
		if byPath {
			key := strings.TrimSuffix(l.key, "+")
			if err := unix.FsconfigSetString(fs, key, fmt.Sprintf("/proc/self/fd/%d", l.fd)); err != nil {
				return -1, fmt.Errorf("overlay %s: %w", key, err)
			}
			continue
		}
		if err := unix.FsconfigSetFd(fs, l.key, l.fd); err != nil {
			return -1, fmt.Errorf("overlay %s: %w", l.key, err)
		}
	}
	if userxattr {
		if err := unix.FsconfigSetFlag(fs, "userxattr"); err != nil {
			return -1, fmt.Errorf("overlay userxattr: %w", err)
		}
	}
	if err := unix.FsconfigCreate(fs); err != nil {
		return -1, fmt.Errorf("create the overlay: %w%s", err, fsLog(fs))
	}
	m, err := unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
	if err != nil {
		return -1, fmt.Errorf("fsmount overlay: %w", err)
	}
	return m, nil
}

// newFS makes a file system of type typ with the string options and
// returns its detached mount (nosuid, nodev, and the attributes in attr).
func newFS(typ string, opts [][2]string, attr int) (int, error) {
	fs, err := unix.Fsopen(typ, unix.FSOPEN_CLOEXEC)
	if err != nil {
		return -1, err
	}
	defer unix.Close(fs)
	for _, o := range opts {
		if err := unix.FsconfigSetString(fs, o[0], o[1]); err != nil {
			return -1, fmt.Errorf("%s=%s: %w", o[0], o[1], err)
		}
	}
	if err := unix.FsconfigCreate(fs); err != nil {
		return -1, fmt.Errorf("create %s: %w", typ, err)
	}
	return unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|attr)
}

// fsLog returns what the kernel logged on a file system context (its
// messages, read from the descriptor), as ": message; …", or "".
func fsLog(fs int) string {
	var out string
	buf := make([]byte, 1024)
	for range 8 {
		n, err := unix.Read(fs, buf)
		if err != nil || n <= 0 {
			break
		}
		out += "; " + string(buf[:n])
	}
	if out == "" {
		return ""
	}
	return " (" + out[2:] + ")"
}

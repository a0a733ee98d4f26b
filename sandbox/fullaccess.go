package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// The full_access view. The helper of a full_access command runs as pid 1
// of a new PID namespace, in new user and mount namespaces (the user
// namespace maps the whole id range to itself when the server is root, the
// server's own uid and gid otherwise), and before it execs the command:
//
//  1. every mount is made private (nothing propagates either way);
//  2. each gateway secret is located — through the descriptor Run held
//     since the first spawn (so that a secret renamed, or whose parent was
//     renamed, by an earlier command is found where it now is) and at its
//     configured path — and masked in every mount of its filesystem whose
//     root contains it (the same filesystem mounted twice, or bound
//     elsewhere), and every mount of a directory inside it is masked too
//     (mask: an empty read-only tmpfs, or an empty read-only file). Every
//     directory above a masked path is pinned first (bound onto itself: a
//     mount point cannot be renamed or removed), so the data directory
//     cannot be moved aside and replaced by one the command made. Masks
//     sit on the directory entry, so a rename from outside carries them
//     along; the masking repeats until a pass finds every location covered;
//     The helper's own program file is made read-only the same way (the
//     server starts it for every command: rewritten, it would run the
//     next command's set-up);
//  3. the kernel's control filesystems (sysfs, cgroup, debugfs, …) become
//     read-only: a process whose kernel uid is 0 passes their permission
//     checks from any user namespace, and core_pattern, uevent_helper or
//     cgroup.kill would run code as the real root or kill the server;
//  4. nodev is set on every mount, and /dev becomes a small tmpfs with
//     only null, zero, full, random, urandom, tty, a devpts of its own
//     (ptmx) and the host's /dev/shm: no block device is reachable;
//  5. a procfs of the new PID namespace covers /proc (and every other
//     procfs mount), with /proc/sys, /proc/sysrq-trigger, /proc/irq,
//     /proc/bus and /proc/fs read-only: no host process is visible, and no
//     /proc/<pid>/root leads out;
//  6. CAP_SYS_ADMIN leaves every capability set, the bounding set
//     included (a non-root server's command keeps none at all): nothing in
//     the namespace can mount, unmount, move or remount, and a namespace
//     the command creates copies the masks as locked mounts (MNT_LOCKED:
//     no umount, no move, no non-recursive bind of a parent revealing them,
//     and open_by_handle_at refuses a mount with locked children).
//
// Why not a second, nested user namespace for the command instead of the
// bounding set: its id maps must be written by a process outside it that
// holds CAP_SETUID over the outer namespace (new_idmap_permitted), so the
// helper would have to stay resident as the command's parent (one more
// fork per spawn, and a privileged process the command could signal). The
// command can make that nesting itself, and the kernel then locks every
// copied mount: the guarantee is the same.

// fullAccessDevNodes are the device nodes a full_access command sees.
var fullAccessDevNodes = []string{"null", "zero", "full", "random", "urandom", "tty"}

// readOnlyKernelFS are the filesystem types made read-only in the view.
var readOnlyKernelFS = map[string]bool{
	"sysfs": true, "cgroup": true, "cgroup2": true, "securityfs": true, "debugfs": true, "tracefs": true,
	"bpf": true, "configfs": true, "pstore": true, "efivarfs": true, "binfmt_misc": true, "fusectl": true,
	"selinuxfs": true, "rpc_pipefs": true, "nfsd": true,
}

// readOnlyProc are the paths of the namespace's procfs made read-only.
var readOnlyProc = []string{"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs"}

// runFullAccess is the helper of a full_access command: it builds the view
// above and execs the command. It returns only on failure.
func runFullAccess(msg *helperMessage) error {
	sp := &msg.Spec
	if !sp.InNamespace {
		return errors.New("full_access isolation needs the helper's namespaces")
	}
	cwd, _, ok, err := canonicalPath(domain.CleanPath(msg.Cwd))
	if err != nil || !ok {
		return fmt.Errorf("canonicalise cwd %q: %v", msg.Cwd, err)
	}
	if err := buildFullAccessView(sp); err != nil {
		return err
	}
	path, err := lookPath(msg.Argv[0], envValue(msg.Env, "PATH"), cwd)
	if err != nil {
		return err
	}
	// The held secrets' descriptors (and anything else) close on exec.
	if err := chdirCloseOnExec(cwd); err != nil {
		return err
	}
	// No cgroup namespace of its own (seccomp_cgroupns.go), set while
	// the helper still holds CAP_SYS_ADMIN in its user namespace (no
	// no_new_privs: a full_access command may run sudo); where the probe
	// found seccomp.
	if arch, ok := nativeSeccompArch(); ok && sp.Seccomp {
		if err := installFilter(buildCgroupNSFilter(arch)); err != nil {
			return err
		}
	}
	if unix.Geteuid() == 0 {
		err = dropSysAdmin()
	} else {
		err = dropPrivileges(0, 0)
	}
	if err != nil {
		return err
	}
	if err := dieWithParent(); err != nil {
		return err
	}
	err = unix.Exec(path, msg.Argv, msg.Env)
	return fmt.Errorf("exec %s: %w", path, err)
}

// buildFullAccessView builds the view described above (steps 1–5).
func buildFullAccessView(sp *SandboxSpec) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make / private: %w", err)
	}
	mounts, err := readMountinfo("/proc/self/mountinfo")
	if err != nil {
		return err
	}
	pinned := map[string]bool{}
	if err := maskSecrets(sp, pinned); err != nil {
		return err
	}
	if err := protectOwnProgram(pinned); err != nil {
		return err
	}
	// The device nodes and /dev/shm are cloned after the masks and pins,
	// so that the recursive copy of /dev/shm carries them: cloned before,
	// it was the host's /dev/shm unmasked, moved over the masked one, and
	// a token file or data directory kept there was the command's to read
	// and rewrite (the hundred-and-fifty-sixth review). And before nodev
	// is set on every mount (kernelFSReadOnly), which the nodes' copies
	// would take.
	nodes, err := cloneDevNodes()
	if err != nil {
		return err
	}
	defer closeDevNodes(nodes)
	if err := kernelFSReadOnly(mounts); err != nil {
		return err
	}
	if err := mountOwnProc(mounts); err != nil {
		return err
	}
	return mountDev(nodes)
}

func closeDevNodes(nodes []devNode) {
	for _, n := range nodes {
		unix.Close(n.fd)
	}
}

// kernelFSReadOnly makes the kernel's control filesystems read-only
// (outside /proc, which its caller mounts afresh) and sets nodev on every
// mount.
func kernelFSReadOnly(mounts []mountEntry) error {
	var readOnly []string // recursive: what lies below one is done
	for _, m := range mounts {
		if !readOnlyKernelFS[m.fstype] || domain.PathWithin(m.point, "/proc") || withinAny(m.point, readOnly) {
			continue
		}
		attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
		if err := unix.MountSetattr(unix.AT_FDCWD, m.point, unix.AT_RECURSIVE|unix.AT_SYMLINK_NOFOLLOW, &attr); err != nil && !errors.Is(err, unix.ENOENT) {
			return fmt.Errorf("make %s (%s) read-only: %w", m.point, m.fstype, err)
		}
		readOnly = append(readOnly, m.point)
	}
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_NODEV}
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, &attr); err != nil {
		return fmt.Errorf("set nodev on every mount: %w", err)
	}
	return nil
}

// dropSysAdmin takes CAP_SYS_ADMIN out of the calling thread's bounding,
// ambient, inheritable, effective and permitted sets, and checks it is
// gone; root keeps every other capability (in its user namespace).
func dropSysAdmin() error {
	if err := unix.Prctl(unix.PR_CAPBSET_DROP, unix.CAP_SYS_ADMIN, 0, 0, 0); err != nil {
		return fmt.Errorf("drop CAP_SYS_ADMIN from the bounding set: %w", err)
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	bit := uint32(1) << unix.CAP_SYS_ADMIN // < 32: in the first word
	data[0].Effective &^= bit
	data[0].Permitted &^= bit
	data[0].Inheritable &^= bit
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	in, err := unix.PrctlRetInt(unix.PR_CAPBSET_READ, unix.CAP_SYS_ADMIN, 0, 0, 0)
	if err != nil || in != 0 || (data[0].Effective|data[0].Permitted|data[0].Inheritable)&bit != 0 {
		return errors.New("CAP_SYS_ADMIN remains after dropping it")
	}
	return nil
}

// devNode is a detached clone of one of the host's /dev entries.
type devNode struct {
	name string
	fd   int
	dir  bool
}

// cloneDevNodes clones the host's harmless device nodes and /dev/shm
// (missing ones are skipped; a node that is not a character device is
// refused).
func cloneDevNodes() ([]devNode, error) {
	var out []devNode
	fail := func(err error) ([]devNode, error) {
		for _, n := range out {
			unix.Close(n.fd)
		}
		return nil, err
	}
	for _, n := range append(fullAccessDevNodes, "shm") {
		p := "/dev/" + n
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			continue
		}
		dir := n == "shm"
		switch kind := st.Mode & unix.S_IFMT; {
		case dir && kind != unix.S_IFDIR:
			continue
		case !dir && kind != unix.S_IFCHR:
			return fail(fmt.Errorf("%s is not a character device", p))
		}
		flags := unix.OPEN_TREE_CLONE | unix.OPEN_TREE_CLOEXEC
		if dir {
			flags |= unix.AT_RECURSIVE
		}
		fd, err := unix.OpenTree(unix.AT_FDCWD, p, uint(flags))
		if err != nil {
			return fail(fmt.Errorf("open_tree %s: %w", p, err))
		}
		if dir {
			// The copy of /dev/shm opens no device node a host left there
			// (a root-owned block node is the raw disk: the
			// hundred-and-eighteenth review).
			attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_NODEV}
			if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &attr); err != nil {
				unix.Close(fd)
				return fail(fmt.Errorf("set nodev on the copy of %s: %w", p, err))
			}
		}
		out = append(out, devNode{name: n, fd: fd, dir: dir})
	}
	return out, nil
}

// mountDev covers /dev with a small tmpfs holding the cloned nodes, a
// devpts of the namespace's own (ptmx) and the usual links.
func mountDev(nodes []devNode) error {
	if err := unix.Mount("tmpfs", "/dev", "tmpfs", unix.MS_NOSUID|unix.MS_NOEXEC, "mode=0755,size=64k,nr_inodes=64"); err != nil {
		return fmt.Errorf("mount /dev: %w", err)
	}
	for _, n := range nodes {
		p := "/dev/" + n.name
		if n.dir {
			if err := unix.Mkdir(p, 0o755); err != nil {
				return fmt.Errorf("mount point %s: %w", p, err)
			}
		} else {
			fd, err := unix.Open(p, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
			if err != nil {
				return fmt.Errorf("mount point %s: %w", p, err)
			}
			unix.Close(fd)
		}
		if err := unix.MoveMount(n.fd, "", unix.AT_FDCWD, p, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("move_mount %s: %w", p, err)
		}
	}
	if err := unix.Mkdir("/dev/pts", 0o755); err != nil {
		return fmt.Errorf("mount point /dev/pts: %w", err)
	}
	if err := unix.Mount("devpts", "/dev/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620"); err != nil {
		return fmt.Errorf("mount /dev/pts: %w", err)
	}
	for link, target := range map[string]string{"ptmx": "pts/ptmx", "fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"} {
		if err := unix.Symlink(target, "/dev/"+link); err != nil {
			return fmt.Errorf("link /dev/%s: %w", link, err)
		}
	}
	return nil
}

// mountOwnProc mounts the PID namespace's procfs on /proc, makes its
// kernel-wide controls read-only, and covers every other procfs mount
// with it.
func mountOwnProc(mounts []mountEntry) error {
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		if errors.Is(err, unix.EPERM) {
			// The kernel mounts a procfs from a user namespace only where
			// the host's is fully visible (mnt_already_visible).
			return fmt.Errorf("mount the PID namespace's /proc: %w (is the host's /proc partly covered by other mounts, as in a container?)", err)
		}
		return fmt.Errorf("mount the PID namespace's /proc: %w", err)
	}
	return ownProcOnly(mounts)
}

// ownProcOnly makes the namespace's procfs's kernel-wide controls
// read-only and covers every other procfs mount (a chroot's /proc: the
// host's, read-write to root) with it.
func ownProcOnly(mounts []mountEntry) error {
	for _, p := range readOnlyProc {
		if err := bindSelf(p, true, false); err != nil && !errors.Is(err, unix.ENOENT) {
			return err
		}
	}
	for _, m := range mounts {
		if m.fstype != "proc" || domain.PathWithin(m.point, "/proc") {
			continue
		}
		tree, err := cloneTree("/proc")
		if err != nil {
			return err
		}
		err = unix.MoveMount(tree, "", unix.AT_FDCWD, m.point, unix.MOVE_MOUNT_F_EMPTY_PATH)
		unix.Close(tree)
		if err != nil && !errors.Is(err, unix.ENOENT) {
			return fmt.Errorf("cover the procfs at %s: %w", m.point, err)
		}
	}
	return nil
}

// mountEntry is one line of /proc/self/mountinfo.
type mountEntry struct {
	id     uint64
	dev    string // major:minor
	root   string // the mount's root inside its filesystem
	point  string // where it is mounted
	fstype string
	opts   string // the super block's options (an overlay's layers)
}

// readMountinfo parses a mountinfo file.
func readMountinfo(path string) ([]mountEntry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var out []mountEntry
	for line := range strings.SplitSeq(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		sep := -1
		for i := 6; i < len(f); i++ {
			if f[i] == "-" {
				sep = i
				break
			}
		}
		if len(f) < 5 || sep < 0 || sep+1 >= len(f) {
			return nil, fmt.Errorf("%s: malformed line %q", path, line)
		}
		id, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: malformed line %q", path, line)
		}
		e := mountEntry{id: id, dev: f[2], root: unescapeMountinfo(f[3]), point: unescapeMountinfo(f[4]), fstype: f[sep+1]}
		if sep+3 < len(f) {
			e.opts = f[sep+3]
		}
		out = append(out, e)
	}
	return out, nil
}

// unescapeMountinfo decodes the octal escapes (\040 and the like) the
// kernel writes for spaces, tabs, newlines and backslashes.
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// relWithin returns p relative to dir ("" when equal), assuming
// domain.PathWithin(p, dir).
func relWithin(p, dir string) string {
	if p == dir {
		return ""
	}
	if dir == "/" {
		return strings.TrimPrefix(p, "/")
	}
	return strings.TrimPrefix(p, dir+"/")
}

// joinRel joins dir and a relative path from relWithin.
func joinRel(dir, rel string) string {
	if rel == "" {
		return dir
	}
	return filepath.Join(dir, rel)
}

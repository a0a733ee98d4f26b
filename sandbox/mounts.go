package sandbox

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// mountCarveOuts runs in the helper inside its own user + mount namespace:
// it makes every mount private (nothing propagates back to the host) and
// puts a recursive read-only bind mount on each read-only carve-out. The
// mount is done on file descriptors (open_tree, mount_setattr, move_mount),
// so a path swapped for a symlink between the check and the mount cannot
// redirect it. It returns the carve-outs it mounted.
func mountCarveOuts(carves []fsRule) (map[string]bool, error) {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return nil, fmt.Errorf("make / private: %w", err)
	}
	done := map[string]bool{}
	for _, c := range carves {
		if c.Access != domain.AccessRead {
			continue // deny carve-outs are enforced by Landlock rules
		}
		if err := bindReadOnly(c.Path); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue
			}
			return nil, err
		}
		done[c.Path] = true
	}
	return done, nil
}

// bindReadOnly bind-mounts path onto itself, recursively read-only.
func bindReadOnly(path string) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return fmt.Errorf("protected path %s is a symlink: refused", path)
	}
	tree, err := unix.OpenTree(fd, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_EMPTY_PATH|unix.AT_RECURSIVE)
	if err != nil {
		return fmt.Errorf("open_tree %s: %w", path, err)
	}
	defer unix.Close(tree)
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(tree, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &attr); err != nil {
		return fmt.Errorf("mount_setattr(RDONLY) %s: %w", path, err)
	}
	if err := unix.MoveMount(tree, "", fd, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH); err != nil {
		return fmt.Errorf("move_mount %s: %w", path, err)
	}
	return nil
}

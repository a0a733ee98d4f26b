package sandbox

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// Landlock access rights by the ABI that introduced them.
const (
	llFSv1 = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	llRead      = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	llFileMask  = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	llNetTCP    = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
	llScopedAll = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
)

// landlockABI asks the kernel for its Landlock ABI version; an error means
// Landlock is not supported (ENOSYS) or disabled (EOPNOTSUPP).
func landlockABI() (int, error) {
	v, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if e != 0 {
		return 0, e
	}
	return int(v), nil
}

// handledFS is every filesystem right the ABI knows: a strict ruleset
// handles all of them, so that anything not granted is denied.
func handledFS(abi int) uint64 {
	r := uint64(llFSv1)
	if abi >= 2 {
		r |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		r |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		r |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	return r
}

// llRule is one Landlock path-beneath rule.
type llRule struct {
	path   string
	access domain.Access
}

// rights maps an access level to Landlock rights for the ABI.
func rights(a domain.Access, abi int) uint64 {
	switch a {
	case domain.AccessWrite:
		return handledFS(abi)
	case domain.AccessRead:
		return llRead
	}
	return 0
}

// llConfig is a complete strict Landlock configuration.
type llConfig struct {
	abi        int
	restrictFS bool
	rules      []llRule
	denyTCP    bool
	// connectPort, when not 0 (with denyTCP, ABI 4+), is the one TCP port
	// connect may reach: the egress proxy's, inside the command's own
	// network namespace (egress.go).
	connectPort int
	scope       uint64 // LANDLOCK_SCOPE_* bits (ABI 6)
}

// buildRuleset creates the ruleset and adds every rule. Rules whose path does
// not exist are skipped (nothing to grant). The caller owns the returned fd.
func buildRuleset(c llConfig) (int, error) {
	kabi, err := landlockABI()
	if err != nil {
		return -1, fmt.Errorf("landlock is unavailable: %w", err)
	}
	if c.abi > kabi {
		return -1, fmt.Errorf("landlock ABI %d requested but the kernel offers ABI %d (never best-effort)", c.abi, kabi)
	}
	if c.abi > SupportedLandlockABI || c.abi < 1 {
		return -1, fmt.Errorf("landlock ABI %d is not supported by this build (1..%d)", c.abi, SupportedLandlockABI)
	}
	var attr unix.LandlockRulesetAttr
	size := unsafe.Sizeof(attr.Handled_access_fs)
	if c.restrictFS {
		attr.Handled_access_fs = handledFS(c.abi)
	}
	if c.abi >= 4 {
		size += unsafe.Sizeof(attr.Handled_access_net)
		if c.denyTCP {
			attr.Handled_access_net = llNetTCP
		}
	}
	if c.abi >= 6 {
		size += unsafe.Sizeof(attr.Scoped)
		attr.Scoped = c.scope
	}
	if attr.Handled_access_fs == 0 && attr.Handled_access_net == 0 && attr.Scoped == 0 {
		return -1, fmt.Errorf("landlock ABI %d can enforce nothing this plan asks for", c.abi)
	}
	fd, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if e != 0 {
		return -1, fmt.Errorf("landlock_create_ruleset: %w", e)
	}
	rfd := int(fd)
	if c.denyTCP && c.connectPort > 0 && c.abi >= 4 {
		if err := addConnectPortRule(rfd, c.connectPort); err != nil {
			unix.Close(rfd)
			return -1, err
		}
	}
	if !c.restrictFS {
		return rfd, nil
	}
	for _, r := range c.rules {
		if err := addPathRule(rfd, r, c.abi); err != nil {
			unix.Close(rfd)
			return -1, err
		}
	}
	return rfd, nil
}

func addPathRule(rfd int, r llRule, abi int) error {
	allowed := rights(r.access, abi)
	if allowed == 0 {
		return nil
	}
	// The path is canonical: no component is a symlink unless one was
	// swapped in since (a directory renamed away and a link put in its place
	// would otherwise redirect the grant). RESOLVE_NO_SYMLINKS refuses a link
	// in any component, the last included.
	fd, err := unix.Openat2(unix.AT_FDCWD, r.path, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS})
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		if errors.Is(err, unix.ELOOP) {
			return fmt.Errorf("landlock rule %s: a component became a symlink while the sandbox was prepared", r.path)
		}
		return fmt.Errorf("landlock rule %s: %w", r.path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("landlock rule %s: %w", r.path, err)
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return fmt.Errorf("landlock rule %s: the path became a symlink while the sandbox was prepared", r.path)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		allowed &= llFileMask
	}
	attr := unix.LandlockPathBeneathAttr{Allowed_access: allowed, Parent_fd: int32(fd)}
	_, _, e := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rfd), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if e != 0 {
		return fmt.Errorf("landlock_add_rule %s: %w", r.path, e)
	}
	return nil
}

// restrictSelf enforces the ruleset on the calling thread (ABI < 8 has no
// TSYNC): the caller holds its OS thread and execs from it.
func restrictSelf(rfd int) error {
	_, _, e := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(rfd), 0, 0)
	if e != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", e)
	}
	return nil
}

// llRuleNetPort is LANDLOCK_RULE_NET_PORT (golang.org/x/sys has no
// constant or struct for it).
const llRuleNetPort = 2

// llNetPortAttr is struct landlock_net_port_attr.
type llNetPortAttr struct {
	allowedAccess uint64
	port          uint64
}

// addConnectPortRule allows TCP connect to port (on any address: the
// network namespace is what limits the addresses).
func addConnectPortRule(rfd, port int) error {
	attr := llNetPortAttr{allowedAccess: unix.LANDLOCK_ACCESS_NET_CONNECT_TCP, port: uint64(port)}
	_, _, e := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rfd), llRuleNetPort, uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if e != 0 {
		return fmt.Errorf("landlock_add_rule(net port %d): %w", port, e)
	}
	return nil
}

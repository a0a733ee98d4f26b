package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"turnstile/sandbox"
)

// checkOwners refuses to start on a file the server trusts (the data
// directory and its token, the token file, the Claude Code configuration,
// the profiles and the constraints, an embedded store outside the data
// directory, whose events hold the credentials and are chained by plain
// SHA-256) that another user could change: one
// owned by a user other than the server's or root, or in a directory that
// is, or that others (or a group but the server's or root's) may write
// without the sticky bit (they could rename another file over it). A Claude Code user runs its agent's Bash
// commands as itself, outside the sandbox: with the admin token in a file
// of its own, it chooses the admin token of the next start, and with the
// configuration in its home, the modes. Paths that do not exist are left
// to their loaders.
func checkOwners(paths ...string) error {
	euid, egid := uint32(os.Geteuid()), uint32(os.Getegid())
	for _, p := range paths {
		if p == "" {
			continue
		}
		abs, err := rawAbs(p)
		if err != nil {
			return err
		}
		// The path as written, every link its lookup passes (the middle
		// of a chain /etc/ts -> ~agent/cfg -> /srv/real too: its
		// directory's owner re-points it at will, the
		// hundred-and-fifty-first review) and where it leads.
		// A path that does not exist (yet) is left to its loader, but
		// the directories and links on its way are checked: another
		// user's directory there could make it after this check.
		seen, err := linkChain(abs)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %w", p, err)
		}
		for _, q := range seen {
			for dir, leaf := q, true; ; dir, leaf = filepath.Dir(dir), false {
				if err := checkOwner(p, dir, leaf, euid, egid); err != nil {
					return err
				}
				if dir == filepath.Dir(dir) {
					break
				}
			}
		}
	}
	return nil
}

func checkOwner(named, path string, leaf bool, euid, egid uint32) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if st.Uid != 0 && st.Uid != euid {
		return fmt.Errorf("%s: %s is owned by uid %d, neither this server's user (uid %d) nor root: that user could change what the server trusts there (the admin token, the modes of the next start); keep it where only the server's user or root can write", named, path, st.Uid, euid)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil // a link's own mode means nothing; where it leads is checked too
	}
	// Others may not write, nor a group but the server's or root's (a user
	// private group's directory at umask 002 is the user's own).
	perm, sticky := fi.Mode().Perm(), fi.IsDir() && fi.Mode()&fs.ModeSticky != 0
	if !sticky && (perm&0o002 != 0 || perm&0o020 != 0 && st.Gid != 0 && st.Gid != egid) {
		what := "the directory " + path + ", and so replace what the server trusts in it"
		if leaf && !fi.IsDir() {
			what = path
		}
		return fmt.Errorf("%s: group or others may write to %s (mode %04o); run `chmod go-w %s`", named, what, perm, path)
	}
	// A POSIX ACL entry grants a named user or group more than the mode
	// shows (the mode's group bits are then the ACL's mask).
	if who, ok := aclWriter(path, euid, egid); ok {
		what := "the directory " + path + ", and so replace what the server trusts in it"
		if leaf && !fi.IsDir() {
			what = path
		}
		return fmt.Errorf("%s: an ACL entry lets %s write to %s; run `setfacl -b %s`", named, who, what, path)
	}
	return nil
}

// aclWriter names a user or group other than the server's or root's that
// path's access ACL lets write (its entry and the mask both grant it).
func aclWriter(path string, euid, egid uint32) (string, bool) {
	buf := make([]byte, 4096)
	n, err := syscall.Getxattr(path, "system.posix_acl_access", buf)
	if errors.Is(err, syscall.ERANGE) {
		if n, err = syscall.Getxattr(path, "system.posix_acl_access", nil); err == nil {
			buf = make([]byte, n)
			n, err = syscall.Getxattr(path, "system.posix_acl_access", buf)
		}
	}
	if err != nil || n < 4 {
		return "", false // no ACL (ENODATA), or none supported
	}
	const (
		aclUser  = 0x02
		aclGroup = 0x08
		aclMask  = 0x10
		aclWrite = 0x02
	)
	entries := buf[4:n]
	mask := uint16(0o7)
	for i := 0; i+8 <= len(entries); i += 8 {
		if binary.LittleEndian.Uint16(entries[i:]) == aclMask {
			mask = binary.LittleEndian.Uint16(entries[i+2:])
		}
	}
	for i := 0; i+8 <= len(entries); i += 8 {
		tag, perm, id := binary.LittleEndian.Uint16(entries[i:]), binary.LittleEndian.Uint16(entries[i+2:]), binary.LittleEndian.Uint32(entries[i+4:])
		if perm&mask&aclWrite == 0 {
			continue
		}
		switch {
		case tag == aclUser && id != 0 && id != euid:
			return fmt.Sprintf("uid %d", id), true
		case tag == aclGroup && id != 0 && id != egid:
			return fmt.Sprintf("gid %d", id), true
		}
	}
	return "", false
}

// linkChain returns each link the lookup of the absolute path abs passes
// (as the path of the link itself) and the path it leads to, resolving as
// the kernel does (sandbox.LinkChain). Where a component does not exist,
// the error is fs.ErrNotExist and the last element the part that exists.
func linkChain(abs string) ([]string, error) {
	links, existing, missing, err := sandbox.LinkChain(abs)
	if err != nil {
		return links, err
	}
	out := append(links, existing)
	if len(missing) > 0 {
		return out, fs.ErrNotExist
	}
	return out, nil
}

// rawAbs is p made absolute without cleaning it: a ".." in it is left for
// linkChain to take as the kernel does (after a link, from where it led).
func rawAbs(p string) (string, error) {
	if filepath.IsAbs(p) {
		return p, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return wd + "/" + p, nil
}

// kernelPath is the path the kernel opens for p, every link followed.
func kernelPath(p string) (string, bool) {
	raw, err := rawAbs(p)
	if err != nil {
		return "", false
	}
	chain, err := linkChain(raw)
	if err != nil {
		return "", false
	}
	return chain[len(chain)-1], true
}

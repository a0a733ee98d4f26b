package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// maskRounds bounds the masking passes (see maskSecrets).
const maskRounds = 8

// secretLoc is one place where a gateway secret is now, with its identity.
type secretLoc struct {
	path     string
	dev, ino uint64
}

// locateSecrets returns where the secrets are: the current path of each
// descriptor Run held (the file or directory itself, wherever it was
// renamed to) and each configured path that exists (what is there now),
// leaving out what is already one of this view's masks (maskDevs).
func locateSecrets(sp *SandboxSpec, maskDevs map[uint64]bool) ([]secretLoc, error) {
	var out []secretLoc
	add := func(p string, st *unix.Stat_t) {
		if maskDevs[st.Dev] {
			return
		}
		for _, l := range out {
			if l.path == p {
				return
			}
		}
		out = append(out, secretLoc{path: p, dev: st.Dev, ino: st.Ino})
	}
	for i := range sp.HeldSecrets {
		fd := helperIdmapFD + i
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return nil, fmt.Errorf("held gateway secret %d: %w", i, err)
		}
		if st.Nlink == 0 {
			continue // removed: no name leads to it
		}
		p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
		if err != nil {
			return nil, fmt.Errorf("held gateway secret %d: %w", i, err)
		}
		if strings.HasSuffix(p, " (deleted)") {
			continue
		}
		if !strings.HasPrefix(p, "/") {
			return nil, fmt.Errorf("held gateway secret %d is at %q, outside this view: refused", i, p)
		}
		add(p, &st)
	}
	for _, e := range sp.Entries {
		p := e.ResolvedPath
		if p == "" {
			p = e.Path
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue // nothing there
		}
		var st unix.Stat_t
		if unix.Stat(real, &st) == nil {
			add(real, &st)
		}
	}
	return out, nil
}

// maskTarget is a path at which a secret may be reachable: the secret
// itself through one mount of its filesystem (dev and ino to match), or a
// mount whose root lies inside the secret (mountID to match).
type maskTarget struct {
	path     string
	dev, ino uint64
	mountID  uint64
}

// aliasTargets lists the paths at which l is reachable through the mounts
// (this view's, masks and pins included): l.path itself, and, for every mount
// of the same filesystem whose root contains l, the same file below that
// mount; every mount of a directory inside l is a target too.
func aliasTargets(l secretLoc, mounts []mountEntry) []maskTarget {
	out := []maskTarget{{path: l.path, dev: l.dev, ino: l.ino}}
	base := -1
	for i, m := range mounts {
		if domain.PathWithin(l.path, m.point) && (base < 0 || len(m.point) >= len(mounts[base].point)) {
			base = i
		}
	}
	if base < 0 {
		return out
	}
	b := mounts[base]
	fsPath := joinRel(b.root, relWithin(l.path, b.point))
	for _, m := range mounts {
		if m.dev != b.dev {
			continue
		}
		switch {
		case domain.PathWithin(fsPath, m.root):
			if t := joinRel(m.point, relWithin(fsPath, m.root)); t != l.path {
				out = append(out, maskTarget{path: t, dev: l.dev, ino: l.ino})
			}
		case domain.PathWithin(m.root, fsPath):
			out = append(out, maskTarget{path: m.point, mountID: m.id})
		}
	}
	return out
}

// exposed reports whether the secret is reachable at t.path now.
func (t maskTarget) exposed() bool {
	if t.mountID != 0 {
		var stx unix.Statx_t
		return unix.Statx(unix.AT_FDCWD, t.path, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_MNT_ID, &stx) == nil &&
			stx.Mask&unix.STATX_MNT_ID != 0 && stx.Mnt_id == t.mountID
	}
	fd, err := openNoSymlinks(t.path)
	if err != nil {
		return false // not reachable by this path
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	return unix.Fstat(fd, &st) == nil && st.Dev == t.dev && st.Ino == t.ino
}

// maskSecrets masks every location of every secret, after pinning each
// directory above it (pinAncestors). Masks sit on the directory entry, so
// once a location is masked a rename carries the mask along; the passes
// repeat (a secret moved meanwhile by a process outside this view is found
// at its new path) until one finds nothing left to mask, and fail closed
// after maskRounds.
func maskSecrets(sp *SandboxSpec, pinned map[string]bool) error {
	maskDevs := map[uint64]bool{}
	shared := newSharedMask()
	defer shared.close()
	for range maskRounds {
		locs, err := locateSecrets(sp, maskDevs)
		if err != nil {
			return err
		}
		targets, err := secretTargets(locs)
		if err != nil {
			return err
		}
		// Pins clone mounts (new mount ids): the targets are listed again
		// after any.
		npins := len(pinned)
		for _, t := range targets {
			if t.exposed() {
				if err := pinAncestors(t.path, pinned); err != nil {
					return err
				}
			}
		}
		if len(pinned) != npins {
			if targets, err = secretTargets(locs); err != nil {
				return err
			}
		}
		masked := 0
		for _, t := range targets {
			if !t.exposed() {
				continue
			}
			if err := mask(t.path, nil, shared); err != nil {
				if errors.Is(err, unix.ENOENT) {
					continue // moved away since: the next pass finds it
				}
				return fmt.Errorf("mask the gateway secret at %s: %w", t.path, err)
			}
			var st unix.Stat_t
			if err := unix.Stat(t.path, &st); err != nil {
				return fmt.Errorf("mask the gateway secret at %s: %w", t.path, err)
			}
			maskDevs[st.Dev] = true
			masked++
		}
		if masked == 0 {
			return nil
		}
	}
	return errors.New("the gateway's secrets kept moving while they were being masked: refused")
}

// secretTargets lists the alias targets of locs in the current mounts.
func secretTargets(locs []secretLoc) ([]maskTarget, error) {
	mounts, err := readMountinfo("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	var out []maskTarget
	for _, l := range secretsShown(locs, mounts) {
		out = append(out, aliasTargets(l, mounts)...)
	}
	return out, nil
}

// maxSecretLocs bounds the places secretsShown lists.
const maxSecretLocs = 1024

// secretsShown is locs with what shows a secret's contents through
// another file system: each mount inside a secret (the token bound onto
// DATA/token from /etc/turnstile, the log's directory bound from a larger
// disk: the mask over DATA hid them there, and their own file systems
// showed them where they came from), and, for a secret on an overlay, the
// same path in each of its layers (the files the server wrote lie in the
// upper directory, mounted elsewhere on overlayroot hosts): the
// hundred-and-seventy-fourth review. Each is a secret of its own, masked
// wherever its file system shows it (aliasTargets).
func secretsShown(locs []secretLoc, mounts []mountEntry) []secretLoc {
	seen := map[string]bool{}
	for _, l := range locs {
		seen[l.path] = true
	}
	for i := 0; i < len(locs) && len(locs) < maxSecretLocs; i++ {
		l := locs[i]
		add := func(p string) {
			var st unix.Stat_t
			if seen[p] || unix.Stat(p, &st) != nil {
				return // listed, or not there (hidden by a mask already)
			}
			seen[p] = true
			locs = append(locs, secretLoc{path: p, dev: st.Dev, ino: st.Ino})
		}
		base := -1
		for j, m := range mounts {
			if m.point != l.path && domain.PathWithin(m.point, l.path) {
				add(m.point)
			}
			if domain.PathWithin(l.path, m.point) && (base < 0 || len(m.point) >= len(mounts[base].point)) {
				base = j
			}
		}
		if base >= 0 && mounts[base].fstype == "overlay" {
			b := mounts[base]
			rel := relWithin(joinRel(b.root, relWithin(l.path, b.point)), "/")
			for _, d := range overlayLayers(b.opts) {
				add(joinRel(d, rel))
			}
		}
	}
	return locs
}

// overlayLayers are the layer directories an overlay's options name
// (upperdir, each of lowerdir's, and the lowerdir+= and datadir+= forms),
// their escapes taken off (mountinfo's octal ones, then overlayfs's
// backslash before a ":" in a layer's name).
func overlayLayers(opts string) []string {
	var out []string
	for o := range strings.SplitSeq(opts, ",") {
		// mountinfo writes a comma, a blank or a backslash in a value
		// octal-escaped (\054): a raw comma separates the options.
		k, v, ok := strings.Cut(unescapeMountinfo(o), "=")
		if !ok {
			continue
		}
		switch k {
		case "upperdir", "lowerdir+", "datadir+":
			out = append(out, unescapeOpt(v))
		case "lowerdir":
			for _, d := range splitEscaped(v, ':') {
				if d != "" { // "::" before data-only layers
					out = append(out, unescapeOpt(d))
				}
			}
		}
	}
	return slices.DeleteFunc(out, func(d string) bool { return !strings.HasPrefix(d, "/") })
}

// splitEscaped splits s at each sep not escaped by a backslash.
func splitEscaped(s string, sep byte) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case sep:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// unescapeOpt takes off the backslashes an overlay's option escapes with.
func unescapeOpt(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// pinAncestors binds every directory above path (below "/", and not
// already a mount root) onto itself, recursively, so that the view is
// unchanged but each is a mount point in this namespace: rename(2) and
// rmdir(2) of a mount point fail (EBUSY), through any path and from any
// namespace the command makes (its copies are mount points too). Without
// the pins a command could move the data directory's parent aside and
// plant a directory of its own at the configured path, which the server
// would take as its data directory (and token) at its next start.
func pinAncestors(path string, pinned map[string]bool) error {
	for a := range ancestors(path) {
		if pinned[a] {
			continue
		}
		if err := bindSelf(a, false, true); err != nil {
			return fmt.Errorf("pin %s above a gateway secret: %w", a, err)
		}
		pinned[a] = true
	}
	return nil
}

// protectOwnProgram makes the helper's own program file read-only (a
// read-only bind of the file onto itself, its directories pinned) at every
// path its filesystem shows it: the server starts this file for every
// command, before any mask or capability drop, so a full_access command
// that could rewrite it would run its own code as the next command's
// helper. (Replacing the file at its path changes nothing: the server runs
// the file it pinned by descriptor.)
func protectOwnProgram(pinned map[string]bool) error {
	fd, err := unix.Open("/proc/self/exe", unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open the helper's program: %w", err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("stat the helper's program: %w", err)
	}
	p, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return fmt.Errorf("the helper's program: %w", err)
	}
	if strings.HasSuffix(p, " (deleted)") || !strings.HasPrefix(p, "/") {
		return nil // no path leads to it
	}
	mounts, err := readMountinfo("/proc/self/mountinfo")
	if err != nil {
		return err
	}
	for _, t := range aliasTargets(secretLoc{path: p, dev: st.Dev, ino: st.Ino}, mounts) {
		if t.mountID != 0 || !t.exposed() || readOnlyAt(t.path) {
			continue
		}
		if err := pinAncestors(t.path, pinned); err != nil {
			return err
		}
		if err := bindSelf(t.path, true, false); err != nil {
			return fmt.Errorf("protect the helper's program at %s: %w", t.path, err)
		}
	}
	return nil
}

// readOnlyAt reports whether the mount at path is read-only.
func readOnlyAt(path string) bool {
	fd, err := openNoSymlinks(path)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	var sf unix.Statfs_t
	return unix.Fstatfs(fd, &sf) == nil && sf.Flags&unix.ST_RDONLY != 0
}

// SecretsShownElsewhere returns the other paths at which the secrets at
// paths (absolute) are reachable in this mount namespace now: a second
// mount of their file system, a mount inside them where its own file
// system is mounted, an overlay's layers (secretsShown, aliasTargets).
// The server denies them to every turn as it denies the secrets: a
// file tool's read of /etc/turnstile/admin-token, bound onto DATA/token,
// was judged as any file of /etc (the hundred-and-seventy-fourth review).
func SecretsShownElsewhere(paths []string) []string {
	// The calling thread's mounts, where its stat calls below look the
	// paths up: /proc/self is the thread-group leader's, which a test (or
	// a library) may have moved into a mount namespace of its own (a
	// locked thread that unshared and could not end: the leader).
	mounts, err := readMountinfo("/proc/thread-self/mountinfo")
	if err != nil {
		return nil
	}
	var locs []secretLoc
	for _, p := range paths {
		var st unix.Stat_t
		if unix.Stat(p, &st) == nil {
			locs = append(locs, secretLoc{path: p, dev: st.Dev, ino: st.Ino})
		}
	}
	var out []string
	for _, l := range secretsShown(locs, mounts) {
		for _, t := range aliasTargets(l, mounts) {
			if !slices.Contains(paths, t.path) && !slices.Contains(out, t.path) {
				out = append(out, t.path)
			}
		}
	}
	return out
}

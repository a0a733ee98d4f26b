package sandbox

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// Index entries planted at denied paths.
//
// A command can register a denied file it cannot read (a profile's
// "**/*.env" = deny, an untracked .env the person keeps) in a repository's
// index without reading it: `git update-index --add --cacheinfo` takes any
// blob id. The person's next `git commit -a` (or `git add -u`, `git stash`)
// then takes the file for a tracked one that changed, hashes the real file
// into the object store and commits it, and the next command reads it from
// there (`git show HEAD:.env`), which no rule denies (the
// hundred-and-twentieth review). So, for each repository the command ran
// with held (its submodules' and linked work trees' indexes included), the
// check keeps the index's entries at denied paths when the command starts;
// after it, an index that changed and holds an entry at a denied path (or
// outside its work tree) that is new or changed, or that cannot be judged
// as git would read it, is set aside, as a planted file is, and the index
// from before the command put back; the quarantine record says why.
//
// Not covered: a git dir outside the held ones.

// maxIndexBytes bounds the index read (about 600,000 files of
// 100-byte names).
const maxIndexBytes = 64 << 20

// indexWatch is one repository's index as the command started.
type indexWatch struct {
	// dir is the directory holding the index (a git dir, or a linked
	// work tree's admin dir under its worktrees/), workTree the work
	// tree its paths are relative to ("": unknown, every entry counts as
	// at a denied path), root the writable root holding dir.
	dir, workTree, root string
	// moreTrees are other work trees the index may serve (a separate git
	// dir named by several .git files): an entry denied below any of
	// them counts.
	moreTrees []string
	oidLen    int      // the repository's object ids: 20 (SHA-1) or 32 (SHA-256)
	id        [4]int64 // ino, ctime (s, ns), size: changed at all?
	readable  bool     // the index could be read then
	// saved is the index as it was (nil: none, or larger than
	// maxSavedIndex), put back when a planted one is set aside, with its
	// owner and mode: without an index, the person's next commit -a
	// would commit every tracked file as deleted.
	saved          []byte
	uid, gid, mode uint32
	// mtime is the index file's modification time then, put back with
	// it: git takes an entry recorded in the index's own second for
	// racily clean and looks at the file again; an index rewritten now
	// would make a file changed in that second, at the same size, look
	// unchanged to the person's git.
	mtime unix.Timespec
	// shared are the identities of the split index's shared files in dir
	// then (sharedindex.<id>): git names one by its contents and never
	// rewrites it, so one changed in place is the command's (with an
	// entry added and its last bytes, the id git checks, kept: the
	// hundred-and-thirty-fifth review).
	shared map[string][32]byte
	// before are the entries at denied paths then, by path relative to
	// the work tree: their mode and blob id.
	before map[string]string
}

// watchIndexes records the indexes of the held repositories, of their
// submodules and of their linked work trees (whose paths may lie outside
// every root: there every entry counts as at a denied path).
func (pc *plantCheck) watchIndexes(v *fsView) {
	pc.deniedAt = func(p string) bool { return !v.readable(p) || pc.globDeniesOnTheWay(p) }
	for g := range pc.held {
		root := ""
		for _, r := range pc.roots {
			if domain.PathWithin(g, r) {
				root = r
			}
		}
		if root == "" {
			continue
		}
		// Every one, a deny in its work tree or not: an entry can also
		// name a path outside the work tree ("../x": git reads an index
		// it did not write; the hundred-and-thirty-fifth review).
		switch wts := gitDirWorktrees(g); {
		case filepath.Base(g) == ".git":
			pc.watchIndex(g, []string{filepath.Dir(g)}, root)
		case len(wts) > 0:
			// A submodule's git dir under .git/modules: its work tree is
			// its config's core.worktree, the last one given (held:
			// read-only to the command).
			pc.watchIndex(g, []string{filepath.Clean(wts[len(wts)-1])}, root)
		default:
			// A separate git dir (git init --separate-git-dir), whose
			// work trees are where held .git files or symlinks name it,
			// each of them: an entry denied below any is judged (a decoy
			// .git file the command made, held at the next spawn, names
			// another: the hundred-and-thirty-eighth review); with none,
			// unknown, and every entry counts as at a denied path (the
			// hundred-and-thirty-seventh review).
			pc.watchIndex(g, pc.gitFileWorkTrees(g), root)
		}
		names, err := listAt(unix.AT_FDCWD, g+"/worktrees")
		if err == nil || errors.Is(err, unix.ENOENT) {
			pc.recordAdmins(g, names)
		}
		watched := 0
		for _, n := range names {
			admin := g + "/worktrees/" + n
			var st unix.Stat_t
			if unix.Lstat(admin, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
				continue
			}
			// Every admin dir, its gitdir file there or not: git reads
			// the index of one whose work tree's .git names it, and a
			// command that removed the gitdir file (or had the check set
			// a touched one aside) left its index unwatched (the
			// hundred-and-thirty-seventh review). More than the bound
			// refuses the command: decoys made to push the person's past
			// it would otherwise leave that one unwatched.
			if watched++; watched > maxWatchedWorktrees {
				pc.overflow = cmp.Or(pc.overflow, fmt.Sprintf("%s holds more than %d directories: the check after a command cannot watch every linked work tree's index (git worktree prune removes those of work trees that are gone)", g+"/worktrees", maxWatchedWorktrees))
				break
			}
			var wt []string
			if b, err := readSmallAt(unix.AT_FDCWD, admin+"/gitdir", 4096); err == nil {
				if p := strings.TrimRight(string(b), "\r\n"); filepath.IsAbs(p) && filepath.Base(p) == ".git" {
					wt = []string{filepath.Clean(filepath.Dir(p))}
				}
			}
			pc.watchIndex(admin, wt, root)
		}
	}
}

// gitFileWorkTrees returns the directories of the held .git files or
// symlinks that lead to the git dir g.
func (pc *plantCheck) gitFileWorkTrees(g string) []string {
	var out []string
	files := slices.Sorted(maps.Keys(pc.heldFiles))
	for _, f := range files {
		target := ""
		var st unix.Stat_t
		if unix.Lstat(f, &st) != nil {
			continue
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
			target = f
		case unix.S_IFREG:
			p, ok := readPointer(f, "gitdir:")
			if !ok {
				continue
			}
			if !filepath.IsAbs(p) {
				p = filepath.Join(filepath.Dir(f), p)
			}
			target = p
		default:
			continue
		}
		if c, err := filepath.EvalSymlinks(target); err == nil && c == g {
			out = append(out, filepath.Dir(f))
		}
	}
	return out
}

// maxWatchedWorktrees bounds the linked work trees whose indexes are
// watched in one repository.
const maxWatchedWorktrees = 256

// maxAdminIDs bounds the directories of one git dir's worktrees/ whose
// identities are recorded (pc.adminIDs).
const maxAdminIDs = 4096

// recordAdmins records the identities of the directories names of the held
// git dir g's worktrees/ (pc.adminIDs): an admin dir prepared elsewhere
// (old times) and renamed in by the command is none of them (the
// hundred-and-twenty-eighth review).
func (pc *plantCheck) recordAdmins(g string, names []string) {
	if len(names) > maxAdminIDs {
		if pc.adminsUncounted == nil {
			pc.adminsUncounted = map[string]bool{}
		}
		pc.adminsUncounted[g] = true
		return
	}
	ids := make(map[[2]uint64]bool, len(names))
	for _, n := range names {
		var st unix.Stat_t
		if unix.Lstat(g+"/worktrees/"+n, &st) == nil {
			ids[[2]uint64{st.Dev, st.Ino}] = true
		}
	}
	if pc.adminIDs == nil {
		pc.adminIDs = map[string]map[[2]uint64]bool{}
	}
	pc.adminIDs[g] = ids
}

// watchIndex records the index in dir (see indexWatch) of the work trees
// trees (none: unknown).
func (pc *plantCheck) watchIndex(dir string, trees []string, root string) {
	iw := &indexWatch{dir: dir, root: root, oidLen: 20}
	if len(trees) > 0 {
		iw.workTree, iw.moreTrees = trees[0], trees[1:]
	}
	g := dir
	if i := strings.Index(dir, "/worktrees/"); i >= 0 {
		g = dir[:i]
	}
	if sha256Repository(pc.heldConfigs[g]["config"]) {
		iw.oidLen = 32
	}
	iw.id, _ = indexID(dir)
	if b, err := readSmallAt(unix.AT_FDCWD, dir+"/index", maxIndexBytes); err == nil {
		if m, split, err := indexEntries(b, iw.oidLen, iw.keep(pc)); err == nil && !split {
			iw.before, iw.readable = m, true
		}
		var st unix.Stat_t
		if len(b) <= maxSavedIndex && unix.Lstat(dir+"/index", &st) == nil {
			iw.saved, iw.uid, iw.gid, iw.mode, iw.mtime = b, st.Uid, st.Gid, st.Mode&0o777, st.Mtim
		}
	} else if errors.Is(err, unix.ENOENT) {
		iw.readable = true // no index yet: every entry would be new
	}
	iw.shared = sharedIndexIDs(dir)
	pc.indexes = append(pc.indexes, iw)
}

// keep is the filter of the entries the watch compares: those at a denied
// path of its work tree (every one when the work tree is unknown).
func (iw *indexWatch) keep(pc *plantCheck) func(rel string) bool {
	if iw.workTree == "" {
		return func(string) bool { return true }
	}
	return func(rel string) bool {
		if pc.deniedAt(iw.workTree + "/" + rel) {
			return true
		}
		for _, wt := range iw.moreTrees {
			if pc.deniedAt(wt + "/" + rel) {
				return true
			}
		}
		return false
	}
}

// globDeniesOnTheWay reports whether a glob deny rule matches p or a
// directory on its way ("**/.secrets" denies .secrets/prod.key, which the
// view masks only where .secrets existed at spawn).
func (pc *plantCheck) globDeniesOnTheWay(p string) bool {
	if len(pc.globLasts) == 0 {
		return false
	}
	for q := p; q != "/" && q != "."; q = filepath.Dir(q) {
		if pc.globDenies(q, filepath.Base(q), false) {
			return true
		}
	}
	return false
}

// setAsidePlantedIndexes sets aside each watched index that changed and
// now holds an entry at a denied path that is new or changed (its contents,
// mode or flags: a cleared skip-worktree bit makes git commit the file), or
// that cannot be judged (too large, a split index whose entries lie in a
// shared index file, unreadable), and puts back the one from before.
func (pc *plantCheck) setAsidePlantedIndexes() []Quarantine {
	var out []Quarantine
	for _, iw := range pc.indexes {
		var rewritten []string
		var now map[string][32]byte
		if iw.shared != nil {
			now = sharedIndexIDs(iw.dir)
		}
		for n, was := range iw.shared {
			if sum, ok := now[n]; ok && sum != was {
				rewritten = append(rewritten, n)
			}
		}
		for _, n := range rewritten {
			p := iw.dir + "/" + n
			moved, note, err := setAsidePath(p, iw.root)
			out = append(out, settled(Quarantine{Path: p, Reason: "a split index's shared file, which git never rewrites, was rewritten by the command (an entry added there reaches the person's git commit -a): set aside, and the person's git stops at the index that names it"}, moved, note, err))
		}
		id, err := indexID(iw.dir)
		if err != nil || id == iw.id {
			continue // gone (nothing to commit from), or not changed
		}
		why := ""
		b, err := readSmallAt(unix.AT_FDCWD, iw.dir+"/index", maxIndexBytes)
		switch {
		case err != nil:
			why = "the git index, which the command changed, was not judged (" + err.Error() + ")"
		default:
			after, split, perr := indexEntries(b, iw.oidLen, iw.keep(pc))
			switch {
			case perr != nil:
				why = "the git index, which the command changed, cannot be read (" + perr.Error() + ")"
			case split:
				why = "the git index, which the command changed, is split (its entries lie in a shared index file) and was not judged"
			default:
				for rel, e := range after {
					if iw.before[rel] != e || !iw.readable {
						why = "the git index holds an entry the command added or changed at a denied path (" + rel + "): the person's next git commit -a would copy the denied file into the object store"
						break
					}
				}
			}
		}
		if why == "" {
			continue
		}
		p := iw.dir + "/index"
		moved, note, err := setAsidePath(p, iw.root)
		if err == nil && note == "" && iw.saved != nil {
			if rerr := iw.restore(); rerr != nil {
				why += "; the index as it was before the command could not be put back: " + rerr.Error()
			} else {
				why += "; the index as it was before the command was put back"
			}
		}
		out = append(out, settled(Quarantine{Path: p, Reason: why}, moved, note, err))
	}
	return out
}

// maxSavedIndex bounds the index kept to be put back (larger ones are
// set aside only).
const maxSavedIndex = 16 << 20

// restore writes the saved index back as the git dir's index, through a
// new file renamed into place, with the old one's owner and mode; the git
// dir is reached from the root without following a link.
func (iw *indexWatch) restore() error {
	rel, err := filepath.Rel(iw.root, iw.dir)
	if err != nil {
		return err
	}
	rfd, err := unix.Open(iw.root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(rfd)
	gfd, err := unix.Openat2(rfd, rel, &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	if err != nil {
		return err
	}
	defer unix.Close(gfd)
	const tmp = "index.turnstile-restore"
	unix.Unlinkat(gfd, tmp, 0)
	fd, err := unix.Openat(gfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, iw.mode)
	if err != nil {
		return err
	}
	werr := writeAll(fd, iw.saved)
	if werr == nil {
		werr = unix.Fchown(fd, int(iw.uid), int(iw.gid))
	}
	if werr == nil {
		werr = unix.Fchmod(fd, iw.mode)
	}
	unix.Close(fd)
	if werr == nil {
		werr = unix.UtimesNanoAt(gfd, tmp, []unix.Timespec{iw.mtime, iw.mtime}, unix.AT_SYMLINK_NOFOLLOW)
	}
	if werr == nil {
		werr = unix.Renameat2(gfd, tmp, gfd, "index", unix.RENAME_NOREPLACE)
	}
	if werr != nil {
		unix.Unlinkat(gfd, tmp, 0)
	}
	return werr
}

// writeAll writes b to fd.
func writeAll(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := unix.Write(fd, b)
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// sharedIndexIDs returns the identities of the shared index files in dir
// (none for most repositories).
func sharedIndexIDs(dir string) map[string][32]byte {
	names, _ := listAt(unix.AT_FDCWD, dir)
	var out map[string][32]byte
	for _, n := range names {
		if !strings.HasPrefix(n, "sharedindex.") {
			continue
		}
		// By contents: git freshens a shared file's times (utime) and
		// never its contents.
		b, err := readSmallAt(unix.AT_FDCWD, dir+"/"+n, maxIndexBytes)
		if err != nil {
			continue
		}
		if out == nil {
			out = map[string][32]byte{}
		}
		out[n] = sha256.Sum256(b)
	}
	return out
}

// indexID is the identity of the git dir's index as it is now: inode,
// change time and size.
func indexID(dir string) ([4]int64, error) {
	var st unix.Stat_t
	if err := unix.Lstat(dir+"/index", &st); err != nil {
		return [4]int64{}, err
	}
	return [4]int64{int64(st.Ino), st.Ctim.Sec, st.Ctim.Nsec, st.Size}, nil
}

// sha256Repository reports whether a git config (held: read-only to the
// command) sets extensions.objectFormat = sha256: the index's object ids
// are then 32 bytes. Only the config decides (a guess from the index
// itself was the command's to steer: the hundred-and-thirty-fifth review).
func sha256Repository(cfg []byte) bool {
	sha256 := false
	scanGitConfigFrom(bytes.NewReader(cfg), func(section, k, v string) bool {
		if section == "extensions" && k == "objectformat" {
			sha256 = strings.EqualFold(v, "sha256")
		}
		return true
	})
	return sha256
}

// indexEntries parses a git index (versions 2 to 4, git's
// Documentation/gitformat-index.txt) with object ids of oidLen bytes and
// returns the entries whose path keep accepts, as mode, object id and
// flags by path, and whether the index is split.
func indexEntries(b []byte, oidLen int, keep func(rel string) bool) (map[string]string, bool, error) {
	if len(b) < 12 || string(b[:4]) != "DIRC" {
		return nil, false, errors.New("not a git index")
	}
	version := binary.BigEndian.Uint32(b[4:])
	if version < 2 || version > 4 {
		return nil, false, errors.New("unknown index version")
	}
	n := int(binary.BigEndian.Uint32(b[8:]))
	fixed := 40 + oidLen + 2 // stat data, mode and ids, the object id, flags
	if n > len(b)/fixed {
		return nil, false, errors.New("more entries than the file holds")
	}
	// A version-4 index's paths, expanded, are bounded at 16 times its
	// size (a name that grows by a byte an entry made the parse
	// quadratic: the hundred-and-thirty-fifth review; an entry takes 62
	// bytes or more, so only paths longer than about a kilobyte, each
	// sharing all but a few bytes with the last, come near).
	out := map[string]string{}
	seen := map[string]uint16{}
	off := 12
	var prev, nameBuf []byte
	expanded := 0
	for i := 0; i < n; i++ {
		start := off
		if off+fixed > len(b) {
			return nil, false, errors.New("truncated entry")
		}
		mode := binary.BigEndian.Uint32(b[off+24:])
		oid := b[off+40 : off+40+oidLen]
		flags := binary.BigEndian.Uint16(b[off+40+oidLen:])
		var ext uint16
		off += fixed
		if flags&0x4000 != 0 {
			// (In any version, as git reads it.)
			if off+2 > len(b) {
				return nil, false, errors.New("bad extended flags")
			}
			ext = binary.BigEndian.Uint16(b[off:])
			off += 2
		}
		var name []byte
		if version == 4 {
			strip, k := binary.Uvarint(b[off:])
			if k <= 0 || strip > uint64(len(prev)) {
				return nil, false, errors.New("bad path prefix")
			}
			off += k
			end := bytes.IndexByte(b[off:], 0)
			if end < 0 {
				return nil, false, errors.New("unterminated path")
			}
			if expanded += len(prev) - int(strip) + end; expanded > max(16*len(b), 1<<20) {
				return nil, false, errors.New("its paths are too long in all")
			}
			name = append(append(nameBuf[:0], prev[:len(prev)-int(strip)]...), b[off:off+end]...)
			nameBuf = name
			off += end + 1
		} else {
			end := bytes.IndexByte(b[off:], 0)
			if end < 0 {
				return nil, false, errors.New("unterminated path")
			}
			name = b[off : off+end]
			// NUL-padded so that the entry is a multiple of 8 bytes.
			off = start + (off+end+1-start+7)/8*8
			if off > len(b) {
				return nil, false, errors.New("truncated entry")
			}
		}
		if l := int(flags & 0xfff); l < 0xfff && l != len(name) {
			return nil, false, errors.New("path length disagrees with its flags")
		}
		prev = name
		if !plainIndexPath(name) {
			return nil, false, fmt.Errorf("an entry's path %q is not one git writes", name)
		}
		stage := flags >> 12 & 3
		if last, ok := seen[string(name)]; ok && (last == stage || last == 0 || stage == 0) {
			return nil, false, fmt.Errorf("the path %q has more than one entry", name)
		}
		seen[string(name)] = stage
		if rel := string(name); keep(rel) {
			// The stage and the assume-valid, skip-worktree and
			// intent-to-add bits with the contents: clearing a
			// skip-worktree bit makes git commit the file.
			out[rel] = entryKey(mode, oid, flags&0xf000, ext)
		}
	}
	// Extensions follow, each a 4-byte signature and a 4-byte size, up to
	// the trailing checksum.
	split := false
	for off+8 <= len(b)-oidLen {
		sig := string(b[off : off+4])
		size := int(binary.BigEndian.Uint32(b[off+4:]))
		if size < 0 || off+8+size > len(b)-oidLen {
			return nil, false, errors.New("truncated extension")
		}
		switch sig {
		case "link":
			split = true
		case "EOIE", "IEOT", "sdir":
			// Threaded loading reads the entries where the offset table
			// says, not in order; a sparse index's directory entries
			// stand for every path below them: not judged here.
			return nil, false, fmt.Errorf("its %s extension", sig)
		}
		off += 8 + size
	}
	return out, split, nil
}

// plainIndexPath reports whether name is a path git writes in an index:
// relative, no empty, "." or ".." element, no ".git" element.
func plainIndexPath(name []byte) bool {
	if len(name) == 0 || name[0] == '/' || name[len(name)-1] == '/' {
		return false
	}
	for el := range bytes.SplitSeq(name, []byte("/")) {
		if len(el) == 0 || string(el) == "." || string(el) == ".." || strings.EqualFold(string(el), ".git") {
			return false
		}
	}
	return true
}

// entryKey is an entry's mode, object id and flags, as one comparable
// string.
func entryKey(mode uint32, oid []byte, flags, ext uint16) string {
	k := binary.BigEndian.AppendUint32(nil, mode)
	k = binary.BigEndian.AppendUint16(k, flags)
	k = binary.BigEndian.AppendUint16(k, ext)
	return string(append(k, oid...))
}

package sandbox

import (
	"bytes"
	"encoding/binary"
	"errors"
	"path"
	"path/filepath"
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
// with held whose work tree holds a denied path, the check keeps the
// index's entries at denied paths when the command starts; after it, an
// index that changed and holds an entry at a denied path that is new or
// names other contents is set aside, as a planted file is: the person's git
// then sees no index (every file staged as deleted and untracked) and the
// quarantine record says why.
//
// Not covered: a repository whose git dir is not its work tree's ".git"
// directory (a separate git dir, a linked work tree's index under
// worktrees/), and an index larger than maxIndexBytes.

// maxIndexBytes bounds the index read (about 600,000 files of
// 100-byte names).
const maxIndexBytes = 64 << 20

// indexWatch is one repository's index as the command started.
type indexWatch struct {
	gitDir, workTree, root string
	oidLen                 int
	id                     [4]int64 // ino, ctime (s, ns), size: changed at all?
	readable               bool     // the index could be read then
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
	// before are the entries at denied paths then, by path relative to
	// the work tree: their mode and blob id.
	before map[string]string
}

// watchIndexes records the indexes of the held repositories whose work
// tree holds a denied path (or may, under a glob deny rule). denied reports
// whether an absolute path is denied to the command.
func (pc *plantCheck) watchIndexes(v *fsView) {
	pc.deniedAt = func(p string) bool {
		return !v.readable(p) || pc.globDenies(p, filepath.Base(p), false)
	}
	for g := range pc.held {
		if filepath.Base(g) != ".git" {
			continue
		}
		wt := filepath.Dir(g)
		if len(pc.globLasts) == 0 && !v.deniedWithin(wt) {
			continue
		}
		root := ""
		for _, r := range pc.roots {
			if domain.PathWithin(g, r) {
				root = r
			}
		}
		if root == "" {
			continue
		}
		iw := &indexWatch{gitDir: g, workTree: wt, root: root, oidLen: 20}
		if cfg := pc.heldConfigs[g]["config"]; bytes.Contains(bytes.ToLower(cfg), []byte("sha256")) {
			iw.oidLen = 32 // extensions.objectFormat = sha256 (a wrong guess fails the parse: judged changed)
		}
		iw.id, _ = indexID(g)
		if b, err := readSmallAt(unix.AT_FDCWD, g+"/index", maxIndexBytes); err == nil {
			if m, err := indexEntries(b, iw.oidLen, func(rel string) bool { return pc.deniedAt(wt + "/" + rel) }); err == nil {
				iw.before, iw.readable = m, true
			}
			var st unix.Stat_t
			if len(b) <= maxSavedIndex && unix.Lstat(g+"/index", &st) == nil {
				iw.saved, iw.uid, iw.gid, iw.mode, iw.mtime = b, st.Uid, st.Gid, st.Mode&0o777, st.Mtim
			}
		} else if errors.Is(err, unix.ENOENT) {
			iw.readable = true // no index yet: every entry would be new
		}
		pc.indexes = append(pc.indexes, iw)
	}
}

// deniedWithin reports whether a deny entry or a sensitive path lies at or
// below the directory dir (or covers it).
func (v *fsView) deniedWithin(dir string) bool {
	dirParts := splitPath(dir)
	for _, d := range v.denied {
		if domain.PathWithin(d.path, dir) || domain.PathWithin(dir, d.path) {
			return true
		}
		if strings.Contains(d.path, "*") && patternReaches(splitPath(d.path), dirParts) {
			return true
		}
	}
	return false
}

// patternReaches reports whether a match of the pattern (its elements, "*"
// for one element) may lie at or below the directory whose elements are
// dir, or dir below a match: their common elements match.
func patternReaches(pat, dir []string) bool {
	for k := 0; k < min(len(pat), len(dir)); k++ {
		if !strings.Contains(pat[k], "*") {
			if pat[k] != dir[k] {
				return false
			}
			continue
		}
		if ok, err := path.Match(pat[k], dir[k]); err != nil || !ok {
			return false
		}
	}
	return true
}

// setAsidePlantedIndexes sets aside each watched index that changed and
// now holds an entry at a denied path that is new or names other contents.
func (pc *plantCheck) setAsidePlantedIndexes() []Quarantine {
	var out []Quarantine
	for _, iw := range pc.indexes {
		id, err := indexID(iw.gitDir)
		if err != nil || id == iw.id {
			continue // gone (nothing to commit from), or not changed
		}
		b, err := readSmallAt(unix.AT_FDCWD, iw.gitDir+"/index", maxIndexBytes)
		if err != nil {
			continue // too large or not a file: not judged (a link is removed by the git-dir link check)
		}
		after, err := indexEntries(b, iw.oidLen, func(rel string) bool { return pc.deniedAt(iw.workTree + "/" + rel) })
		why := ""
		switch {
		case err != nil:
			if iw.readable && iw.before != nil {
				why = "the git index, which the command changed, cannot be read (" + err.Error() + "); it held entries at denied paths"
			}
		default:
			for rel, e := range after {
				if iw.before[rel] != e || !iw.readable {
					why = "the git index holds an entry the command added at a denied path (" + rel + "): the person's next git commit -a would copy the denied file into the object store"
					break
				}
			}
		}
		if why == "" {
			continue
		}
		p := iw.gitDir + "/index"
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
	rel, err := filepath.Rel(iw.root, iw.gitDir)
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

// indexID is the identity of the git dir's index as it is now: inode,
// change time and size.
func indexID(gitDir string) ([4]int64, error) {
	var st unix.Stat_t
	if err := unix.Lstat(gitDir+"/index", &st); err != nil {
		return [4]int64{}, err
	}
	return [4]int64{int64(st.Ino), st.Ctim.Sec, st.Ctim.Nsec, st.Size}, nil
}

// indexEntries parses a git index (versions 2 to 4, git's
// Documentation/gitformat-index.txt) and returns the entries whose path
// keep accepts, as mode and blob id by path.
func indexEntries(b []byte, oidLen int, keep func(rel string) bool) (map[string]string, error) {
	if len(b) < 12 || string(b[:4]) != "DIRC" {
		return nil, errors.New("not a git index")
	}
	version := binary.BigEndian.Uint32(b[4:])
	if version < 2 || version > 4 {
		return nil, errors.New("unknown index version")
	}
	n := int(binary.BigEndian.Uint32(b[8:]))
	fixed := 40 + oidLen + 2 // stat data, mode and ids, the object id, flags
	if n > len(b)/fixed {
		return nil, errors.New("more entries than the file holds")
	}
	out := map[string]string{}
	off := 12
	var prev []byte
	for i := 0; i < n; i++ {
		start := off
		if off+fixed > len(b) {
			return nil, errors.New("truncated entry")
		}
		mode := binary.BigEndian.Uint32(b[off+24:])
		oid := b[off+40 : off+40+oidLen]
		flags := binary.BigEndian.Uint16(b[off+40+oidLen:])
		off += fixed
		if flags&0x4000 != 0 {
			if version < 3 || off+2 > len(b) {
				return nil, errors.New("bad extended flags")
			}
			off += 2
		}
		var name []byte
		if version == 4 {
			strip, k := binary.Uvarint(b[off:])
			if k <= 0 || strip > uint64(len(prev)) {
				return nil, errors.New("bad path prefix")
			}
			off += k
			end := bytes.IndexByte(b[off:], 0)
			if end < 0 {
				return nil, errors.New("unterminated path")
			}
			name = append(append([]byte(nil), prev[:len(prev)-int(strip)]...), b[off:off+end]...)
			off += end + 1
		} else {
			end := bytes.IndexByte(b[off:], 0)
			if end < 0 {
				return nil, errors.New("unterminated path")
			}
			name = b[off : off+end]
			if l := int(flags & 0xfff); l < 0xfff && l != len(name) {
				return nil, errors.New("path length disagrees with its flags")
			}
			// NUL-padded so that the entry is a multiple of 8 bytes.
			off = start + (off+end+1-start+7)/8*8
			if off > len(b) {
				return nil, errors.New("truncated entry")
			}
		}
		prev = name
		if rel := string(name); keep(rel) {
			out[rel] = modeAndID(mode, oid)
		}
	}
	return out, nil
}

// modeAndID is an entry's mode and object id, as one comparable string.
func modeAndID(mode uint32, oid []byte) string {
	return string(binary.BigEndian.AppendUint32(nil, mode)) + string(oid)
}

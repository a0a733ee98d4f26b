package sandbox

import (
	"bytes"
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// Files a host program runs from whose names the protected list cannot
// hold, being partly the person's:
//
//   - VS Code's workspace files (NAME.code-workspace) hold settings, launch
//     configurations and tasks, a task with runOptions.runOn "folderOpen"
//     included, as .vscode does; VS Code offers to open one it finds at
//     the top of a folder the person opens;
//   - mise's configs for an environment (mise.ENV.toml, .mise.ENV.toml,
//     mise/config.ENV.toml, .mise/config.ENV.toml, .config/mise.ENV.toml,
//     and the .local.toml forms of each), read beside mise.toml
//     when the person's MISE_ENV names ENV, with the same [hooks] and
//     [env] scripts;
//   - psql's start-up file for a minor release (.psqlrc-16.4), which
//     psql runs the backslash commands of (\! runs a shell).
//
// At the top of each writable root (or in its mise/, .mise/ and .config/), an
// existing one is kept read-only (withWorkspaceFiles), a write decision on
// one is refused (workspaceFileRefusal), and one a command made is set
// aside after it (plantCheck.setAsideWorkspaceFiles).

// namedFiles are those files: a directory below the root ("" for the
// root), and a pattern (filepath.Match) of names in it; fold: in any case.
var namedFiles = []struct {
	dir, glob string
	fold      bool
}{
	{"", "*.code-workspace", true},
	{"", "mise.*.toml", false},
	{"", ".mise.*.toml", false},
	{"mise", "config.*.toml", false},
	{".mise", "config.*.toml", false},
	{".config", "mise.*.toml", false},
	// psql's start-up file for a minor release (.psqlrc-16.4; the major
	// releases' are items of the protected list), read in the home.
	{"", ".psqlrc-*", false},
}

// namedFile reports whether rel (below a root) is one of namedFiles.
func namedFile(rel string) bool {
	dir, name := filepath.Split(rel)
	dir = strings.TrimSuffix(dir, "/")
	for _, n := range namedFiles {
		if n.dir != dir {
			continue
		}
		m := name
		if n.fold {
			m = strings.ToLower(m)
		}
		if ok, _ := filepath.Match(n.glob, m); ok {
			return true
		}
	}
	return false
}

// isWorkspaceFile reports whether p is one of namedFiles in one of the
// writable roots.
func isWorkspaceFile(p string, roots []string) bool {
	for _, r := range roots {
		if rel, err := filepath.Rel(r, p); err == nil && domain.PathWithin(p, r) && p != r && namedFile(rel) {
			return true
		}
	}
	return false
}

// workspaceFiles lists namedFiles in root (regular files and symlinks, as
// paths below it).
func workspaceFiles(root string) []string { return workspaceFilesIn(root, nil) }

// workspaceFilesIn is workspaceFiles with root's names, when top holds
// them (not nil): a directory of namedFiles it lacks is not opened.
func workspaceFilesIn(root string, top map[string]bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range namedFiles {
		if seen[n.dir] {
			continue
		}
		seen[n.dir] = true
		if top != nil && n.dir != "" && !top[n.dir] {
			continue
		}
		for _, name := range namedIn(root, n.dir) {
			out = append(out, filepath.Join(n.dir, name))
		}
	}
	return out
}

// namedListings caches, per directory, the names of namedFiles it holds,
// with the directory's identity and change time: a directory unchanged
// since (its ctime moves with every entry made, removed or renamed in it,
// and with any change of its times, which a command cannot set back) is
// not listed again. Every spawn and every check listed the top of each
// writable root in full and matched every name against every pattern: a
// root of 100,000 long names cost the server 3.2 s of CPU per command
// (the twenty-sixth review). A name is matched only when its suffix can
// be one of namedFiles'.
var namedListings struct {
	sync.Mutex
	m map[string]namedListing
}

type namedListing struct {
	dev, ino uint64
	ctime    unix.Timespec
	names    []string
}

// maxNamedListings bounds the cache (it is emptied when full).
const maxNamedListings = 4096

// namedSettle is how long ago a directory must have changed for its
// listing to be cached; namedListed counts the listings made (tests).
var (
	namedSettle = 2 * time.Second
	namedListed atomic.Int64
)

// namedTick is longer than the kernel's clock tick, the granularity of
// a file system's times that has nanoseconds.
const namedTick = 50 * time.Millisecond

// namedIn returns the names in root's directory sub (one of namedFiles')
// that namedFile takes, relative to it.
func namedIn(root, sub string) []string {
	dir := filepath.Join(root, sub)
	d, err := openDir(dir)
	if err != nil {
		return nil
	}
	defer d.Close()
	var st unix.Stat_t
	if unix.Fstat(int(d.Fd()), &st) != nil {
		return nil
	}
	namedListings.Lock()
	c, ok := namedListings.m[dir]
	namedListings.Unlock()
	if ok && c.dev == st.Dev && c.ino == st.Ino && c.ctime == st.Ctim {
		return c.names
	}
	namedListed.Add(1)
	listedAt := time.Now()
	var names []string
	// Raw entries: a name is made a string only when its suffix can match
	// (a root of 100,000 long names is the getdents calls, not 100,000
	// strings).
	_ = scanDirents(int(d.Fd()), func(b []byte, _ uint8, _ uint64) error {
		if mayBeNamed(b) {
			if name := string(b); namedFile(filepath.Join(sub, name)) {
				names = append(names, name)
			}
		}
		return nil
	})
	// A directory changed within the last two seconds is not cached: on a
	// filesystem whose times are coarser than the kernel's clock, an entry
	// made in the same tick after the listing would leave its time as the
	// cache has it. Where the times are the kernel's (a change time with
	// nanoseconds), a listing begun more than namedTick after the change
	// is cached: a later change's time is after it. A root a command had
	// just filled with 100,000 names was listed four times by the next
	// spawn (TestAttack26RootNamesCostEverySpawn).
	changed := time.Unix(st.Ctim.Unix())
	if time.Since(changed) < namedSettle && (st.Ctim.Nsec == 0 || listedAt.Sub(changed) <= namedTick) {
		return names
	}
	namedListings.Lock()
	if namedListings.m == nil || len(namedListings.m) >= maxNamedListings {
		namedListings.m = map[string]namedListing{}
	}
	namedListings.m[dir] = namedListing{dev: st.Dev, ino: st.Ino, ctime: st.Ctim, names: names}
	namedListings.Unlock()
	return names
}

// mayBeNamed reports whether name ends as one of namedFiles' patterns
// does: ".toml", or ".code-workspace" in any case; or begins as
// ".psqlrc-".
func mayBeNamed(name []byte) bool {
	const ws = ".code-workspace"
	return bytes.HasSuffix(name, []byte(".toml")) || len(name) >= len(ws) && bytes.EqualFold(name[len(name)-len(ws):], []byte(ws)) ||
		bytes.HasPrefix(name, []byte(".psqlrc-"))
}

// writableRoots are the writable roots of entries (not protected, not
// devices).
func writableRoots(entries []domain.FilesystemEntry) []string {
	var out []string
	for _, e := range entries {
		if e.Access != domain.AccessWrite || e.Kind == domain.PathDevice || e.Kind == domain.PathProtected {
			continue
		}
		root := e.ResolvedPath
		if root == "" {
			root = e.Path
		}
		out = append(out, root)
	}
	return out
}

// withWorkspaceFiles returns entries plus a protected, read-only entry for
// each regular file or symlink of namedFiles in a writable root (a
// symlink, a workspace file linked to the person's dotfiles, is pinned and
// what it leads to kept read-only, as for the protected list's items).
// entries is not modified.
func withWorkspaceFiles(entries []domain.FilesystemEntry) []domain.FilesystemEntry {
	out := entries
	roots := writableRoots(entries)
	var cwds []string
	for _, e := range entries {
		cwds = append(cwds, cwdOfItem(e.Kind, cmp.Or(e.ResolvedPath, e.Path), roots)...)
	}
	for _, root := range append(roots, cwds...) {
		for _, n := range workspaceFiles(root) {
			p := filepath.Join(root, n)
			if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() && fi.Mode()&os.ModeSymlink == 0 {
				continue
			}
			if len(out) == len(entries) {
				out = slices.Clone(entries)
			}
			out = append(out, domain.FilesystemEntry{Kind: domain.PathProtected, Path: p, ResolvedPath: p,
				Access: domain.AccessRead, Provenance: domain.ProvenanceSystem})
		}
	}
	return out
}

// workspaceFileRefusal refuses a write decision on a file of namedFiles in
// one of roots (the runtime's own edit tools write outside the
// sandbox), or on what a symlink of them leads to.
func workspaceFileRefusal(canon string, roots []string) error {
	if !isWorkspaceFile(canon, roots) && !linkedWorkspaceFile(canon, roots) {
		return nil
	}
	return &Refusal{Code: CodeWriteRequiresWritable, Path: canon,
		Message: "the path is a file a host program runs from when the person opens the workspace (a VS Code workspace file, a mise config for an environment), which stays read-only"}
}

// linkedWorkspaceFile reports whether canon is where a symlink of
// namedFiles in one of roots leads.
func linkedWorkspaceFile(canon string, roots []string) bool {
	for _, r := range roots {
		for _, n := range workspaceFiles(r) {
			p := filepath.Join(r, n)
			if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				continue
			}
			if c, _, ok, err := canonicalPath(p); err == nil && ok && c == canon {
				return true
			}
		}
	}
	return false
}

// writableRoots are the view's writable grants (canonical).
func (v *fsView) writableRoots() []string {
	var out []string
	for _, g := range v.grants {
		if g.Access == domain.AccessWrite && g.Kind != domain.PathDevice && g.Kind != domain.PathProtected {
			out = append(out, g.Path)
		}
	}
	return out
}

// cwdOfItem returns the directory holding the protected item p (kind
// its kind) when p is the list's .vscode and that directory lies strictly
// inside one of roots: the turn's cwd, where domain.protectedEntries
// holds the whole list, and where the person opens the folder, so its
// workspace files are kept as a root's are (the hundred-and-seventy-second
// review: repo/app/team.code-workspace was written while repo/app/.vscode
// was kept).
func cwdOfItem(kind domain.PathKind, p string, roots []string) []string {
	if kind != domain.PathProtected || filepath.Base(p) != ".vscode" {
		return nil
	}
	d := filepath.Dir(p)
	for _, r := range roots {
		if d != r && domain.PathWithin(d, r) {
			return []string{d}
		}
	}
	return nil
}

// cwdDirs are the directories inside the view's writable roots where the
// protected list is held besides the roots (cwdOfItem).
func (v *fsView) cwdDirs() []string {
	roots := v.writableRoots()
	var out []string
	for _, c := range v.carves {
		for _, d := range cwdOfItem(c.Kind, c.Path, roots) {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out
}

// noteWorkspaceFiles records the files of namedFiles in each root, and
// in each nested repository's work tree, when the command starts.
func (pc *plantCheck) noteWorkspaceFiles() {
	pc.wsFiles = map[string]bool{}
	for _, d := range pc.wsDirs() {
		for _, n := range workspaceFiles(d[0]) {
			pc.wsFiles[filepath.Join(d[0], n)] = true
		}
	}
}

// wsDirs are the directories whose workspace files the check watches,
// each with the root it lies in: the roots and the nested work trees.
func (pc *plantCheck) wsDirs() [][2]string {
	var out [][2]string
	for _, r := range pc.roots {
		out = append(out, [2]string{r, r})
	}
	for _, wt := range append(slices.Clone(pc.nestedWTs), pc.cwds...) {
		for _, r := range pc.roots {
			if domain.PathWithin(wt, r) && wt != r {
				out = append(out, [2]string{wt, r})
				break
			}
		}
	}
	return out
}

// setAsideWorkspaceFiles sets aside each file of namedFiles in a root, or
// at the top of a nested repository's work tree, that was not there when
// the command started.
func (pc *plantCheck) setAsideWorkspaceFiles() (found []Quarantine) {
	for _, d := range pc.wsDirs() {
		for _, n := range workspaceFiles(d[0]) {
			if p := filepath.Join(d[0], n); !pc.wsFiles[p] {
				found = append(found, setAsideOnTheWay(p, d[1], "a file the command created that a host program runs from (a VS Code workspace file's folderOpen tasks, a mise config's hooks)"))
			}
		}
	}
	return found
}

// workspaceFilesOf is workspaceFiles(dir), listed once a view build: the
// view's own readers (the workspace folders, the launcher files) share it,
// as a root just changed (within namedSettle) is listed again on each
// call, and a root of 100,000 names cost a spawn a third of a second a
// listing (TestAttack26RootNamesCostEverySpawn).
func (v *fsView) workspaceFilesOf(dir string) []string {
	if names, ok := v.wsFiles[dir]; ok {
		return names
	}
	if v.wsFiles == nil {
		v.wsFiles = map[string][]string{}
	}
	names := workspaceFiles(dir)
	v.wsFiles[dir] = names
	return names
}

package sandbox

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"turnstile/domain"

	"golang.org/x/sys/unix"
)

// The launcher and toolchain files (readAtAnyDepth) are read-only because
// the person's next tool there runs what they name; what they name may lie
// in the writable root too (Yarn Berry's own layout: .yarnrc.yml
// "yarnPath: .yarn/releases/yarn-4.5.0.cjs"; .NET's global.json
// "sdk": {"paths": [".dotnet", "$host$"]}), and a command or a file tool
// that rewrote it would have the person's next yarn or dotnet run its code
// (the hundred-and-thirty-ninth review). So, as for the programs a git
// config names (configRefs), discovery keeps read-only what each such file
// the view keeps read-only names, where it lies in a writable root: an
// existing file or directory is a carve-out, a missing one is watched
// (missingRefs: set aside when a command makes it, refused to a write
// decision).

// maxLauncherFileSize bounds what is read of one launcher file, and
// maxLauncherBytes of all a view reads (past it, the view refuses the
// commands: the agent can make thousands of them).
const (
	maxLauncherFileSize = 256 << 10
	maxLauncherBytes    = 16 << 20
)

// miseConfigs are the protected list's mise (and rtx) config files, each
// relative to the project directory mise takes its relative paths from
// (".config/mise/config.toml" too: ".config/mise" is protected whole).
var miseConfigs = []string{"mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml",
	"mise/config.toml", "mise/config.local.toml", ".mise/config.toml", ".mise/config.local.toml",
	".config/mise.toml", ".config/mise.local.toml", ".config/mise/config.toml", ".config/mise/config.local.toml",
	".rtx.toml", ".rtx.local.toml"}

// otherLauncherItems are the launcher items beside readAtAnyDepth: direnv's
// .envrc (read at the root, the cwd and, found by the walk, below them; a
// nested one direnv runs only once the person allowed its contents).
var otherLauncherItems = []string{".envrc"}

// launcherItem returns the launcher item the lexical path p ends in (one
// of readAtAnyDepth, .envrc, or a mise config) and the project directory
// its relative paths are taken from.
func launcherItem(p string) (item, base string, ok bool) {
	if item, base, ok = anyDepthItem(p); ok {
		return item, base, true
	}
	for _, n := range otherLauncherItems {
		if len(p) > len(n) && p[len(p)-len(n)-1] == '/' && domain.FoldEqual(p[len(p)-len(n):], n) {
			return n, domain.CleanPath(p[:len(p)-len(n)]), true
		}
	}
	return "", "", false
}

// protectLauncherRefs keeps read-only what each launcher file among the
// view's read-only carve-outs names (launcherRefsOf), where it lies in a
// writable root; a missing one is watched (missingRefs). Relative paths
// are taken from the directory holding the item's first name (the
// project's: a .cargo/config.toml's from the directory holding .cargo,
// where cargo takes them from).
func (d *discovery) protectLauncherRefs() {
	type file struct{ path, lexical string }
	files := make([]file, 0, len(d.v.carves)+len(d.v.launchers)+16) // most carve-outs are read-only items
	for _, c := range d.v.carves {
		if c.Kind != domain.PathProtected || c.Access != domain.AccessRead {
			continue
		}
		lexical := c.Path
		if c.From != "" {
			lexical = domain.CleanPath(c.From)
		}
		files = append(files, file{c.Path, lexical})
	}
	// And those in each directory above a writable root: the tools look
	// them up from the directory a person works in upwards (direnv's
	// .envrc, mise's configs, .tool-versions…), so a turn rooted at
	// repo/sub left writable what repo/.envrc sources there (the
	// hundred-and-sixty-eighth review).
	roots := d.v.writableRoots()
	above := dirsAbove(roots)
	for _, p := range launchersAbove(above) {
		files = append(files, file{p, p})
	}
	seen := map[string]bool{}
	d.launcherBudget = maxLauncherBytes
	// mise's other configs at each writable root and each directory above
	// one: those for an environment (mise.dev.toml, read when MISE_ENV
	// names it; workspace files, kept read-only whole) and conf.d's (read
	// always), whose scripts are read as mise.toml's are (the
	// hundred-and-fifty-ninth review; above a root, the
	// hundred-and-sixty-ninth). VS Code's tasks there too: those of
	// .vscode/tasks.json and of a NAME.code-workspace, and a dev
	// container's lifecycle commands (vscodetasks.go), and those of the
	// .vscode and .devcontainer the protected list holds at the cwd.
	extra := map[string]launcherAt{}
	add := func(p, item, base string) {
		files, extra[p] = append(files, file{p, p}), launcherAt{item, base}
	}
	// VS Code's tasks and dev container definitions in the folder dir.
	vscodeDone := map[string]bool{}
	addVSCode := func(dir string) {
		if vscodeDone[dir] {
			return
		}
		vscodeDone[dir] = true
		for _, it := range []string{vscodeTasksItem, vscodeSettingsItem} {
			if p := joinPath(dir, it); isRegularFile(p) {
				add(p, it, dir)
			}
		}
		defs, _ := filepath.Glob(joinPath(dir, ".devcontainer/*/devcontainer.json"))
		for _, p := range append([]string{joinPath(dir, devcontainerItem), joinPath(dir, ".devcontainer.json")}, defs...) {
			if isRegularFile(p) {
				add(p, devcontainerItem, dir)
			}
		}
	}
	for _, r := range append(append(slices.Clone(roots), above...), d.v.cwdDirs()...) {
		for _, rel := range d.v.workspaceFilesOf(r) {
			switch {
			case strings.Contains(rel, "mise"):
				add(joinPath(r, rel), "mise.toml", r)
			case strings.HasSuffix(strings.ToLower(rel), ".code-workspace"):
				add(joinPath(r, rel), codeWorkspaceItem, r)
			}
		}
		for _, dir := range []string{".config/mise/conf.d", "mise/conf.d", ".mise/conf.d"} {
			ms, _ := filepath.Glob(joinPath(joinPath(r, dir), "*.toml"))
			for _, p := range ms {
				add(p, "mise.toml", r)
			}
		}
		addVSCode(r)
	}
	for _, f := range files[:len(files):len(files)] { // those add appends are not visited
		// A workspace file kept read-only elsewhere (at the top of a
		// nested repository's work tree: the hundred-and-seventy-second
		// review).
		if strings.HasSuffix(strings.ToLower(f.lexical), ".code-workspace") {
			add(f.path, codeWorkspaceItem, path.Dir(f.lexical))
		}
		for _, n := range []string{"/.vscode", "/.devcontainer", "/.devcontainer.json"} {
			if dir, ok := strings.CutSuffix(f.lexical, n); ok && dir != "" {
				addVSCode(dir)
			}
		}
	}
	// Last, those the walk found deeper (sub/.yarnrc.yml: the person's
	// yarn in sub runs its yarnPath; the file itself is set aside after
	// a command that changed it, plantagent.go): the hundred-and-fortieth
	// review. After the person's own (the carve-outs, those above the
	// roots, VS Code's): the agent may write one of these, and one read
	// first spent the bounds on names of its own (the hundred-and-
	// eighty-first review).
	for _, p := range d.v.launchers {
		if d.writable(p) {
			files = append(files, file{p, p})
		}
	}
	for _, f := range files {
		if d.launcherBudget < 0 || d.v.overflow != "" {
			return // spent (spendLauncherBytes, spendLookup): the commands are refused
		}
		item, base, ok := launcherItem(f.lexical)
		if x, isExtra := extra[f.lexical]; isExtra {
			item, base, ok = x.item, x.base, true
		}
		if !ok || seen[f.lexical] {
			continue
		}
		seen[f.lexical] = true
		data, ok := readLauncherFile(f.path)
		if !ok {
			continue
		}
		if !d.spendLauncherBytes(len(data)) {
			return
		}
		if isVSCodeItem(item) && !jsoncReadable(data) {
			// What its tasks run cannot be known (VS Code's parser
			// tolerates more than this one, and one larger than a
			// launcher file is read is cut off): the commands are
			// refused, as past the view's other bounds.
			if d.v.overflow == "" {
				d.v.overflow = fmt.Sprintf("%s cannot be read as JSON with comments (or is larger than %d bytes): what it has VS Code run cannot be known", f.path, maxLauncherFileSize)
			}
			return
		}
		d.fileResolved = 0 // each file its share (maxResolvedNames)
		d.readLauncherRefs(item, base, data)
		if item == ".envrc" && bytes.IndexByte(data, '\r') >= 0 {
			// Saved with CRLF: bash reads a line's CR as part of its last
			// word (source_env_if_exists .envrc.local<CR> names a file
			// with a CR), where the readers see a line's end: the names
			// are watched with it too (the hundred-and-fifty-eighth
			// review).
			d.readLauncherRefs(item, base, bytes.ReplaceAll(data, []byte("\r"), []byte{crMark}))
		}
	}
}

// launcherAt is a launcher file's item and the directory its relative
// paths are taken from.
type launcherAt struct{ item, base string }

// dirsAbove are the directories above the roots, up to / (at most
// maxGitTopDepth above each), each once.
func dirsAbove(roots []string) (out []string) {
	seen := map[string]bool{}
	for _, r := range roots {
		for dir, n := filepath.Dir(r), 0; n < maxGitTopDepth && !seen[dir]; dir, n = filepath.Dir(dir), n+1 {
			seen[dir] = true
			out = append(out, dir)
			if dir == "/" {
				break
			}
		}
	}
	return out
}

// launchersAbove are the launcher files (readAtAnyDepth's and
// otherLauncherItems') in dirs, the directories above the roots: regular
// files, or links to one (a tool opens the file its link leads to).
func launchersAbove(dirs []string) (out []string) {
	items := append(slices.Clone(readAtAnyDepth), otherLauncherItems...)
	for _, dir := range dirs {
		for _, it := range items {
			if p := joinPath(dir, it); isRegularFile(p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// isRegularFile reports whether p leads to a regular file.
func isRegularFile(p string) bool {
	var st unix.Stat_t
	for {
		err := unix.Stat(p, &st)
		if err == unix.EINTR {
			continue
		}
		return err == nil && st.Mode&unix.S_IFMT == unix.S_IFREG
	}
}

// spendLauncherBytes counts n bytes read of the launcher files and the
// libraries they source against maxLauncherBytes for the view; past it
// the view refuses the commands (overflow) and false is returned.
func (d *discovery) spendLauncherBytes(n int) bool {
	if d.launcherBudget -= n; d.launcherBudget >= 0 {
		return true
	}
	if d.v.overflow == "" {
		d.v.overflow = fmt.Sprintf("the launcher and toolchain files in the writable roots, and the libraries a .envrc sources, hold more than %d bytes: what they name cannot all be read", maxLauncherBytes)
	}
	return false
}

// crMark stands for a CR in a .envrc read with its CRs kept as bash keeps
// them (the readers take a CR for a blank).
const crMark = 0x01

// readLauncherRefs keeps what the launcher file item in base names (data
// its contents) read-only, or watches it.
func (d *discovery) readLauncherRefs(item, base string, data []byte) {
	cr := func(ref string) string { return strings.ReplaceAll(ref, string(rune(crMark)), "\r") }
	for _, ref := range launcherRefsOf(item, data) {
		d.launcherRef(base, cr(ref))
	}
	// A pattern a loop of .envrc iterates (for f in *.sh: its matches,
	// and a new one set aside), a bare name where it exists, and one in a
	// place that runs it where it does not too (launcherbare.go).
	if d.v.overflow != "" {
		return // the commands are refused: nothing more to read
	}
	bare := launcherBareRefsOf(item, data)
	if item == ".envrc" {
		// The libraries it sources, and the person's direnv libraries,
		// define functions that run what their calls name, and run their
		// own lines in the .envrc's directory (envrclibs.go).
		runners, libs := d.envrcLibraries(base, data, cr)
		if len(runners) > 0 {
			more := envrcBareRefsWith(data, runners)
			bare.run = append(bare.run, keepBare(more.run)...)
			bare.modules = append(bare.modules, more.modules...)
			bare.pyModules = append(bare.pyModules, more.pyModules...)
			bare.pyPaths = append(bare.pyPaths, more.pyPaths...)
			bare.pyScripts = append(bare.pyScripts, more.pyScripts...)
		}
		for _, lib := range libs {
			refs := launcherRefsOf(item, lib.data)
			lb := envrcBareRefsWith(lib.data, runners)
			run, names := keepBare(lb.run), keepBare(lb.names)
			for _, b := range uniq([]string{base, lib.dir}) {
				for _, ref := range lb.modules {
					d.moduleDirRef(b, ref)
				}
				for _, m := range lb.pyModules {
					d.pyModuleRef(b, m.dir, m.mod)
				}
				for _, dir := range lb.pyPaths {
					d.pyPathRef(b, dir)
				}
				for _, scr := range lb.pyScripts {
					d.pyScriptRef(b, scr)
				}
				for _, ref := range refs {
					d.launcherRef(b, ref)
				}
				for _, p := range lb.patterns {
					d.launcherRef(b, p)
				}
				for _, ref := range run {
					d.launcherRef(b, ref)
				}
				for _, ref := range names {
					if !d.spendLookup() {
						return
					}
					if _, err := os.Lstat(b + "/" + ref); err == nil {
						d.launcherRef(b, ref)
					}
				}
			}
		}
	}
	for _, p := range bare.patterns {
		d.launcherRef(base, cr(p))
	}
	for _, ref := range bare.run {
		d.launcherRef(base, cr(ref))
	}
	for _, ref := range bare.modules {
		d.moduleDirRef(base, cr(ref))
	}
	for _, m := range bare.pyModules {
		d.pyModuleRef(base, cr(m.dir), m.mod)
	}
	for _, dir := range bare.pyPaths {
		d.pyPathRef(base, cr(dir))
	}
	for _, scr := range bare.pyScripts {
		d.pyScriptRef(base, cr(scr))
	}
	for _, ref := range bare.names {
		if !d.spendLookup() {
			return
		}
		if _, err := os.Lstat(base + "/" + cr(ref)); err == nil {
			d.launcherRef(base, cr(ref))
		}
	}
}

// readLauncherFile reads the regular file p, at most maxLauncherFileSize;
// opened without blocking, so that a FIFO the agent put at its name does
// not hold the view build (it is then refused as no regular file).
func readLauncherFile(p string) ([]byte, bool) {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, false
	}
	f := os.NewFile(uintptr(fd), p)
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(f, maxLauncherFileSize))
	return data, err == nil
}

// launcherRef keeps the path ref (as a launcher file in base wrote it)
// read-only, or watches it when missing, where it lies in a writable root.
func (d *discovery) launcherRef(base, ref string) {
	if d.v.overflow != "" {
		return // the commands are refused: what is left is not read (review 168)
	}
	d.v.launcherRefWork++
	// A trailing CR stays: bash reads it as part of the word in a .envrc
	// saved with CRLF (readLauncherRefs).
	p := expandLauncherVars(strings.TrimFunc(ref, func(r rune) bool { return r != '\r' && unicode.IsSpace(r) }), base)
	if p == "" || strings.ContainsRune(p, 0) {
		return
	}
	if rest, ok := strings.CutPrefix(p, string(rune(gitTopMark))); ok {
		// $(git rev-parse --show-toplevel)/rest: the top is base or a
		// directory above it, which one depending on where a .git is,
		// and the command may make one (git init) between base and its
		// root: the name is watched at each (the top outside the
		// writable roots is read-only anyway). A .envrc nested in a
		// repository sourced the top's script, left writable
		// (closing note of 2026-12-06).
		if rest == "" {
			// The top itself: source_env DIR sources DIR/.envrc (review
			// 166); a directory above is not kept whole.
			rest = "/.envrc"
		}
		if !strings.HasPrefix(rest, "/") || domain.CleanPath(rest) == "/" {
			return
		}
		for dir, n := base, 0; n < maxGitTopDepth; dir, n = filepath.Dir(dir), n+1 {
			d.launcherRef(dir, strings.TrimSuffix(dir, "/")+rest)
			if dir == "/" {
				break
			}
		}
		return
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return
		}
		p = home + p[1:]
	} else if strings.HasPrefix(p, "~") || strings.Contains(p, "$") {
		return // another user's home; a variable the tool expands
	}
	if !strings.HasPrefix(p, "/") {
		p = base + "/" + p
	}
	if slices.ContainsFunc(splitPath(p), shellGlobMeta) {
		// Its elements counted as the glob reads them: a ".." before the
		// pattern (cd .. then scripts/*.sh) was one element more
		// (review 167).
		p = domain.CleanPath(p)
	}
	if i := slices.IndexFunc(splitPath(p), shellGlobMeta); i >= 0 {
		// A pattern (mise's _.source = "scripts/*.sh"): every file it
		// matches now, and the directory it matches in, whole, when that
		// lies below the launcher file's own (so that no new match can be
		// made; the launcher's directory itself is the person's project).
		if d.seen["pattern:"+p] {
			return // globbed already
		}
		d.seen["pattern:"+p] = true
		if d.patterns++; d.patterns > maxLauncherPatterns {
			if d.v.overflow == "" {
				d.v.overflow = fmt.Sprintf("the launcher files in the writable roots name more than %d patterns of files: their matches cannot all be watched", maxLauncherPatterns)
			}
			return
		}
		p = shellGlob(p)
		if _, err := filepath.Match(p, ""); err != nil {
			// A pattern Go cannot read stands for matches that would go
			// unwatched: the commands are refused (the
			// hundred-and-fifty-ninth review).
			if d.v.overflow == "" {
				d.v.overflow = fmt.Sprintf("a launcher file in the writable roots names the pattern %q, which cannot be read: its matches cannot be watched", ref)
			}
			return
		}
		matches := d.glob(domain.CleanPath(p))
		for _, m := range matches {
			d.launcherPath(m)
		}
		d.launcherGlobAt(domain.CleanPath(p), i, matches)
		if dir := "/" + strings.Join(splitPath(p)[:i], "/"); domain.PathWithin(dir, base) && domain.CleanPath(dir) != domain.CleanPath(base) {
			d.launcherPath(domain.CleanPath(dir))
		}
		return
	}
	if slices.Contains(splitPath(p), "node_modules") {
		// What a package manager installs (node_modules/.bin, put in
		// PATH by direnv's layout node) is rewritten by every install:
		// kept read-only it would break them, and the packages around
		// it are the command's anyway (as configRefs).
		return
	}
	if way, ok := d.dotDotWay(p); ok {
		// Where the kernel's ".." leads, and where the lexical one does
		// (yarn and node resolve paths as text: tools/../x is x even
		// where tools is a symlink).
		d.launcherPath(way)
	}
	cp := domain.CleanPath(p)
	if d.launcherPath(cp) && !d.seen["nonfile:"+cp] && pythonShebang(cp) {
		// A python script run by its path: python puts its directory
		// (through its links) first on sys.path (pyshadow.go).
		d.pyScriptRef(base, cp)
	}
	if !d.launcherPath(cp) || d.seen["nonfile:"+cp] {
		// A name that is not a file: the file an interpreter that adds
		// an extension loads (`node scripts/setup` runs scripts/setup.js
		// where scripts/setup is missing, and before a directory of that
		// name; ts-node and tsx try .ts and the others; a name with a dot
		// too: seed.dev.js), kept as the name is, and watched where
		// missing (reviews 172 and 181). Each launcher file has a share of
		// such names of its own (the agent may write a nested .envrc read
		// before the person's: review 182), past which its other names go
		// unwatched, named in the check limits; all files together have a
		// bound past which the commands are refused, as past
		// maxLauncherPaths.
		if !d.spendResolved() {
			return
		}
		for _, ext := range resolvedExtensions {
			d.launcherPathCounted(cp+ext, lookupFree)
		}
		if isDir(cp) {
			d.dirModule(cp)
		}
	}
}

// spendResolved counts one name an interpreter resolves (its extensions,
// or a directory module's files) against the launcher file's share
// (maxResolvedNames: past it false, and the check limits say so) and the
// view's (maxResolvedNamesAll: past it false, and the commands are
// refused).
func (d *discovery) spendResolved() bool {
	if d.fileResolved++; d.fileResolved > maxResolvedNames {
		if d.fileResolved == maxResolvedNames+1 {
			d.v.limits = append(d.v.limits, fmt.Sprintf("a launcher file names more than %d names that are no file: the files an interpreter would load for the others (NAME.js, NAME.ts…) are not watched", maxResolvedNames))
		}
		return false
	}
	if d.resolvedNames++; d.resolvedNames > maxResolvedNamesAll {
		if d.v.overflow == "" {
			d.v.overflow = fmt.Sprintf("the launcher files in the writable roots name more than %d names an interpreter resolves: they cannot all be watched", maxResolvedNamesAll)
		}
		return false
	}
	return true
}

// lookupFree is the spend of a lookup a share counted already.
func lookupFree() bool { return true }

// maxResolvedNames bounds the names of one launcher file watched with the
// extensions an interpreter adds (resolvedExtensions: ten lookups each),
// maxResolvedNamesAll those of all a view reads: as many lookups as a
// tenth and all of maxLauncherPaths (review 168's fan-out of a .envrc's
// names through its cds took the view past 5 s with larger bounds).
const (
	maxResolvedNames    = 100
	maxResolvedNamesAll = 1_000
)

// resolvedExtensions are the extensions node (CommonJS: .js, .json,
// .node), ts-node, tsx and bun add to a script's name that does not exist
// as given.
var resolvedExtensions = []string{".js", ".cjs", ".mjs", ".json", ".node", ".ts", ".cts", ".mts", ".tsx", ".jsx"}

// maxLauncherPaths bounds the paths one view looks up for what launcher
// files name (past it the view refuses the commands).
const maxLauncherPaths = 10_000

// spendLookup counts one path looked up for what launcher files name
// against maxLauncherPaths; past it the view refuses the commands and
// false is returned. The names a .envrc's cds multiply, and the top's
// mark at every directory above, are bounded so (the
// hundred-and-sixty-eighth review: 17 cds before 4,000 names cost a view
// 107 s).
func (d *discovery) spendLookup() bool {
	if d.launcherPaths++; d.launcherPaths <= maxLauncherPaths {
		return true
	}
	if d.v.overflow == "" {
		d.v.overflow = fmt.Sprintf("the launcher files in the writable roots name more than %d paths: they cannot all be watched", maxLauncherPaths)
	}
	return false
}

// maxGitTopDepth bounds how many directories above a .envrc a name
// under the repository's top is watched at.
const maxGitTopDepth = 256

// launcherPath keeps the clean absolute path p read-only, or watches it
// when missing, where it lies in a writable root; it reports false only
// for such a path that is missing (watched), true otherwise.
func (d *discovery) launcherPath(p string) (exists bool) {
	return d.launcherPathCounted(p, d.spendLookup)
}

// launcherPathCounted is launcherPath with its lookup counted by spend.
func (d *discovery) launcherPathCounted(p string, spend func() bool) (exists bool) {
	if d.seen["launcherpath:"+p] {
		return !d.seen["missing:"+p] // as the first look found it (a name written with "..": review 181)
	}
	d.seen["launcherpath:"+p] = true
	if !spend() {
		return true
	}
	c, exists, ok, err := canonicalPath(p)
	if err != nil || !ok {
		return true
	}
	if c != p && d.writable(p) {
		d.v.linkRefs = append(d.v.linkRefs, [2]string{p, c})
	}
	if !d.writable(c) {
		return true
	}
	if d.seen["launcher:"+c] {
		return true
	}
	d.seen["launcher:"+c] = true
	if !exists {
		d.v.missingRefs = append(d.v.missingRefs, c)
		d.seen["missing:"+p] = true
		return false
	}
	if !isRegularFile(c) {
		d.seen["nonfile:"+p] = true // a directory module (launcherRef), looked at once
	}
	d.addCarve(c, pathKindGitFile)
	d.v.launcherTargets = append(d.v.launcherTargets, c)
	if isDir(c) {
		d.keepDirLinks(c, spend)
	}
	return true
}

// maxDirLinkEntries bounds the entries of the directories kept whole that
// keepDirLinks reads for a view; past it the view refuses the commands.
const maxDirLinkEntries = 100_000

// keepDirLinks keeps what the symlinks in the directory dir, kept whole
// (PATH_add bin, load_prefix, a module directory), lead to as dir's files
// are kept: a program of bin/ that is a link (bin/tool ->
// ../scripts/tool.sh) runs its target, which stayed writable (review
// 190). The links of its top level only: a module's tools/lib/helper.js
// -> ../../scripts/… that its index.js requires (review 192) is a known
// limit (knownlimit_attack192_nestedlink_test.go): walked at every depth,
// a directory a launcher file names outside the project (a person's
// .npmrc's nodedir=/usr, read under full_access) spent the view's budget
// on its thousands of links, and every decision was refused. Each link is
// one lookup of spend; dir itself is read-only, so a command cannot add
// or retarget one.
func (d *discovery) keepDirLinks(dir string, spend func() bool) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return // gone, or a link put there since: a link is followed where it is met
	}
	f := os.NewFile(uintptr(fd), dir)
	defer f.Close()
	left := maxDirLinkEntries - d.dirLinkEntries
	ents, _ := f.ReadDir(left + 1) // io.EOF for an empty directory: what was read is looked at
	if d.dirLinkEntries += len(ents); len(ents) > left {
		if d.v.overflow == "" {
			d.v.overflow = fmt.Sprintf("the directories launcher files keep whole (%s among them) hold more than %d entries: the links in them cannot all be followed", dir, maxDirLinkEntries)
		}
		return
	}
	for _, e := range ents {
		if e.Type()&os.ModeSymlink != 0 {
			d.launcherPathCounted(joinPath(dir, e.Name()), spend)
		}
	}
}

// launcherVar matches a shell-style variable: ${NAME}, ${NAME:-default},
// ${NAME-default} (yarn's and Maven's forms).
var launcherVar = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([A-Za-z0-9_.]+)(:?-([^}]*))?\}`) })

// expandLauncherVars replaces in p each variable with a default by the
// default (the tool uses it where the variable is unset, as it is for
// the person's next run as far as this process can tell), and Maven's
// names for the project's directory by base; others stay (the caller
// skips a path that holds one).
func expandLauncherVars(p, base string) string {
	return launcherVar().ReplaceAllStringFunc(p, func(m string) string {
		sub := launcherVar().FindStringSubmatch(m)
		switch {
		case sub[2] != "":
			return sub[3]
		case slices.Contains([]string{"MAVEN_PROJECTBASEDIR", "maven.multiModuleProjectDirectory", "session.rootDirectory", "project.basedir", "basedir"}, sub[1]):
			return base
		}
		return m
	})
}

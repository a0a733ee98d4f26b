package sandbox

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// joinRaw joins a relative p to cwd without normalising it: ".." must be
// applied by canonicalWalk to the directory a symlink led to, as the kernel
// does, never lexically before the symlinks are resolved.
func joinRaw(cwd, p string) string {
	if strings.HasPrefix(p, "/") {
		return p
	}
	if cwd == "" {
		cwd = "/"
	}
	return cwd + "/" + p
}

// root canonicalises a root of a snapshot. A root that exists is
// taken where its symlinks lead (a project checked out behind a link is
// legitimate). A root that does not exist yet and whose existing ancestor
// is reached through a symlink is kept where the snapshot names it, never
// where the link leads: whoever can plant that symlink (the agent, in a
// writable workspace) would otherwise choose the root's future place, and a
// path below it that resolves through the link is a symlink escape.
//
// The memo's resolved directories are used (see canonMemo).
func (m canonMemo) root(p string) string {
	lexical := domain.CleanPath(p)
	canon, exists, ok, err := m.path(lexical)
	switch {
	case err != nil || !ok:
		return lexical
	case !exists && canon != lexical:
		return lexical
	}
	return canon
}

// sensitiveRule is a PathSensitive entry of a snapshot: a path (with its
// subtree) or a pattern whose "*" components match one path element
// ("/proc/*/environ" names every process's environment, "/proc/self" and
// "/proc/thread-self" included).
type sensitiveRule struct {
	// parts are the pattern's elements; canonical holds the same with the
	// prefix before the first "*" canonicalised (symlinks resolved).
	parts, canonical []string
	// aliases are the pattern's stores under the real paths of matches
	// that lead elsewhere (dirLists.linkedMatches), with their elements.
	aliases [][]string
	// file is the identity of the regular file a pattern-free rule names,
	// when it exists: another name for it (a hard link) is refused too.
	file os.FileInfo
	// folded are parts, canonical and aliases folded (domain.FoldName),
	// with whether folding changed each (fold).
	folded   [][]string
	differed []bool
}

// fold sets folded and differed, once the rule's patterns are known.
func (r *sensitiveRule) fold() {
	pats := append([][]string{r.parts, r.canonical}, r.aliases...)
	r.folded, r.differed = make([][]string, len(pats)), make([]bool, len(pats))
	for i, pat := range pats {
		r.folded[i], r.differed[i] = foldParts(pat)
	}
}

// elementsPrefix is "/" and the first n of parts joined by "/", where parts
// are p's elements (splitPath): for a clean absolute p, the start of p
// itself, not a new string.
func elementsPrefix(p string, parts []string, n int) string {
	if n == 0 {
		return "/"
	}
	end, same := 0, n <= len(parts)
	for k := 0; same && k < n; k++ {
		el := parts[k]
		same = end+1+len(el) <= len(p) && p[end] == '/' && p[end+1:end+1+len(el)] == el
		end += 1 + len(el)
	}
	if same && (end == len(p) || p[end] == '/') {
		return p[:end]
	}
	return "/" + strings.Join(parts[:n], "/")
}

// sensitiveRule makes the rule of the PathSensitive entry p, resolving its
// pattern's prefix with the memo's resolved directories.
func (m canonMemo) sensitiveRule(p string) sensitiveRule {
	p = domain.CleanPath(p)
	r := sensitiveRule{parts: splitPath(p)}
	r.canonical = r.parts
	i := 0
	for i < len(r.parts) && !strings.Contains(r.parts[i], "*") {
		i++
	}
	prefix := elementsPrefix(p, r.parts, i)
	if c, _, ok, err := m.path(prefix); err == nil && ok && c != prefix {
		r.canonical = append(splitPath(c), r.parts[i:]...)
	}
	if i == len(r.parts) {
		// Not when the memo found it missing (Stat follows a link as the
		// memo's answer does): most of the stores under a home are.
		if _, exists, ok, err := m.path(p); err != nil || !ok || exists {
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				r.file = fi
			}
		}
	}
	return r
}

// matches reports whether the path whose elements are got is the rule's
// path (or a match of its pattern) or lies below it.
func (r sensitiveRule) matches(got []string) bool {
	if globPrefix(r.parts, got) || globPrefix(r.canonical, got) {
		return true
	}
	for _, a := range r.aliases {
		if globPrefix(a, got) {
			return true
		}
	}
	return false
}

func globPrefix(pattern, got []string) bool {
	if len(got) < len(pattern) {
		return false
	}
	for i, pc := range pattern {
		if !strings.Contains(pc, "*") {
			if pc != got[i] {
				return false
			}
			continue
		}
		if ok, err := path.Match(pc, got[i]); err != nil || !ok {
			return false
		}
	}
	return true
}

// sensitiveRefusal refuses a path whose lexical form or canonical form
// (when it could be resolved) is a sensitive path or lies below one, or
// whose file is a sensitive file under another name (a hard link). st is
// the canonical path's stat when the caller has it (nil: stat it here).
func (v *fsView) sensitiveRefusal(lexical, canon string, resolved bool, st *unix.Stat_t) *Refusal {
	if len(v.sensitive) == 0 {
		return nil
	}
	hit := v.sensitiveMatch(lexical) || (resolved && v.sensitiveMatch(canon))
	if !hit && resolved && v.sensitiveFile(canon, st) {
		hit = true
	}
	if !hit {
		return nil
	}
	shown := lexical
	if resolved {
		shown = canon
	}
	// The rule is not named: it would show a credential store's name in
	// the audit, which redacts the path itself.
	return &Refusal{Code: CodeSensitivePath, Path: shown,
		Message: "the path is sensitive (a credential store, process memory or environment, a shadow file or the server's data): it is denied, read and write, to every restricted turn"}
}

// sensitiveMatch reports whether a sensitive rule matches the clean
// absolute path p or an ancestor of it.
func (v *fsView) sensitiveMatch(p string) bool {
	var buf [64]string
	got := appendParts(buf[:0], p)
	if len(got) == 0 {
		return v.sensitiveMatchEach(got)
	}
	x := v.sensitiveIndex()
	if x == nil {
		return v.sensitiveMatchEach(got)
	}
	for _, l := range [2][]int{x.first[got[0]], x.wild} {
		for _, i := range l {
			if v.sensitive[i].matches(got) {
				return true
			}
		}
	}
	var fbuf [64]string
	folded, changed := foldedParts(fbuf[:0], got)
	for _, l := range [2][]int{x.folded[folded[0]], x.wildFolded} {
		for _, i := range l {
			if v.sensitive[i].matchesFolded(folded, changed) {
				return true
			}
		}
	}
	return false
}

// sensitiveMatchEach is sensitiveMatch trying every rule.
func (v *fsView) sensitiveMatchEach(got []string) bool {
	for _, r := range v.sensitive {
		if r.matches(got) {
			return true
		}
	}
	var fbuf [64]string
	folded, changed := foldedParts(fbuf[:0], got)
	for _, r := range v.sensitive {
		if r.matchesFolded(folded, changed) {
			return true
		}
	}
	return false
}

// foldedParts returns got's elements folded (domain.FoldName): on a
// case-insensitive file system ~/.SSH/id_rsa and ~/.NPMRC are the
// credential stores (the hundred-and-thirty-ninth review); this only
// narrows. changed: folding changed some element. They are appended to
// dst.
func foldedParts(dst, got []string) (folded []string, changed bool) {
	folded = dst
	for _, g := range got {
		f := domain.FoldName(g)
		changed = changed || f != g
		folded = append(folded, f)
	}
	return folded, changed
}

// matchesFolded is matches on folded components (got, folded by the
// caller; changed: folding changed some), the rule's folded as well.
func (r sensitiveRule) matchesFolded(got []string, changed bool) bool {
	for i, fp := range r.folded {
		if (changed || r.differed[i]) && globPrefix(fp, got) {
			return true
		}
	}
	return false
}

// foldParts folds each of parts (domain.FoldName), reporting whether any
// changed; parts itself when none did.
func foldParts(parts []string) ([]string, bool) {
	var out []string
	for i, p := range parts {
		if f := domain.FoldName(p); f != p {
			if out == nil {
				out = append(make([]string, 0, len(parts)), parts[:i]...)
			}
			out = append(out, f)
		} else if out != nil {
			out = append(out, p)
		}
	}
	if out == nil {
		return parts, false
	}
	return out, true
}

// sensitiveFile reports whether canon is a regular file that a
// pattern-free sensitive rule names under another name.
func (v *fsView) sensitiveFile(canon string, st *unix.Stat_t) bool {
	for _, r := range v.sensitive {
		if r.file == nil {
			continue
		}
		if st == nil {
			var s unix.Stat_t
			if unix.Stat(canon, &s) != nil {
				return false
			}
			st = &s
		}
		if st.Mode&unix.S_IFMT != unix.S_IFREG {
			return false
		}
		if rs, ok := r.file.Sys().(*syscall.Stat_t); ok && uint64(rs.Dev) == uint64(st.Dev) && uint64(rs.Ino) == uint64(st.Ino) {
			return true
		}
	}
	return false
}

// appendParts appends the elements of the slash-separated path p to out
// (splitPath without allocating for paths of up to cap(out) elements).
func appendParts(out []string, p string) []string {
	for len(p) > 0 {
		i := strings.IndexByte(p, '/')
		if i < 0 {
			return append(out, p)
		}
		if i > 0 {
			out = append(out, p[:i])
		}
		p = p[i+1:]
	}
	return out
}

// canonicalFast resolves abs when none of its components is a symlink: one
// openat2 that refuses every symlink (RESOLVE_NO_SYMLINKS) proves it, and
// the canonical path is then abs cleaned (".." of a directory reached
// without a link is its lexical parent); st is the file's stat, for the
// hard-link check. A path whose last component alone is missing (a new
// file) is answered the same way through its parent, with exists false and
// a zero st. Anything else (a symlink, a deeper missing component, a file
// used as a directory, a loop) is left to the component walk
// (canonicalPath), which it would answer the same way.
func canonicalFast(abs string) (canon string, st unix.Stat_t, exists, ok bool) {
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS}
	fd, err := unix.Openat2(unix.AT_FDCWD, abs, &how)
	if err == nil {
		defer unix.Close(fd)
		if unix.Fstat(fd, &st) != nil {
			return "", st, false, false
		}
		return domain.CleanPath(abs), st, true, true
	}
	i := strings.LastIndexByte(abs, '/')
	if err != unix.ENOENT || i < 0 {
		return "", st, false, false
	}
	dir, base := abs[:i], abs[i+1:]
	if base == "" || base == "." || base == ".." {
		return "", st, false, false
	}
	if dir == "" {
		dir = "/"
	}
	fd, err = unix.Openat2(unix.AT_FDCWD, dir, &how)
	if err != nil {
		return "", st, false, false
	}
	defer unix.Close(fd)
	var dst unix.Stat_t
	if unix.Fstat(fd, &dst) != nil || dst.Mode&unix.S_IFMT != unix.S_IFDIR {
		return "", st, false, false
	}
	if err := unix.Fstatat(fd, base, &dst, unix.AT_SYMLINK_NOFOLLOW); err != unix.ENOENT {
		return "", st, false, false // it exists now, or cannot be told: the walk decides
	}
	return joinPath(domain.CleanPath(dir), base), st, false, true
}

// CheckTree is CheckFile for a recursive read of path (grep_files): the
// path is checked as a read, and refused as sensitive_path when a sensitive
// path lies below it (a search of /etc would read /etc/shadow), and as a
// read of it is when a path the policy denies lies below it (deniedBelow).
func CheckTree(s *domain.TurnExecutionSecuritySnapshot, path string) (string, error) {
	if s == nil || s.Sandbox.Filesystem.Unrestricted {
		return CheckFile(s, path, domain.AccessRead)
	}
	key := fsViewKey(&s.Sandbox.Filesystem)
	return checkTree(s.Sandbox.Cwd, &s.Sandbox.Filesystem, cachedFSView(&s.Sandbox.Filesystem), path, scanOwner{key, key})
}

// checkTree is CheckTree with v the view of the restricted policy fp; a
// scan it makes waits for the slot as owner's (decisionScans).
func checkTree(cwd string, fp *domain.FilesystemPolicy, v *fsView, path string, owner scanOwner) (string, error) {
	resolved, err := checkFile(cwd, fp, v, path, domain.AccessRead)
	if err != nil {
		// A tree through a process-relative link (/proc/self) that holds
		// a sensitive path as named is refused as sensitive, as before.
		lexical := domain.ResolvePath(cwd, path)
		if _, ok := domain.ProcessRelative(lexical); ok && v.sensitiveBelow(lexical) {
			return "", &Refusal{Code: CodeSensitivePath, Path: lexical,
				Message: "a recursive read here would read a sensitive path below it"}
		}
		return resolved, err
	}
	if v.sensitiveBelow(resolved) {
		return "", &Refusal{Code: CodeSensitivePath, Path: resolved,
			Message: "a recursive read here would read a sensitive path below it"}
	}
	if r := deniedBelow(cwd, fp, v, resolved, owner); r != nil {
		return "", r
	}
	return resolved, nil
}

// deniedBelow refuses a recursive read of p when a path below it is one a
// read of it is refused: a deny carve-out (a permission profile's denied
// directory, reopened deeper or not) strictly below p, or an existing file
// a profile's glob deny matches ("**/*.env" = deny), found as the kernel
// masks them (globMaskEntries) but at every level below p: the profile's
// glob_scan_max_depth bounds the spawn's scan, not the runtime's search,
// whose rg reads every level. A search tool reads every file of the tree:
// rg's names of the files that match a pattern are an oracle on their
// content, and Claude Code's Grep prints the lines.
func deniedBelow(cwd string, fp *domain.FilesystemPolicy, v *fsView, p string, owner scanOwner) *Refusal {
	var below []string
	for _, c := range v.carves {
		if c.Access == domain.AccessDeny && c.Path != p && domain.PathWithin(c.Path, p) {
			below = append(below, c.Path)
		}
	}
	if fp.GlobScanMaxDepth > 0 {
		tree := []domain.FilesystemEntry{{Kind: domain.PathExplicit, Path: p, ResolvedPath: p, Access: domain.AccessRead}}
		found, complete, busy := decisionScan(owner, tree, fp.Rules, everyLevel)
		if busy {
			return scanBusy(p)
		}
		if !complete {
			return treeTooLarge(p)
		}
		for _, m := range found {
			below = append(below, m.ResolvedPath)
		}
	}
	for _, b := range below {
		if _, err := checkFile(cwd, fp, v, b, domain.AccessRead); err != nil {
			var r *Refusal
			if errors.As(err, &r) && r.Code != CodeMissingPath {
				return &Refusal{Code: r.Code, Path: p, Message: "a recursive read here would read " + b + ", which is refused: " + r.Message}
			}
		}
	}
	return nil
}

// everyLevel is globMaskEntries' depth for a scan of every level below a
// tree (a path longer than PATH_MAX, which no reader opens, ends it).
const everyLevel = math.MaxInt

// maxDecisionScanDirs bounds the directories a decision reads looking for
// what a glob deny matches below a tree: each costs a directory read of the
// server's (100,000 took 3 to 4 s), a tree the agent can grow at will, and
// a bind mount that loops would never end. The names a glob's last element
// matches, each resolved against the rules, count as directories, and ten
// other names as one (globMaskScan): a directory of 200,000 files named to
// match cost as much as 200,000 directories. A tree larger than that is
// refused, not judged in part (a variable for tests).
var maxDecisionScanDirs = 200_000

// decisionScans holds the one slot of the decision scans that may run at
// once in this process. Within its bounds a scan can cost a decision 5–8 s
// of CPU (a tree the agent grew to just under them), and scans made at
// once (concurrent grep_files calls, several turns) would take every core
// from the server's other work, other users' decisions included: they run
// one at a time, a decision that needs one waiting for its turn.
//
// The slot is handed to the waiting owners in turn, each owner's scans in
// the order they came, and a scan waits at most maxScanWait before its
// decision is refused. An owner is the principal asking (scanOwner: the
// engine scopes the checker to each call's), or the filesystem policy (a
// turn's workspace and profile) for a checker given no principal. With
// one queue in arrival order, an agent that asked for forty scans of its
// grown tree at once (its runtime credential, concurrent requests) held
// every other workspace's grep and listing decisions behind minutes of
// its scans, and a Claude Code hook answered after its timeout (60 s) is
// one Claude Code runs the call after, unchecked: the agent's own Grep of
// a denied tree waited past it behind its flood. With the policy as the
// owner, the agent, which starts as many turns on as many roots as it
// likes, held another principal's scan behind one of each of its turns.
var decisionScans = &scanQueue{}

// maxScanWait bounds how long a decision waits for the scan slot: well
// below a Claude Code hook's timeout, past which the call would run
// unchecked (a variable for tests).
var maxScanWait = 20 * time.Second

// scanEntered, when set (tests), is called as a decision scan starts;
// scanQueued as one starts to wait for the slot.
var (
	scanEntered func()
	scanQueued  func()
)

// scanOwner is whom a waiting decision scan is for: the principal asking
// and the filesystem policy judged (for a checker given no principal, the
// policy stands for the principal too).
type scanOwner struct{ principal, policy string }

// scanQueue is the decision scans' slot and the scans waiting for it: the
// slot goes to the principals with a scan waiting in turn and, within a
// principal's turn, to its policies in turn, each policy's scans in the
// order they came.
type scanQueue struct {
	mu         sync.Mutex
	busy       bool
	running    scanOwner                     // whose scan is in the slot
	principals []string                      // principals with a scan waiting, in turn
	policies   map[string][]string           // each one's policies with a scan waiting, in turn
	waiting    map[scanOwner][]chan struct{} // each owner's waiting scans, in order
}

// acquire takes the slot for a scan of o's, waiting up to maxScanWait;
// false when it was not had in time.
func (q *scanQueue) acquire(o scanOwner) bool {
	q.mu.Lock()
	if !q.busy {
		q.busy, q.running = true, o
		q.mu.Unlock()
		return true
	}
	ch := make(chan struct{})
	if q.waiting == nil {
		q.waiting, q.policies = map[scanOwner][]chan struct{}{}, map[string][]string{}
	}
	if len(q.waiting[o]) == 0 {
		if len(q.policies[o.principal]) == 0 {
			q.principals = append(q.principals, o.principal)
		}
		q.policies[o.principal] = append(q.policies[o.principal], o.policy)
	}
	q.waiting[o] = append(q.waiting[o], ch)
	q.mu.Unlock()
	if scanQueued != nil {
		scanQueued()
	}
	t := time.NewTimer(maxScanWait)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	w := q.waiting[o]
	i := slices.Index(w, ch)
	if i < 0 {
		return true // handed the slot as the timer fired
	}
	if w = slices.Delete(w, i, i+1); len(w) > 0 {
		q.waiting[o] = w
		return false
	}
	delete(q.waiting, o)
	if ps := slices.DeleteFunc(q.policies[o.principal], func(x string) bool { return x == o.policy }); len(ps) > 0 {
		q.policies[o.principal] = ps
	} else {
		delete(q.policies, o.principal)
		q.principals = slices.DeleteFunc(q.principals, func(x string) bool { return x == o.principal })
	}
	return false
}

// release hands the slot to the first scan of the next principal in turn
// (another principal's before the one whose scan ends), of its next policy
// in turn (likewise), or frees it.
func (q *scanQueue) release() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.principals) == 0 {
		q.busy, q.running = false, scanOwner{}
		return
	}
	if len(q.principals) > 1 && q.principals[0] == q.running.principal {
		q.principals = append(q.principals[1:], q.principals[0])
	}
	pr := q.principals[0]
	ps := q.policies[pr]
	if len(ps) > 1 && pr == q.running.principal && ps[0] == q.running.policy {
		ps = append(ps[1:], ps[0])
	}
	o := scanOwner{pr, ps[0]}
	q.running = o
	w := q.waiting[o]
	ch := w[0]
	if w = w[1:]; len(w) > 0 {
		q.waiting[o] = w
		ps = append(ps[1:], ps[0]) // its policy's next scan waits for the others'
	} else {
		delete(q.waiting, o)
		ps = ps[1:]
	}
	q.principals = q.principals[1:]
	if len(ps) > 0 {
		q.policies[pr] = ps
		q.principals = append(q.principals, pr) // its next scan waits for the others'
	} else {
		delete(q.policies, pr)
	}
	close(ch)
}

// decisionScan is globMaskScan for a decision, bounded by
// maxDecisionScanDirs, run in the slot of decisionScans for owner.
// complete is false, and busy true, when the slot was not had within
// maxScanWait.
func decisionScan(owner scanOwner, tree []domain.FilesystemEntry, rules []domain.PathRule, depth int) (found []domain.FilesystemEntry, complete, busy bool) {
	if !decisionScans.acquire(owner) {
		return nil, false, true
	}
	defer decisionScans.release()
	if scanEntered != nil {
		scanEntered()
	}
	found, complete = globMaskScan(tree, rules, depth, maxDecisionScanDirs)
	return found, complete, false
}

// scanBusy refuses a recursive read or listing of p whose scan did not
// get its turn within maxScanWait.
func scanBusy(p string) *Refusal {
	return &Refusal{Code: CodeOutsideAllowedRoots, Path: p,
		Message: fmt.Sprintf("the server's scans for what a glob deny of the profile matches below a tree were busy for %s with other decisions' (more of this workspace's at once than one at a time answers): ask again, or name a narrower path", maxScanWait)}
}

// treeTooLarge refuses a recursive read or listing of p whose scan stopped
// at maxDecisionScanDirs.
func treeTooLarge(p string) *Refusal {
	return &Refusal{Code: CodeOutsideAllowedRoots, Path: p,
		Message: fmt.Sprintf("more than %d directories (or %d names) lie below, too many to look for what a glob deny of the profile matches there: name a narrower path", maxDecisionScanDirs, maxDecisionScanDirs*scanCostEntries)}
}

// sensitiveBelow reports whether a sensitive rule names something strictly
// below the clean absolute path p.
func (v *fsView) sensitiveBelow(p string) bool {
	got := splitPath(p)
	for _, r := range v.sensitive {
		if below(r.parts, got) || below(r.canonical, got) {
			return true
		}
	}
	return false
}

// below reports whether the pattern names something strictly below the
// path whose elements are got.
func below(pattern, got []string) bool {
	return len(pattern) > len(got) && globPrefix(pattern[:len(got)], got)
}

// kernelMasks reports whether a sensitive path (one path: a pattern's
// entry is expanded to its matches first, and a match may hold a "*" of
// its own, a home named "a*b": the hundred-and-thirtieth review) is also a
// kernel carve-out (masked in the command's mount namespace): only an
// existing path outside /proc that this process can read. /proc is the PID
// namespace's own procfs (other processes are not there); a missing path
// has nothing to hide (and must not be created empty); a path this process
// cannot read, a command run as the same user with fewer capabilities
// cannot read either.
func kernelMasks(p string) bool {
	if domain.PathWithin(p, "/proc") {
		return false
	}
	// access(2) follows a link as the command's open would, and fails
	// for what does not exist.
	return unix.Access(p, unix.R_OK) == nil
}

// kernelMasks is kernelMasks(p), asking the system only when the memo does
// not already know p to be missing (a hundred credential stores under each
// home, most of them absent: the memo lists a directory once it was asked
// about listAfter names there).
func (m canonMemo) kernelMasks(p string) bool {
	if domain.PathWithin(p, "/proc") {
		return false
	}
	if _, exists, ok, err := m.path(domain.CleanPath(p)); err == nil && ok && !exists {
		return false
	}
	return kernelMasks(p)
}

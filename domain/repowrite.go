package domain

import "strings"

// RepositoryWrite reports whether a file tool's write of the file at path
// (clean and absolute) inside the writable root would write a git
// repository's own files, and returns the repository's git dir. A host
// program trusts what it finds there: git, started by the person or by an
// editor's git integration scanning the workspace for repositories, reads
// the repository's config and runs what it names (core.fsmonitor,
// core.pager, an alias, a hook). A command that makes a repository is
// checked after it ends (its repository is quarantined); a file tool writes
// outside the kernel sandbox and nothing looks after it, so the decision is
// the boundary. The write is a repository's when, below root:
//
//   - a component of path is named ".git", in any case (a ".git" directory
//     or pointer file, the one git looks for in every directory it starts
//     in; a case-insensitive file system finds ".GIT" as ".git"), or ".hg",
//     ".jj" or ".sl" (OtherVCSDir: Mercurial, Jujutsu and Sapling read
//     the hooks, aliases and extensions of the repository's config there
//     as git does its own; the root's are protected paths too);
//   - the file is named HEAD, in any case: with objects and refs, or with
//     commondir, it makes its directory a git dir (a bare repository, a
//     linked work tree's git dir) that git takes for a repository when it
//     starts there. A rule on what the directory holds when the write is
//     decided would not do: a runtime may decide several calls before it
//     performs any, so HEAD, objects/… and refs/… each decided on an empty
//     directory would all pass. HEAD is the piece no source tree needs;
//   - a directory from root down to path's parent already holds HEAD, and
//     the write gives it objects, refs, commondir or config (any case), or
//     it already is a git dir (HEAD, and commondir or objects and refs), in
//     which nothing at all is written.
//
// A file named config, objects or refs in a directory without HEAD stays
// writable. Written names are compared in any case; exists reports whether
// an entry exists at a clean absolute path (as lstat finds it, so a
// case-insensitive file system answers for any case). The root's own ".git"
// is a protected path as well: its config, hooks and info are read-only to
// commands too, while this rule is for file tools only (a command's git
// commit writes objects and refs).
func RepositoryWrite(root, path string, exists func(string) bool) (gitDir string, ok bool) {
	if path == root || !PathWithin(path, root) {
		return "", false
	}
	// Each component of path below root is path[i+1:end], in the
	// directory path[:i] ("" for "/"): no copies.
	first := len(root)
	if root == "/" {
		first = 0
	}
	dirOf := func(i int) string {
		if i == 0 {
			return "/"
		}
		return path[:i]
	}
	for i := first; i < len(path); {
		end := nextSlash(path, i+1)
		name := path[i+1 : end]
		if strings.EqualFold(name, ".git") || OtherVCSDir(name) {
			return path[:end], true
		}
		if end == len(path) && strings.EqualFold(name, "HEAD") {
			return dirOf(i), true
		}
		i = end
	}
	for i := first; i < len(path); {
		end := nextSlash(path, i+1)
		if gitDirWrite(path[:i], path[i+1:end], exists) {
			return dirOf(i), true
		}
		i = end
	}
	return "", false
}

// OtherVCSDir reports whether name (any case) is the directory another
// version control system than git keeps a repository in, with a config
// that runs programs: Mercurial's .hg (hgrc), Jujutsu's .jj
// (repo/config.toml) and Sapling's .sl (config).
func OtherVCSDir(name string) bool {
	return strings.EqualFold(name, ".hg") || strings.EqualFold(name, ".jj") || strings.EqualFold(name, ".sl")
}

// OtherVCSConfigs are, for each OtherVCSDir (lower case), the files in it
// that name what the tool runs or where its config is read: Mercurial's
// and Sapling's config and sharedpath (another repository's, whose config
// is read), a Mercurial share's own config (hgrc-not-shared), Jujutsu's
// repo/config.toml, its workspace's workspace-config.toml (read by jj 0.35
// to 0.37, moved out of the workspace and loaded from there by later ones
// when no workspace-config-id is beside it), the config-id files naming
// the config jj 0.38 and later keep outside the workspace, and repo (a
// file naming another repository's store).
var OtherVCSConfigs = map[string][]string{
	".hg": {"hgrc", "hgrc-not-shared", "sharedpath"},
	".sl": {"config", "hgrc", "sharedpath"},
	".jj": {"repo/config.toml", "repo/config-id", "workspace-config.toml", "workspace-config-id", "repo"},
}

// OtherVCSConfigTrusted reports whether a Mercurial or Sapling config
// holds nothing that runs a program: comments, blank lines and the [paths]
// section alone (what a clone writes). Anything else ([hooks],
// [extensions], [alias], [ui] with its editor or merge tool, a %include)
// is not trusted. Lines end at "\n", "\r\n" and a lone "\r", as
// Mercurial's parser (splitlines) ends them: a "[hooks]" after a "\r" is a
// section of its own there.
func OtherVCSConfigTrusted(content []byte) bool {
	section := ""
	for line := range strings.FieldsFuncSeq(string(content), func(r rune) bool { return r == '\n' || r == '\r' }) {
		l := strings.TrimSpace(line)
		switch {
		case l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, ";"):
			continue
		case strings.HasPrefix(l, "["):
			end := strings.IndexByte(l, ']')
			if end < 0 {
				return false
			}
			section = strings.TrimSpace(l[1:end])
			if section != "paths" || strings.TrimSpace(l[end+1:]) != "" {
				return false
			}
		case section != "paths" || strings.HasPrefix(l, "%") || line != strings.TrimLeft(line, " \t"):
			// A line outside [paths], a directive, or a continuation of
			// the value before it.
			return false
		}
	}
	return true
}

// nextSlash returns the index of the first '/' of p at or after i, or
// len(p).
func nextSlash(p string, i int) int {
	if j := strings.IndexByte(p[i:], '/'); j >= 0 {
		return i + j
	}
	return len(p)
}

// gitDirWrite reports whether writing the entry name into dir (without a
// trailing slash; "" for "/") writes a git dir: dir holds HEAD, and name is
// one of the other pieces that make one (or config), or dir already is one.
func gitDirWrite(dir, name string, exists func(string) bool) bool {
	if !exists(dir + "/HEAD") {
		return false
	}
	for _, n := range []string{"objects", "refs", "commondir", "config"} {
		if strings.EqualFold(name, n) {
			return true
		}
	}
	return exists(dir+"/commondir") || exists(dir+"/objects") && exists(dir+"/refs")
}

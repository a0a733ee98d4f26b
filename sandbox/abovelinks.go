package sandbox

import (
	"cmp"
	"path"
	"strings"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// addAboveRootLinks keeps read-only what a protected item above a
// writable root leads to, where it is a symlink into a writable root: a
// project that keeps its configs in one folder (repo/.vscode ->
// sub/editor, repo/mise.toml -> sub/editor/mise.toml) has the folder kept
// by a turn rooted at the project (the items' carve-outs are made where
// they lead), and a turn rooted at repo/sub, which the runtime may choose
// under allowed_roots, wrote them (the hundred-and-seventy-second review:
// domain.aboveRootEntries holds the list above a root only where an item
// covers the root or lies in it as written). The items are the root's
// own (its protected entries, relative to it), looked for at each
// directory between the root and the allowed root it is bound to
// (Within), as domain.BindRoots holds them there.
func (v *fsView) addAboveRootLinks(memo *canonMemo, fp *domain.FilesystemPolicy) {
	for _, r := range fp.Entries {
		if r.Access != domain.AccessWrite || r.Within == "" || (r.Kind != domain.PathWorkspaceRoot && r.Kind != domain.PathProjectRoot) {
			continue
		}
		root := domain.CleanPath(cmp.Or(r.LedTo, r.ResolvedPath, r.Path))
		if root == r.Within || !domain.PathWithin(root, r.Within) {
			continue
		}
		var items []string
		for _, e := range fp.Entries {
			if p := domain.CleanPath(cmp.Or(e.ResolvedPath, e.Path)); e.Kind == domain.PathProtected && p != root && domain.PathWithin(p, root) {
				items = append(items, strings.TrimPrefix(p, root+"/"))
			}
		}
		for d := path.Dir(root); domain.PathWithin(d, r.Within); d = path.Dir(d) {
			cd, ok, err := memo.canonical(d)
			if err != nil || !ok {
				cd = ""
			}
			if cd == "" {
				continue // nothing there
			}
			for _, it := range items {
				p := joinPath(d, it)
				if !strings.Contains(it, "/") {
					// One listing of the directory answers its items
					// (canonMemo.child), not an lstat each.
					if t, err := memo.child(cd, it); err != nil || t != unix.S_IFLNK {
						continue
					}
				}
				// A link anywhere on the item's way (repo/.cargo -> sub/cfg
				// for .cargo/config.toml: the hundred-and-seventy-fifth
				// review), not only at its last name.
				canon, ok, err := memo.canonical(p)
				if err != nil || !ok || canon == joinPath(cd, it) {
					continue
				}
				if g, _ := v.access(canon); g != domain.AccessWrite {
					continue // read-only there anyway
				}
				v.addRule(memo, domain.FilesystemEntry{Kind: domain.PathProtected, Path: p, ResolvedPath: p, Access: domain.AccessRead, Provenance: domain.ProvenanceSystem}, p)
			}
			if d == r.Within || d == "/" {
				break
			}
		}
	}
}

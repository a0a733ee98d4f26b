package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"turnstile/domain"
)

// VS Code's workspace files (NAME.code-workspace) hold settings, launch
// configurations and tasks, a task with runOptions.runOn "folderOpen"
// included, as .vscode does; VS Code offers to open one it finds at the top
// of a folder the person opens. The protected list keeps .vscode read-only
// but cannot name these (the name is the person's): at the top of each
// writable root, an existing one is kept read-only (withWorkspaceFiles), a
// write decision on one is refused (workspaceFileRefusal), and one a
// command made is set aside after it (plantCheck.setAsideWorkspaceFiles).

// workspaceFileSuffix ends the name of a VS Code workspace file.
const workspaceFileSuffix = ".code-workspace"

// hasWorkspaceSuffix reports whether name ends in .code-workspace, in any
// case (a file system that ignores case gives VS Code the one it asks for).
func hasWorkspaceSuffix(name string) bool {
	n := len(workspaceFileSuffix)
	return len(name) > n && strings.EqualFold(name[len(name)-n:], workspaceFileSuffix)
}

// isWorkspaceFile reports whether p is a workspace file at the top of one
// of the writable roots.
func isWorkspaceFile(p string, roots []string) bool {
	if !hasWorkspaceSuffix(p) {
		return false
	}
	return slices.Contains(roots, filepath.Dir(p))
}

// workspaceFiles lists the workspace files at the top of root (regular
// files and symlinks, by name).
func workspaceFiles(root string) []string {
	d, err := os.Open(root)
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	var out []string
	for _, n := range names {
		if hasWorkspaceSuffix(n) {
			out = append(out, n)
		}
	}
	return out
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
// each regular workspace file at the top of a writable root. entries is not
// modified.
func withWorkspaceFiles(entries []domain.FilesystemEntry) []domain.FilesystemEntry {
	out := entries
	for _, root := range writableRoots(entries) {
		for _, n := range workspaceFiles(root) {
			p := filepath.Join(root, n)
			if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
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

// workspaceFileRefusal refuses a write decision on a workspace file at the
// top of one of roots (the runtime's own edit tools write outside the
// sandbox).
func workspaceFileRefusal(canon string, roots []string) error {
	if !isWorkspaceFile(canon, roots) {
		return nil
	}
	return &Refusal{Code: CodeWriteRequiresWritable, Path: canon,
		Message: "the path is a VS Code workspace file, whose tasks run when the person opens it, which stays read-only"}
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

// noteWorkspaceFiles records the workspace files at the top of each root
// when the command starts.
func (pc *plantCheck) noteWorkspaceFiles() {
	pc.wsFiles = map[string]bool{}
	for _, r := range pc.roots {
		for _, n := range workspaceFiles(r) {
			pc.wsFiles[filepath.Join(r, n)] = true
		}
	}
}

// setAsideWorkspaceFiles sets aside each workspace file at the top of a
// root that was not there when the command started.
func (pc *plantCheck) setAsideWorkspaceFiles() (found []Quarantine) {
	for _, r := range pc.roots {
		for _, n := range workspaceFiles(r) {
			if p := filepath.Join(r, n); !pc.wsFiles[p] {
				found = append(found, setAsideOnTheWay(p, r, "a VS Code workspace file the command created (VS Code runs its folderOpen tasks)"))
			}
		}
	}
	return found
}

package sandbox

import (
	"encoding/json"
	"path"
	"strings"

	"turnstile/domain"
)

// addWorkspaceFolders keeps read-only the .vscode of each folder a VS Code
// workspace file at a writable root (or the turn's cwd) lists: VS Code
// opens every folder of the workspace and reads its .vscode (settings,
// folderOpen tasks), and a turn rooted at repo rewrote
// repo/app/.vscode/tasks.json for repo/team.code-workspace's "app" (the
// hundred-and-seventy-fifth review). Its tasks are read then as the
// root's are (protectLauncherRefs: a .vscode carve-out).
func (v *fsView) addWorkspaceFolders(memo *canonMemo) {
	for _, d := range append(v.writableRoots(), v.cwdDirs()...) {
		for _, rel := range v.workspaceFilesOf(d) {
			if !strings.HasSuffix(strings.ToLower(rel), ".code-workspace") {
				continue
			}
			data, ok := readLauncherFile(joinPath(d, rel))
			if !ok {
				continue
			}
			var doc map[string]any
			if json.Unmarshal(stripJSONComments(data), &doc) != nil {
				continue // its tasks' reader refuses the commands
			}
			fs, _ := doc["folders"].([]any)
			for _, f := range fs[:min(len(fs), maxWorkspaceFolders)] {
				p, _ := jsonObj(f)["path"].(string)
				if p == "" {
					continue
				}
				if !strings.HasPrefix(p, "/") {
					p = joinPath(path.Dir(joinPath(d, rel)), p)
				}
				item := joinPath(domain.CleanPath(p), ".vscode")
				if g, _ := v.access(item); g != domain.AccessWrite {
					continue // read-only there anyway (a root's own is held)
				}
				v.addRule(memo, domain.FilesystemEntry{Kind: domain.PathProtected, Path: item, ResolvedPath: item, Access: domain.AccessRead, Provenance: domain.ProvenanceSystem}, item)
			}
		}
	}
}

// maxWorkspaceFolders bounds the folders read of one workspace file.
const maxWorkspaceFolders = 256

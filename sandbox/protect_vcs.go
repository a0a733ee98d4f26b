package sandbox

import (
	"os"
	"path/filepath"
	"strings"

	"turnstile/domain"
)

// jjPointer keeps a jj secondary workspace's repository pointer read-only,
// as dotGit keeps a ".git" pointer file: in such a workspace ".jj/repo" is
// a file naming the repository's directory, whose config.toml jj loads on
// every command (ui.pager, ui.editor, ui.diff-editor and aliases run
// programs). Rewritten to name a directory of the command's, the next jj
// command a person runs there would run what that config says. In the
// primary workspace ".jj/repo" is the repository's directory, which jj
// writes, and stays writable (its config.toml is on the protected list).
// The config.toml of the directory the pointer names, where it exists
// inside a writable root, is kept read-only too.
func (d *discovery) jjPointer(p string) {
	if d.seen[p] || !d.writable(p) {
		return
	}
	d.seen[p] = true
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	d.addCarve(p, pathKindGitFile)
	target, ok := readPointer(p, "")
	if !ok {
		return
	}
	if !strings.HasPrefix(target, "/") {
		target = filepath.Dir(p) + "/" + target // jj joins it to .jj
	}
	c, exists, ok, err := canonicalPath(domain.CleanPath(target))
	if err != nil || !ok || !exists {
		return
	}
	if cfg := joinPath(c, "config.toml"); d.writable(cfg) {
		if _, err := os.Lstat(cfg); err == nil {
			d.addCarve(cfg, pathKindGitFile)
		}
	}
}

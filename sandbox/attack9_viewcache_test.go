package sandbox

import (
	"errors"
	"os"
	"testing"

	"turnstile/domain"
)

// TestAttack9ViewCacheWatchFollowsMovedDirectory: the cached view of a
// snapshot (viewcache.go) stands while inotify reports no change to what
// it looked up, and the watches are filed by path (viewWatcher.byPath).
// An inotify watch follows its inode: once a watched directory is renamed
// and a new one made at its path, the rename moves the generation on, but
// the path stays filed under the old directory's watch, so every later
// view is cached as watched while nothing watches the new directory, and
// what changes in it is never seen.
//
// Here .vscode (protected) is a link to sub/dir, which does not exist
// (no carve, so no pin holds sub in place during a command). sub is
// renamed and made again; a decision caches the view; sub/dir is then
// made a link to ../real. A fresh view protects real, where .vscode now
// leads; the cached one still protects sub/dir, and a write to
// real/tasks.json is allowed.
//
// Control: with the cache dropped, the same write is refused.
func TestAttack9ViewCacheWatchFollowsMovedDirectory(t *testing.T) {
	ws := tempWorkspace(t)
	mustDo(t, os.MkdirAll(ws+"/sub", 0o755), os.MkdirAll(ws+"/real", 0o755), os.Symlink("sub/dir", ws+"/.vscode"))
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, domain.KernelFeatures{LandlockABI: 7, Seccomp: true})
	dc := DecisionChecker{}
	write := func(p string) error {
		_, err := dc.ResolveFile(s, p, domain.AccessWrite, false)
		return err
	}
	refused := func(err error) bool {
		var r CodedRefusal
		return errors.As(err, &r) && r.Code == CodeWriteRequiresWritable
	}
	if err := write(ws + "/sub/dir/tasks.json"); !refused(err) {
		t.Fatalf("control: a write where .vscode leads was not refused: %v", err)
	}
	mustDo(t, os.Rename(ws+"/sub", ws+"/old"), os.Mkdir(ws+"/sub", 0o755))
	if err := write(ws + "/sub/dir/tasks.json"); !refused(err) { // the view is built again, and cached
		t.Fatalf("control: after the rename, a write where .vscode leads was not refused: %v", err)
	}
	mustDo(t, os.Symlink("../real", ws+"/sub/dir"))
	err := write(ws + "/real/tasks.json")
	views.mu.Lock()
	views.m = nil
	views.mu.Unlock()
	if ferr := write(ws + "/real/tasks.json"); !refused(ferr) {
		t.Fatalf("control: with a fresh view the write where .vscode now leads was not refused: %v", ferr)
	}
	if !refused(err) {
		t.Errorf("a write to real/tasks.json, where the protected .vscode now leads, was allowed: the cached view still protects sub/dir (%v)", err)
	}
}

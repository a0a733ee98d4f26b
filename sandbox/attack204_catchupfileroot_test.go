package sandbox

import (
	"context"
	"os"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack204_CatchUpBelowFileRootWidens (review 204, medium: the
// person's work set aside). A turn whose only writable grant in ws is one
// file, ws/notes.txt, has a command killed outright: its marker (a root
// below ws) names the file. The next command over ws checks it first
// (catchUpFirst.run -> catchUpBelow), and openRootDir opens the root with
// O_DIRECTORY: ENOTDIR, taken for "gone or behind a symlink", so the whole
// of ws is walked from the killed command's start, and every protected path
// of ws made or changed since is set aside. The killed command could write
// notes.txt only; the person's .vscode/settings.json and .envrc, edited
// after it (the kill can be hours before), are set aside as its plant.
//
// Control: the killed command's root a directory, ws/sub: only ws/sub is
// judged, the person's files at the top of ws stay.
func TestAttack204_CatchUpBelowFileRootWidens(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	for _, c := range []struct{ name, killedRoot string }{
		{"control-dir-root", "/sub"},
		{"file-root", "/notes.txt"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := visibleWorkspace(t)
			ws := base + "/ws"
			mkfiles(t, ws, map[string]string{"sub/README": "r\n", "notes.txt": "n\n", "README": "r\n"})
			root := ws + c.killedRoot
			lock, err := lockRoots(context.Background(), []string{root})
			if err != nil {
				t.Fatal(err)
			}
			lock.MarkStarted(coarseNow())
			if dir, err := rootLockDir(); err == nil {
				t.Cleanup(func() {
					os.Remove(pendingMarker(lockFileName(dir, root)))
					for _, a := range lockAncestors(root) {
						os.Remove(belowMarker(dir, a, root))
					}
				})
			}
			if err := os.WriteFile(root+map[bool]string{true: "", false: "/x"}[c.killedRoot == "/notes.txt"], []byte("agent\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			lock.Release() // killed: no check, no Checked
			time.Sleep(1100 * time.Millisecond)
			// The person edits their own settings in ws afterwards.
			mkfiles(t, ws, map[string]string{".vscode/settings.json": "{\"editor.tabSize\": 2}\n", ".envrc": "export MINE=1\n"})
			r := sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel), "echo next")
			if string(r.Stdout) != "next\n" {
				t.Fatalf("premise: the next command did not run: %q %q", r.Stdout, r.Stderr)
			}
			t.Logf("set aside %v; limits %q", quarantined(r), r.CheckLimits)
			var lost []string
			for _, p := range []string{"/.vscode/settings.json", "/.envrc"} {
				if !exists(ws + p) {
					lost = append(lost, "ws"+p)
				}
			}
			if len(lost) == 0 {
				return
			}
			if c.killedRoot == "/sub" {
				t.Fatalf("control: the person's %v were set aside for a command killed over ws/sub", lost)
			}
			t.Errorf("FALSE SET-ASIDE: the person's %v, edited after a command killed over the file ws/notes.txt, were set aside: the check of that file root walked all of ws", lost)
		})
	}
}

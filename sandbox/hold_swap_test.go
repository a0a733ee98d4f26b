package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestHoldNeverThroughASymlinkedParent: the server makes and removes held
// names as itself, so a command that swapped a parent directory for a
// symlink to elsewhere (between the view's check and the hold) must get
// neither an empty directory nor a file made there, nor one of its own
// removed there. Control: the same holds through the real parent are made
// and removed.
func TestHoldNeverThroughASymlinkedParent(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	sub := filepath.Join(ws, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	holds := []hold{{path: filepath.Join(sub, "secret")}, {path: filepath.Join(sub, "commondir"), file: true, content: ".\n"},
		{path: filepath.Join(sub, "config.worktree"), file: true}}

	// Control: through the real parent.
	for _, h := range holds {
		if err := makeHold(h); err != nil {
			t.Fatalf("hold %s: %v", h.path, err)
		}
		if _, err := os.Lstat(h.path); err != nil {
			t.Fatalf("hold %s not made: %v", h.path, err)
		}
		removeHold(h.path)
		if _, err := os.Lstat(h.path); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("hold %s not removed: %v", h.path, err)
		}
	}

	// The swap: sub is now a link to a directory outside every root.
	if err := os.Rename(sub, sub+".x"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, sub); err != nil {
		t.Fatal(err)
	}
	for _, h := range holds {
		if err := makeHold(h); !errors.Is(err, unix.ELOOP) {
			t.Errorf("hold %s through a symlinked parent: %v, want ELOOP", h.path, err)
		}
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatalf("made outside through the link: %v", ents)
	}
	// What removeHold would remove, put there by someone else.
	os.Mkdir(filepath.Join(outside, "secret"), 0o755)
	os.WriteFile(filepath.Join(outside, "commondir"), []byte(".\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "config.worktree"), nil, 0o644)
	for _, h := range holds {
		removeHold(h.path)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 3 {
		t.Fatalf("removed outside through the link: %d of 3 left", len(ents))
	}
}

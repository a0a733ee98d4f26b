package sandbox

import (
	"fmt"
	"os"
	"testing"

	"turnstile/domain"
)

// TestKeptDirLinksBounded: a directory a launcher file names that holds
// thousands of links below its top (an .npmrc's nodedir=/usr, read under
// full_access, holds /usr/lib's) does not spend the view's budget and
// refuse the turn's decisions: its top level's links are followed, and a
// write elsewhere in the project stays allowed. The walk of every depth
// (review 192's fix, reverted) refused every write here.
func TestKeptDirLinksBounded(t *testing.T) {
	ws := tempWorkspace(t)
	files := map[string]string{".npmrc": "nodedir=deps\n", "src/a.go": "x", "scripts/top.sh": "x"}
	for i := range 120 {
		files[fmt.Sprintf("deps/d%03d/keep", i)] = "x"
	}
	mkfiles(t, ws, files)
	for i := range 120 {
		for j := range 100 {
			if err := os.Symlink("keep", fmt.Sprintf("%s/deps/d%03d/l%03d", ws, i, j)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.Symlink("../scripts/top.sh", ws+"/deps/top"); err != nil {
		t.Fatal(err)
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
	if !writeAllowed(t, s, ws+"/src/a.go") {
		t.Fatal("a write of src/a.go was refused: the links below deps/ spent the view's budget")
	}
	if writeAllowed(t, s, ws+"/scripts/top.sh") {
		t.Fatal("control: scripts/top.sh, where deps/top (kept whole) leads, was writable")
	}
}

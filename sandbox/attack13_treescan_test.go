package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"turnstile/domain"
)

// TestAttack13TreeScanBounded: with a glob deny in the profile, a decision
// on a recursive read or a listing of every level reads every directory
// below the tree looking for what the glob matches, as the server, on
// every call: 100,000 empty directories, one mkdir loop of the agent's,
// cost 3 to 4 s of the server's CPU per grep_files (1,000,000, tens of
// seconds), and a bind mount that loops would never end. The scan now
// stops at maxDecisionScanDirs directories and refuses the tree, which is
// not judged in part (set to 300 here). The control: a tree below the
// bound is judged, and a narrower path of the large tree is searched.
func TestAttack13TreeScanBounded(t *testing.T) {
	defer func(n int) { maxDecisionScanDirs = n }(maxDecisionScanDirs)
	maxDecisionScanDirs = 300
	ws := tempWorkspace(t)
	for a := 0; a < 20; a++ {
		for b := 0; b < 20; b++ {
			mustDo(t, os.MkdirAll(filepath.Join(ws, "big", fmt.Sprint(a), fmt.Sprint(b)), 0o755))
		}
	}
	mkfiles(t, ws, map[string]string{"src/a.go": "package a\n"})
	s := profileSnapshot(t, ws, map[string]domain.Access{"**/*.env": domain.AccessDeny})
	decide := func(tool string, args map[string]any) error {
		raw, _ := json.Marshal(args)
		_, err := domain.ClassifyChecked(domain.Invocation{ToolName: tool, Arguments: raw}, s.Sandbox.Cwd, nil,
			func(p string, op domain.Access, tree bool) (string, error) {
				return DecisionChecker{}.ResolveFile(&s, p, op, tree)
			},
			func(p string, depth int) error { return DecisionChecker{}.CheckListing(&s, p, depth) })
		return err
	}
	refused := func(err error) bool { var r CodedRefusal; return errors.As(err, &r) }
	if err := decide("grep_files", map[string]any{"path": ".", "pattern": "x"}); !refused(err) {
		t.Errorf("grep_files of a tree of 421 directories: %v; the decision read them all", err)
	}
	if err := decide("list_dir", map[string]any{"dir_path": ws, "depth": 0}); !refused(err) {
		t.Errorf("list_dir of every level of a tree of 421 directories: %v; the decision read them all", err)
	}
	// control
	for _, p := range []string{"src", "big/3"} {
		if err := decide("grep_files", map[string]any{"path": p, "pattern": "x"}); err != nil {
			t.Errorf("control: grep_files of %s refused: %v", p, err)
		}
	}
	if err := decide("list_dir", map[string]any{"dir_path": ws + "/big", "depth": 2}); err != nil {
		t.Errorf("control: list_dir of big, depth 2, refused: %v", err)
	}
}

package sandbox

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack13TreeReadBelowTheScanDepth: a recursive read (grep_files,
// Claude Code's Grep) of a tree is refused when a file below it is one a
// glob deny matches ("**/*.env" = deny), but the decision looked for such
// files only glob_scan_max_depth (8) levels below the tree, the bound of
// the spawn's mask scan. The runtime's rg reads every level: with
// web/.env moved nine levels down, read_file of it was refused and
// grep_files of the workspace allowed, the names of the files matching a
// pattern (Codex) or the lines themselves (Claude Code's Grep) showing
// the denied content. A listing of every level (Claude Code's LS, list_dir
// with a large depth) was bounded the same way: the names inside a
// directory "**/private" = deny denies, nine levels down, were listed. The
// control: a deep honest tree is searched and listed.
func TestAttack13TreeReadBelowTheScanDepth(t *testing.T) {
	ws := tempWorkspace(t)
	deep := strings.Repeat("d/", 9)
	mkfiles(t, ws, map[string]string{"web/" + deep + ".env": "KEY=sk-secret\n", "src/" + deep + "a.go": "package a\n", "docs/" + deep + "private/layoffs.xlsx": "x"})
	s := profileSnapshot(t, ws, map[string]domain.Access{"**/*.env": domain.AccessDeny, "**/private": domain.AccessDeny})
	if s.Sandbox.Filesystem.GlobScanMaxDepth != 8 {
		t.Fatalf("glob_scan_max_depth %d: the premise does not hold", s.Sandbox.Filesystem.GlobScanMaxDepth)
	}
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
	if err := decide("read_file", map[string]any{"path": "web/" + deep + ".env"}); !refused(err) {
		t.Fatalf("read_file of the deep .env: %v; the profile denies it", err)
	}
	for _, p := range []string{".", "web"} {
		if err := decide("grep_files", map[string]any{"path": p, "pattern": "sk-"}); !refused(err) {
			t.Errorf("grep_files of %s: %v; rg reads web/%s.env, which the profile denies", p, err, deep)
		}
	}
	if err := decide("list_dir", map[string]any{"dir_path": ws + "/docs/" + deep + "private", "depth": 1}); !refused(err) {
		t.Fatalf("list_dir of the deep private: %v; the profile denies it", err)
	}
	for _, depth := range []int{0, 20} {
		if err := decide("list_dir", map[string]any{"dir_path": ws + "/docs", "depth": depth}); !refused(err) {
			t.Errorf("list_dir of docs, depth %d: %v; it lists the names in docs/%sprivate, which the profile denies", depth, err, deep)
		}
	}
	// control: an honest deep tree is searched and listed.
	if err := decide("grep_files", map[string]any{"path": "src", "pattern": "package"}); err != nil {
		t.Errorf("control: grep_files of src refused: %v", err)
	}
	if err := decide("list_dir", map[string]any{"dir_path": ws + "/src", "depth": 0}); err != nil {
		t.Errorf("control: list_dir of src refused: %v", err)
	}
}

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"turnstile/domain"
)

// TestAttack14TreeScanCountsNames: the decision's scan for what a glob deny
// matches below a tree stopped at maxDecisionScanDirs directories, but the
// names in a directory were not counted: the agent put 200,000 files in
// one directory of its workspace (hard links, no inode each), named so
// that the glob's last element matched them ("n.env" under
// "**/secrets/*.env" = deny), and each grep_files of the workspace resolved
// every name against the rules, 8 s of the server's CPU per decision on the
// review machine, as much as the 200,000 directories the bound was set
// against, with two directories read (a million names, 40 s; plain names,
// a second per 200,000). A name resolved now counts as a directory, and
// ten names read as one (set to 300 here: 3,000 names). The control: a
// directory of 100 such names is searched, and a file under secrets is
// still found and refused.
func TestAttack14TreeScanCountsNames(t *testing.T) {
	defer func(n int) { maxDecisionScanDirs = n }(maxDecisionScanDirs)
	maxDecisionScanDirs = 300
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"src/a.go": "package a\n", "seed": "", "few/": "", "plain/": "", "many/": "", "app/secrets/prod.env": "K=v\n"})
	for i := 0; i < 400; i++ {
		mustDo(t, os.Link(filepath.Join(ws, "seed"), filepath.Join(ws, "many", fmt.Sprintf("n%d.env", i))))
	}
	for i := 0; i < 4000; i++ {
		mustDo(t, os.Link(filepath.Join(ws, "seed"), filepath.Join(ws, "plain", fmt.Sprintf("n%d.txt", i))))
	}
	for i := 0; i < 100; i++ {
		mustDo(t, os.Link(filepath.Join(ws, "seed"), filepath.Join(ws, "few", fmt.Sprintf("n%d.env", i))))
	}
	s := profileSnapshot(t, ws, map[string]domain.Access{"**/secrets/*.env": domain.AccessDeny})
	grep := func(p string) error {
		_, err := DecisionChecker{}.ResolveFile(&s, filepath.Join(ws, p), domain.AccessRead, true)
		return err
	}
	tooLarge := func(err error) bool {
		var r CodedRefusal
		return errors.As(err, &r) && r.Message == treeTooLarge("").Message
	}
	for _, p := range []string{"many", "plain"} {
		if err := grep(p); !tooLarge(err) {
			t.Errorf("grep_files of %s, one directory of names the scan reads past its bound: %v; the decision read them all", p, err)
		}
	}
	// control
	for _, p := range []string{"few", "src"} {
		if err := grep(p); err != nil {
			t.Errorf("control: grep_files of %s refused: %v", p, err)
		}
	}
	if err := grep("app"); err == nil || tooLarge(err) {
		t.Errorf("control: grep_files of app, which holds secrets/prod.env: %v, want the file refused", err)
	}
}

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack15TreeScanDeepNames: the decision's scan resolves each name a
// glob deny's last element matches against the rules, and counted it as
// one directory's work whatever its depth; but a glob rule was matched
// against every leading part of the path on its own, a pass each, so a
// name 1,500 levels down cost 1,500 passes over the pattern and its path
// (0.15 s on the review machine). The agent made a chain of 1,500
// directories in its workspace with 100 files named "n.env" at its bottom
// (under "**/secrets/*.env" = deny), 1,600 units of a budget of 200,000,
// and each grep_files of the workspace held the server's CPU for 15 s; at
// the budget's end, hours. A glob rule is now matched in one pass, and a
// deep path's directory read and name resolved cost more of the budget
// (one more unit per scanDepthUnit components; 40,000 names 1,900 levels
// down, refused at the bound, took 6 s with 100 and 3 s with 50). The
// controls: the same grep_files is allowed, a file under secrets, at the
// top and at the bottom of the chain, is still refused, and under a
// lowered bound the chain is refused while as many directories and names
// near the top are searched.
func TestAttack15TreeScanDeepNames(t *testing.T) {
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"seed": "", "app/secrets/prod.env": "K=v\n"})
	deep := filepath.Join(ws, "d", strings.Repeat("a/", 1500))
	mustDo(t, os.MkdirAll(deep, 0o755))
	for i := 0; i < 100; i++ {
		mustDo(t, os.Link(filepath.Join(ws, "seed"), filepath.Join(deep, fmt.Sprintf("n%d.env", i))))
	}
	for i := 0; i < 1500; i++ {
		mustDo(t, os.MkdirAll(filepath.Join(ws, "flat", fmt.Sprint(i)), 0o755))
	}
	for i := 0; i < 100; i++ {
		mustDo(t, os.Link(filepath.Join(ws, "seed"), filepath.Join(ws, "flat", "0", fmt.Sprintf("n%d.env", i))))
	}
	s := profileSnapshot(t, ws, map[string]domain.Access{"**/secrets/*.env": domain.AccessDeny})
	grep := func(p string) error {
		_, err := DecisionChecker{}.ResolveFile(&s, p, domain.AccessRead, true)
		return err
	}
	t0 := time.Now()
	err := grep(filepath.Join(ws, "d"))
	if took := time.Since(t0); took > 2*time.Second {
		t.Errorf("grep_files of a chain of 1,500 directories with 100 names at its bottom took %v to decide (%v)", took, err)
	}
	// control
	if err != nil {
		t.Errorf("control: grep_files of d refused: %v", err)
	}
	mustDo(t, os.MkdirAll(filepath.Join(deep, "secrets"), 0o755))
	mkfiles(t, filepath.Join(deep, "secrets"), map[string]string{"x.env": "K=v\n"})
	for _, p := range []string{filepath.Join(ws, "app"), filepath.Join(deep, "secrets", "x.env")} {
		if err := grep(p); err == nil {
			t.Errorf("control: read of %s, which is or holds a secrets/*.env file, allowed", p)
		}
	}
	mustDo(t, os.RemoveAll(filepath.Join(deep, "secrets")))
	// Under a bound of 2,000 units the deep chain is too large; as many
	// directories and names near the top are not.
	defer func(n int) { maxDecisionScanDirs = n }(maxDecisionScanDirs)
	maxDecisionScanDirs = 2000
	var r CodedRefusal
	if err := grep(filepath.Join(ws, "d")); !errors.As(err, &r) || r.Message != treeTooLarge("").Message {
		t.Errorf("grep_files of a chain of 1,500 directories under a bound of 2,000: %v, want it too large", err)
	}
	if err := grep(filepath.Join(ws, "flat")); err != nil {
		t.Errorf("control: grep_files of 1,500 directories near the top under a bound of 2,000 refused: %v", err)
	}
}

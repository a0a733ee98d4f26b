package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack15TreeScanLongNames: the decision's scan counts ten names read
// as one directory (deed30d), a cost measured with short names; a name of
// 255 bytes costs the kernel's listing and the match of a glob's last
// element several times as much, and the scan held every name of a
// directory at once. The agent put 400,000 files (hard links) named with
// 247 bytes in one directory of its workspace, a fifth of the budget, and
// a grep_files of the workspace took 5 to 16 s of the server's CPU and 560
// to 840 MB of its memory on the review machine; at the budget's end, 2
// million such names, five times that, for each decision the agent asks
// for at once. A name now costs one more per scanNameUnit bytes. Under a
// bound of 3,000 units here (30,000 names), 5,000 long names are too many;
// the control, as many short names, is searched, and a file under secrets
// is still refused.
func TestAttack15TreeScanLongNames(t *testing.T) {
	defer func(n int) { maxDecisionScanDirs = n }(maxDecisionScanDirs)
	maxDecisionScanDirs = 3000
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"seed": "", "long/": "", "short/": "", "app/secrets/prod.env": "K=v\n"})
	name := strings.Repeat("x", 240)
	for i := 0; i < 5000; i++ {
		mustDo(t, os.Link(filepath.Join(ws, "seed"), filepath.Join(ws, "long", fmt.Sprintf("%s%07d", name, i))))
		mustDo(t, os.Link(filepath.Join(ws, "seed"), filepath.Join(ws, "short", fmt.Sprintf("n%d", i))))
	}
	s := profileSnapshot(t, ws, map[string]domain.Access{"**/secrets/*.env": domain.AccessDeny})
	grep := func(p string) error {
		_, err := DecisionChecker{}.ResolveFile(&s, filepath.Join(ws, p), domain.AccessRead, true)
		return err
	}
	var r CodedRefusal
	if err := grep("long"); !errors.As(err, &r) || r.Message != treeTooLarge("").Message {
		t.Errorf("grep_files of 5,000 names of 247 bytes under a bound of 3,000: %v, want it too large", err)
	}
	// control
	if err := grep("short"); err != nil {
		t.Errorf("control: grep_files of 5,000 short names refused: %v", err)
	}
	if err := grep("app"); err == nil || errors.As(err, &r) && r.Message == treeTooLarge("").Message {
		t.Errorf("control: grep_files of app, which holds secrets/prod.env: %v, want the file refused", err)
	}
}

package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack62RootThroughTwoLinksInHiddenArea — severity: low (false deny).
//
// Attack/honest action: the runtime names the workspace through a chain
// of two symlinks that lie in /tmp (lnk -> lnk2, lnk2 -> real), as a
// person's layout does (~/code -> /mnt/code, /mnt/code -> /data/code, one
// of them in a hidden area). The view hides /tmp and re-creates "the
// symlinks on the way to its grants", but hostLinksToGrants
// (sandbox/rootlinks.go) walks only the components of the path as
// written (fsRule.From), lexically: it finds lnk, whose text "lnk2" then
// names a link the path as written never spells, so lnk2 is not
// re-created. In the view lnk leads nowhere: cd and cat of the workspace
// by the path the runtime wrote fail (ENOENT), although the snapshot
// grants it (the turn started with that cwd).
//
// Fix: collect the links with linksPassed(g.From) (walkLinks: every link
// the kernel's lookup steps onto, targets' links included), as
// protectedLinks does, instead of the lexical walk.
//
// Control: the same layout with a single link (lnk1 -> real) is reached.
func TestAttack62RootThroughTwoLinksInHiddenArea(t *testing.T) {
	f := requireKernel(t, true)
	base := tempWorkspace(t)
	mustDo(t, os.MkdirAll(base+"/real/app", 0o755), os.WriteFile(base+"/real/app/f", []byte("mine\n"), 0o644),
		os.Symlink("real", base+"/lnk1"), os.Symlink("real", base+"/lnk2"), os.Symlink("lnk2", base+"/lnk"))

	ctl := snapshotFor(t, domain.ModeAutoAcceptEdits, base+"/lnk1/app", f.Kernel)
	r := sh(t, ctl, "cat "+base+"/lnk1/app/f")
	if r.ExitCode != 0 || string(r.Stdout) != "mine\n" {
		t.Fatalf("control: the workspace through one link: exit %d, %s %s", r.ExitCode, r.Stdout, r.Stderr)
	}

	s := snapshotFor(t, domain.ModeAutoAcceptEdits, base+"/lnk/app", f.Kernel)
	r = sh(t, s, "cat "+base+"/lnk/app/f")
	if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "mine") {
		t.Errorf("the workspace the snapshot grants, named through two links in /tmp, is unreachable by that name: exit %d, %s %s", r.ExitCode, r.Stdout, r.Stderr)
	}
}

package sandbox

import (
	"os"
	"testing"
)

// TestAttackPlantUnreadable: the walk skips, silently, a directory it
// cannot open for reading ("replaced since it was listed, or unreadable"),
// and the check takes a common dir it cannot open for one that is absent.
// When the server is not root (the sandbox's processes then run as the
// server's own user), a command makes a directory execute-only (chmod
// 111): the walk cannot list it and reports nothing, while git, given the
// path by a gitfile, passes through it. The test needs a non-root run
// (as root, CAP_DAC_READ_SEARCH lets the walk in: skipped).
func TestAttackPlantUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("the server is root: the walk opens any directory")
	}
	for _, c := range []struct{ name, script string }{
		{"hidden-gitdir", "mv real/.git hide/g && echo 'gitdir: ../hide/g' > sub/.git && chmod 111 hide"},
		{"hidden-commondir", "mkdir -p x/wt && mv real/.git x/common && mv x/common/HEAD x/wt/HEAD && echo ../common > x/wt/commondir && " +
			"echo 'gitdir: ../x/wt' > sub/.git && chmod 111 x/common"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			r := sh(t, f.s, agentGit+"init -q real && "+agentGit+"-C real commit -q --allow-empty -m x && "+
				"sha=$("+agentGit+"-C real rev-parse HEAD) && printf '[core]\\n\\tfsmonitor = "+f.attackMarkerCmd()+"\\n' >> real/.git/config && "+
				"mkdir hide sub && "+c.script+" && "+agentGit+"update-index --add --cacheinfo 160000,$sha,sub && echo ok")
			attackReport(t, "plant", r)
			if r.ExitCode != 0 {
				t.Fatal("the plant failed")
			}
			attackHostStatus(t, f, f.ws)
		})
	}
}

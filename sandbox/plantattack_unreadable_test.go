package sandbox

import (
	"os"
	"os/exec"
	"testing"
)

// TestAttackPlantUnreadable (second attack review): the walk skipped,
// silently, a directory it could not open for reading, and the check took
// a common dir it could not open for one that is absent. When the server
// is not root (the sandbox's processes then run as the server's own user),
// a command makes a directory execute-only (chmod 111): git, given the
// path by a gitfile, passes through it. Such a directory is now set aside,
// and such a common dir makes its repository untrusted.
func TestAttackPlantUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		// As root the walk opens any directory: run this test again, in
		// a copy of the test binary, as a user made for it.
		asTestUser(t, "^TestAttackPlantUnreadable$")
		return
	}
	for _, c := range []struct{ name, script string }{
		{"hidden-gitdir", "mv real/.git hide/g && echo 'gitdir: ../hide/g' > sub/.git && chmod 111 hide"},
		{"hidden-commondir", "mkdir -p x/wt && mv real/.git x/common && mv x/common/HEAD x/wt/HEAD && echo ../common > x/wt/commondir && " +
			"echo 'gitdir: ../x/wt' > sub/.git && chmod 111 x/common"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			t.Cleanup(func() { exec.Command("chmod", "-R", "u+rwx", f.ws).Run() }) // for TempDir's removal
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

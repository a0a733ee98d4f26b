package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestAttack14UnreadableLongName (fourteenth attack review, a variant of
// TestAttackPlantUnreadable): under a server that is not root, a directory
// the command made execute-only (chmod 111), which git passes through and
// the check cannot list, is set aside by renaming it to its name followed
// by .turnstile-untrusted. A name of 250 bytes left no room for the
// suffix within the 255 a file name may hold: the rename failed with
// ENAMETOOLONG, the result named the failure, and the repository behind it,
// registered as a submodule of the workspace's, stayed; the host's git
// status in the workspace ran its core.fsmonitor. Control: the same
// directory under a short name is set aside.
func TestAttack14UnreadableLongName(t *testing.T) {
	if os.Geteuid() == 0 {
		// As root the walk opens any directory: run this test again, in
		// a copy of the test binary, as a user made for it.
		asTestUser(t, "^TestAttack14UnreadableLongName$")
		return
	}
	for _, c := range []struct{ name, dir string }{
		{"control-short", "hide"},
		{"long", strings.Repeat("h", 250)},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			t.Cleanup(func() { exec.Command("chmod", "-R", "u+rwx", f.ws).Run() }) // for TempDir's removal
			r := sh(t, f.s, agentGit+"init -q real && "+agentGit+"-C real commit -q --allow-empty -m x && "+
				"sha=$("+agentGit+"-C real rev-parse HEAD) && printf '[core]\\n\\tfsmonitor = "+f.attackMarkerCmd()+"\\n' >> real/.git/config && "+
				"mkdir "+c.dir+" sub && mv real/.git "+c.dir+"/g && echo 'gitdir: ../"+c.dir+"/g' > sub/.git && chmod 111 "+c.dir+" && "+
				agentGit+"update-index --add --cacheinfo 160000,$sha,sub && echo ok")
			attackReport(t, "plant", r)
			if r.ExitCode != 0 {
				t.Fatal("the plant failed")
			}
			attackHostStatus(t, f, f.ws)
			if exists(f.ws + "/" + c.dir) {
				t.Errorf("the unreadable directory was left in place: %+v", r.Quarantined)
			}
		})
	}
}

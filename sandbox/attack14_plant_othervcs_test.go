package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack14CommandPlantsAnotherVCSConfig: the check after a command sets
// aside a git repository it planted in a writable root whose config runs a
// program, and the protected list keeps the root's own .hg/hgrc,
// .jj/repo/config.toml and .sl/config read-only; but a command that wrote
// sub/.hg/hgrc with "[hooks] pre-status = …" left it in place: ws/sub is
// then a Mercurial repository whose hook hg runs, outside the sandbox, the
// next time a person (or an editor's Mercurial integration) runs hg status
// there. The same for Jujutsu's sub/.jj/repo/config.toml and Sapling's
// sub/.sl/config. A config of another version control system that the
// command made or changed below a writable root is now set aside, unless it
// holds nothing but [paths] (what a clone writes). The control: a clone's
// hgrc of [paths] alone stays, and so does a file named hgrc elsewhere.
func TestAttack14CommandPlantsAnotherVCSConfig(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	hostGit(t, ws, "init", "-q")
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r := sh(t, s, `mkdir -p sub/.hg sub2/.hg sub3/.jj/repo sub4/.sl sub5/.HG docs/hg &&
printf '[hooks]\npre-status = id > /tmp/pwned\n' > sub/.hg/hgrc &&
printf '[paths]\ndefault = https://example.org/repo\n' > sub2/.hg/hgrc &&
printf '[aliases]\nst = ["util", "exec", "--", "sh", "-c", "id"]\n' > sub3/.jj/repo/config.toml &&
printf '[extensions]\nevil = /tmp/evil.py\n' > sub4/.sl/config &&
printf '%%include /tmp/evil.rc\n' > sub5/.HG/hgrc &&
printf '[hooks]\nx = y\n' > docs/hg/hgrc`)
	if r.ExitCode != 0 {
		t.Fatalf("the command failed: %d %s", r.ExitCode, r.Stderr)
	}
	for _, p := range []string{"sub/.hg/hgrc", "sub3/.jj/repo/config.toml", "sub4/.sl/config", "sub5/.HG/hgrc"} {
		if b, err := os.ReadFile(filepath.Join(ws, p)); err == nil {
			t.Errorf("%s stays after the command: %q", p, b)
		}
	}
	// control
	for p, want := range map[string]string{"sub2/.hg/hgrc": "[paths]", "docs/hg/hgrc": "[hooks]"} {
		if b, err := os.ReadFile(filepath.Join(ws, p)); err != nil || !strings.Contains(string(b), want) {
			t.Errorf("control: %s: %q %v", p, b, err)
		}
	}
}

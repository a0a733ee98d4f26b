package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack18IncludeOfLinkedInclude (eighteenth attack review, an include's
// include): git takes a relative include path from the directory of the
// including file as it opened it, and the kernel resolves that directory,
// not the file's own target. With the person's include.path =
// ../tools/gitconfig, tools/gitconfig a symlink to their shared
// ../shared/gitconfig, and that file including local.inc, git reads
// tools/local.inc; configFileRefs took the nested path from the directory
// of the canonical file, shared, and kept shared/local.inc read-only, so a
// command wrote core.fsmonitor into tools/local.inc and the person's next
// git status ran it. Controls: the included files' settings apply before,
// and another file in tools is written by the command.
func TestAttack18IncludeOfLinkedInclude(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{
		"shared/gitconfig": "[include]\n\tpath = local.inc\n",
		"tools/local.inc":  "[alias]\n\tpersonlocal = status\n",
		"tools/build.sh":   "x\n",
	})
	mustDo(t, os.Symlink("../shared/gitconfig", ws+"/tools/gitconfig"))
	attack6GitRepo(t, ws, "[include]\n\tpath = ../tools/gitconfig\n")
	if out, err := hostGitRun(t, ws, "config", "alias.personlocal"); err != nil || strings.TrimSpace(out) != "status" {
		t.Fatalf("control: git does not read tools/local.inc through the include: %v %q", err, out)
	}
	marker := filepath.Join(t.TempDir(), "ran")
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	forgetWalks()
	if r := sh(t, s, "echo y >> tools/build.sh"); r.ExitCode != 0 {
		t.Fatalf("control: tools/build.sh was not writable: %d %s", r.ExitCode, r.Stderr)
	}
	r := sh(t, s, "printf '[core]\\n\\tfsmonitor = \"touch "+marker+" #\"\\n' >> tools/local.inc")
	hostGitStatus(t, ws)
	if exists(marker) {
		t.Errorf("the person's git status ran the core.fsmonitor the command wrote into tools/local.inc (command %d %s, set aside %v)", r.ExitCode, strings.TrimSpace(string(r.Stderr)), r.Quarantined)
	}
}

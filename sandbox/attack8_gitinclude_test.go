package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack8GitIncludeParsedUnlikeGit (eighth review): configRefs keeps
// read-only the files the repository's config includes, but reads the
// config unlike git does, so a file git includes stays writable:
//
//   - quotes inside a value: git drops every double quote of a value
//     (path = ../tools/"git"config is ../tools/gitconfig); gitConfigRefs
//     trims them at the ends only, and protects ../tools/"git"config;
//   - a line continuation: path = ../tools/git\<newline>config;
//   - an include through a symlinked directory (tools -> real): the carve
//     is on the canonical file (real/gitconfig), while git opens the path
//     it was given; the command replaces the symlink tools with a
//     directory holding a gitconfig of its own.
//
// In each case the command writes core.fsmonitor into what git reads and
// the person's next git status in the workspace runs it. Control: the
// plain include (path = ../tools/gitconfig) is read-only.
// (Fixed: values are read as git reads them, quotes anywhere and line
// continuations included; a path reached through a symlink in a root that no
// longer leads where it led is set aside after the command.)
func TestAttack8GitIncludeParsedUnlikeGit(t *testing.T) {
	f := requireKernel(t, true)
	for _, tc := range []struct {
		name, extra, plant string
		symlinkDir         bool
	}{
		{"control", "[include]\n\tpath = ../tools/gitconfig\n", "echo '[core] fsmonitor = \"touch MARK #\"' >> tools/gitconfig", false},
		{"quotes inside", "[include]\n\tpath = ../tools/\"git\"config\n", "echo '[core] fsmonitor = \"touch MARK #\"' >> tools/gitconfig", false},
		{"continuation", "[include]\n\tpath = ../tools/git\\\nconfig\n", "echo '[core] fsmonitor = \"touch MARK #\"' >> tools/gitconfig", false},
		{"symlinked dir", "[include]\n\tpath = ../tools/gitconfig\n", "rm tools && mkdir tools && echo '[core] fsmonitor = \"touch MARK #\"' > tools/gitconfig", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := tempWorkspace(t)
			dir := ws + "/tools"
			if tc.symlinkDir {
				dir = ws + "/real"
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dir+"/gitconfig", []byte("[user]\n\tname = team\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.symlinkDir {
				if err := os.Symlink("real", ws+"/tools"); err != nil {
					t.Fatal(err)
				}
			}
			attack6GitRepo(t, ws, tc.extra)
			marker := filepath.Join(t.TempDir(), "ran")
			hostGitStatus(t, ws)
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
			forgetWalks()
			r := sh(t, s, strings.ReplaceAll(tc.plant, "MARK", marker))
			out := hostGitStatus(t, ws)
			if tc.name == "control" {
				if r.ExitCode == 0 {
					t.Fatalf("control: the include target was writable")
				}
				return
			}
			set := false
			for _, q := range r.Quarantined {
				set = set || q.Path == ws+"/tools/gitconfig"
			}
			switch {
			case tc.symlinkDir && !set:
				t.Errorf("the file that replaced the include target through the symlinked directory was not set aside: %+v", r.Quarantined)
			case !tc.symlinkDir && r.ExitCode == 0:
				t.Errorf("the include target was writable (exit 0)")
			}
			if exists(marker) {
				t.Errorf("ESCAPE: the person's git status ran the command's core.fsmonitor (exit %d, set aside %v; git: %s)",
					r.ExitCode, r.Quarantined, strings.TrimSpace(out))
			} else {
				t.Logf("held: exit %d %s", r.ExitCode, r.Stderr)
			}
		})
	}
}

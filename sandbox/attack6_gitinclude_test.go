package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"turnstile/domain"
)

// attack6GitRepo makes a repository at ws whose config holds extra (lines
// appended to .git/config), with one empty commit.
func attack6GitRepo(t *testing.T, ws string, extra string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main", "."}, {"-c", "user.name=p", "-c", "user.email=p@x", "commit", "-q", "--allow-empty", "-m", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		cmd.Env = []string{"HOME=" + ws, "PATH=/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1"}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	f, err := os.OpenFile(filepath.Join(ws, ".git/config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(extra); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// hostGitStatus runs the person's `git status` in ws, outside any sandbox.
func hostGitStatus(t *testing.T, ws string) string {
	t.Helper()
	cmd := exec.Command("git", "status", "--short")
	cmd.Dir = ws
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1"}
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// TestAttack6GitIncludeChainWritable (fixed: configRefs follows includes as
// deep as git does, and a missing target is set aside after the command):
// the person's repository config may
// pull in other config files ([include] / [includeIf] path), which git
// reads as part of the config. configRefs (protect.go) keeps read-only the
// include targets the repository's .git/config names, but only those that
// exist when the command starts, and only one level deep: it reads
// .git/config alone, never an included file (nor config.worktree). So
//
//   - a file included by an included file (tools/gitconfig, which the
//     person's config includes, includes "second") stays writable, and
//   - an include target that does not exist yet (an optional local
//     override, ../tools/local.cfg) can be created,
//
// and the command writes core.fsmonitor into either. The check after the
// command does not look at them (the command never wrote the repository's
// config): nothing is set aside, and the person's next `git status` in the
// workspace, outside the sandbox, runs the command's program.
//
// Control: the include target the config names directly (tools/gitconfig)
// is read-only in the sandbox.
func TestAttack6GitIncludeChainWritable(t *testing.T) {
	f := requireKernel(t, true)
	for _, tc := range []struct {
		name, extra, planted string
		missing              bool // read-only if it exists; set aside after the command if it did not
	}{
		{"nested include", "[include]\n\tpath = ../tools/gitconfig\n", "tools/second", false},
		{"missing include", "[include]\n\tpath = ../tools/gitconfig\n\tpath = ../tools/local.cfg\n", "tools/local.cfg", true},
		{"missing includeIf", "[include]\n\tpath = ../tools/gitconfig\n[includeIf \"onbranch:main\"]\n\tpath = ../tools/main.cfg\n", "tools/main.cfg", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := tempWorkspace(t)
			if err := os.MkdirAll(ws+"/tools", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(ws+"/tools/gitconfig", []byte("[include]\n\tpath = second\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(ws+"/tools/second", []byte("[user]\n\tname = team\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			attack6GitRepo(t, ws, tc.extra)
			marker := filepath.Join(t.TempDir(), "ran")
			hostGitStatus(t, ws) // the person's git works there before

			s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
			forgetWalks()
			// Control: the directly included file is read-only.
			if r := sh(t, s, "echo '[core] pager = x' >> tools/gitconfig"); r.ExitCode == 0 {
				t.Fatalf("control: the config's own include target was writable: %s", r.Stderr)
			}
			forgetWalks()
			r := sh(t, s, "printf '[core]\\n\\tfsmonitor = \"touch "+marker+" #\"\\n' > "+tc.planted)
			var set []string
			for _, q := range r.Quarantined {
				set = append(set, q.Path)
			}
			switch {
			case r.ExitCode != 0 && !strings.Contains(string(r.Stderr), "Read-only"):
				t.Fatalf("planting %s failed otherwise than read-only: exit %d %s", tc.planted, r.ExitCode, r.Stderr)
			case r.ExitCode != 0 && tc.missing:
				t.Errorf("the missing %s could not be created (it is set aside after the command instead)", tc.planted)
			case r.ExitCode == 0 && !tc.missing:
				t.Errorf("the existing %s was writable", tc.planted)
			case r.ExitCode == 0 && !slices.Contains(set, ws+"/"+tc.planted):
				t.Errorf("the %s the command created was not set aside (set aside: %v)", tc.planted, set)
			}
			out := hostGitStatus(t, ws)
			if exists(marker) {
				t.Errorf("ESCAPE: the person's git status ran the command's core.fsmonitor from %s (set aside: %s; git: %s)",
					tc.planted, strings.Join(set, ", "), strings.TrimSpace(out))
			}
		})
	}
}

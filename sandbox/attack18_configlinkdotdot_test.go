package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack18ConfigPathLinkDotDot (eighteenth attack review, a variant of
// cfd7160): git opens a path its config names as written, and the kernel
// takes a ".." after a symlink from the link's target. With the person's
// core.hooksPath = link/../.githooks and link -> sub/dir, git runs
// sub/.githooks, but configRefs cleaned the path lexically and kept
// .githooks read-only, which git never reads: a command wrote
// sub/.githooks/pre-commit, and a write decision on it was allowed; and
// the link itself stayed the command's, which pointed it at evil/deep for
// git to run evil/.githooks. Controls: the person's hook runs before the
// command, a file in the link's target directory and a source file are
// written by the command, and a write decision on a source file is allowed.
func TestAttack18ConfigPathLinkDotDot(t *testing.T) {
	f := requireKernel(t, true)
	for _, attack := range []string{"write", "relink"} {
		ws := tempWorkspace(t)
		mkfiles(t, ws, map[string]string{
			"sub/.githooks/pre-commit": "#!/bin/sh\ntouch \"$(git rev-parse --show-toplevel)/person-hook-ran\"\n",
			"sub/dir/gen.sh":           "x\n",
			"src/main.go":              "x\n",
		})
		mustDo(t, os.Chmod(ws+"/sub/.githooks/pre-commit", 0o755))
		mustDo(t, os.Symlink("sub/dir", ws+"/link"))
		hostGit(t, ws, "init", "-q")
		hostGit(t, ws, "config", "core.hooksPath", "link/../.githooks")
		if out, err := hostGitRun(t, ws, "commit", "-q", "--allow-empty", "-m", "first"); err != nil || !exists(ws+"/person-hook-ran") {
			t.Fatalf("control: the person's hook did not run: %v %s", err, out)
		}
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
		if _, err := (DecisionChecker{}).ResolveFile(s, "src/main.go", domain.AccessWrite, false); err != nil {
			t.Fatalf("control: a write decision on src/main.go was refused: %v", err)
		}
		if r := sh(t, s, "echo y >> link/gen.sh && echo y >> src/main.go"); r.ExitCode != 0 {
			t.Fatalf("control: the link's target and src were not writable: %d %s", r.ExitCode, r.Stderr)
		}
		hook := "#!/bin/sh\\ntouch " + ws + "/pwned\\n"
		var r *Result
		if attack == "write" {
			if _, err := (DecisionChecker{}).ResolveFile(s, "sub/.githooks/pre-commit", domain.AccessWrite, false); err == nil {
				t.Errorf("a write decision on sub/.githooks/pre-commit, the hook git runs, was allowed")
			}
			r = sh(t, s, "printf '"+hook+"' > sub/.githooks/pre-commit")
		} else {
			r = sh(t, s, "mkdir -p evil/deep evil/.githooks && printf '"+hook+"' > evil/.githooks/pre-commit && chmod +x evil/.githooks/pre-commit && ln -s evil/deep link.new && mv -T link.new link")
		}
		if out, err := hostGitRun(t, ws, "commit", "-q", "--allow-empty", "-m", "x"); exists(ws + "/pwned") {
			t.Errorf("%s: the person's next commit ran the command's hook (command %d %s): %v %s", attack, r.ExitCode, strings.TrimSpace(string(r.Stderr)), err, out)
		}
	}
}

package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack17ConfigPathDotDot (seventeenth attack review): a path a
// repository's config names is opened by git as written, and the kernel
// takes a ".." in it from the directory resolved so far, as it does for the
// server's start path (21edb70). configRefs cleaned the path first, so
// core.hooksPath = tools/../.githooks kept .githooks read-only but left
// tools, which git passes and leaves by "..", the command's: it replaced
// tools with a symlink to evil/deep, whose ".." is evil, and made
// evil/.githooks/pre-commit, which the person's next commit ran; where
// tools was missing (gen/../.githooks), it made it such a symlink. Controls:
// the same hooks path written without "..", and a command that writes a
// file in tools without replacing it, run; the person's hook runs.
func TestAttack17ConfigPathDotDot(t *testing.T) {
	f := requireKernel(t, true)
	for _, hooks := range []string{".githooks", "tools/../.githooks", "gen/../.githooks"} {
		ws := tempWorkspace(t)
		mkfiles(t, ws, map[string]string{
			".githooks/pre-commit": "#!/bin/sh\ntouch \"$(git rev-parse --show-toplevel)/person-hook-ran\"\n",
			"tools/build.sh":       "x\n",
			"src/main.go":          "x\n",
		})
		mustDo(t, os.Chmod(ws+"/.githooks/pre-commit", 0o755))
		hostGit(t, ws, "init", "-q")
		hostGit(t, ws, "config", "core.hooksPath", hooks)
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
		first := sh(t, s, "echo y >> tools/build.sh && echo y >> src/main.go")
		if first.ExitCode != 0 {
			t.Fatalf("control: tools/build.sh was not writable: %d %s", first.ExitCode, first.Stderr)
		}
		way := strings.Split(hooks, "/")[0] // tools exists, gen does not
		if way == ".githooks" {
			way = "tools"
		}
		replace := "ln -s evil/deep " + way
		if exists(ws + "/" + way) {
			replace = "mv " + way + " " + way + ".old && " + replace
		}
		r := sh(t, s, "mkdir -p evil/deep evil/.githooks && printf '#!/bin/sh\\ntouch "+ws+"/pwned\\n' > evil/.githooks/pre-commit && chmod +x evil/.githooks/pre-commit && "+replace)
		if out, err := hostGitRun(t, ws, "commit", "-q", "--allow-empty", "-m", "x"); exists(ws + "/pwned") {
			t.Errorf("with core.hooksPath = %s, the person's next commit ran the command's hook (command %d %s): %v %s", hooks, r.ExitCode, strings.TrimSpace(string(r.Stderr)), err, out)
		} else if hooks == ".githooks" && !exists(ws+"/person-hook-ran") {
			t.Errorf("control: the person's hook did not run: %v %s (set aside after the first command: %+v, after the second: %+v)", err, out, first.Quarantined, r.Quarantined)
		}
	}
}

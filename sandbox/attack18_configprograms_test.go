package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack18ConfigNamedProgramWritable (eighteenth attack review): a
// repository's config may name a program by a path in its work tree, as a
// project's set-up script writes it: a clean filter (filter.NAME.clean =
// tools/norm.sh, which git add runs for the files .gitattributes gives
// the filter), a signing program (gpg.program = tools/sign.sh, which every
// commit runs under commit.gpgsign), an editor or a pager. configRefs kept
// read-only the hooks path, the includes and a core.fsmonitor program only,
// so a command rewrote tools/norm.sh or tools/sign.sh and the person's next
// git add or commit ran it; a write decision on it was allowed too.
// Controls: the person's program runs before, and another file in tools and
// a source file are written by a command and allowed to a write decision.
func TestAttack18ConfigNamedProgramWritable(t *testing.T) {
	f := requireKernel(t, true)
	t.Run("package programs stay the command's", func(t *testing.T) {
		// Control: a program in node_modules/.bin or a virtual
		// environment's python link, which a package manager remakes,
		// is not held: the command reinstalls both.
		ws := tempWorkspace(t)
		mkfiles(t, ws, map[string]string{"node_modules/.bin/tool": "x\n", "src/main.go": "x\n"})
		mustDo(t, os.MkdirAll(ws+"/.venv/bin", 0o755))
		mustDo(t, os.Symlink("/bin/sh", ws+"/.venv/bin/python"))
		hostGit(t, ws, "init", "-q")
		hostGit(t, ws, "config", "diff.x.textconv", "node_modules/.bin/tool")
		hostGit(t, ws, "config", "filter.nb.clean", ws+"/.venv/bin/python -m nbstripout")
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
		r := sh(t, s, "rm -rf node_modules .venv && mkdir -p node_modules/.bin .venv/bin && echo y > node_modules/.bin/tool && ln -s /bin/dash .venv/bin/python")
		if r.ExitCode != 0 || len(r.Quarantined) != 0 {
			t.Errorf("control: reinstalling node_modules and .venv: %d %s %+v", r.ExitCode, r.Stderr, r.Quarantined)
		}
	})
	for _, tc := range []struct{ name, prog, key, value, act string }{
		{"clean filter", "tools/norm.sh", "filter.norm.clean", "./tools/norm.sh %f", "add"},
		{"signing program", "tools/sign.sh", "gpg.program", "tools/sign.sh", "commit"},
		{"script in shell quotes", "tools/norm.sh", "filter.norm.clean", "sh 'tools/norm.sh' %f", "add"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := tempWorkspace(t)
			body := "#!/bin/sh\ntouch \"$(git rev-parse --show-toplevel)/person-program-ran\"\ncat\n"
			mkfiles(t, ws, map[string]string{
				tc.prog:          body,
				"tools/build.sh": "x\n",
				"src/main.go":    "x\n",
				".gitattributes": "*.txt filter=norm\n",
				"a.txt":          "a\n",
			})
			mustDo(t, os.Chmod(ws+"/"+tc.prog, 0o755))
			hostGit(t, ws, "init", "-q")
			hostGit(t, ws, "config", tc.key, tc.value)
			if tc.act == "commit" {
				hostGit(t, ws, "config", "commit.gpgsign", "true")
			}
			act := func() (string, error) {
				if tc.act == "add" {
					os.WriteFile(ws+"/a.txt", []byte(strings.Repeat("b", len(readFile(t, ws+"/a.txt"))+1)), 0o644)
					return hostGitRun(t, ws, "add", "a.txt")
				}
				return hostGitRun(t, ws, "commit", "-q", "--allow-empty", "-m", "x")
			}
			if out, err := act(); !exists(ws + "/person-program-ran") {
				t.Fatalf("control: the person's program did not run: %v %s", err, out)
			}
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
			for _, rel := range []string{"tools/build.sh", "src/main.go"} {
				if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err != nil {
					t.Fatalf("control: a write decision on %s was refused: %v", rel, err)
				}
			}
			if r := sh(t, s, "echo y >> tools/build.sh && echo y >> src/main.go"); r.ExitCode != 0 {
				t.Fatalf("control: tools/build.sh was not writable: %d %s", r.ExitCode, r.Stderr)
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, tc.prog, domain.AccessWrite, false); err == nil {
				t.Errorf("a write decision on %s, the program the person's config names, was allowed", tc.prog)
			}
			r := sh(t, s, "printf '#!/bin/sh\\ntouch "+ws+"/pwned\\ncat\\n' > "+tc.prog)
			if out, err := act(); exists(ws + "/pwned") {
				t.Errorf("the person's next git %s ran the command's %s (command %d %s): %v %s", tc.act, tc.prog, r.ExitCode, strings.TrimSpace(string(r.Stderr)), err, out)
			}
		})
	}
}

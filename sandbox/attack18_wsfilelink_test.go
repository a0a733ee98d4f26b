package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack18WorkspaceFileLinked (eighteenth attack review, a variant of
// e6b1302 for the named workspace files): a VS Code workspace file or a
// mise environment config at the top of a root is kept read-only only
// where it is a regular file. The person's proj.code-workspace linked to
// their editor/ directory in the workspace was written through the link by
// a command and by a write decision, one linked to their dotfiles outside
// the roots was replaced by a command's own file (the check after the
// command sets aside new names only), and where the link's target was
// missing the command made it; VS Code runs the folderOpen tasks of the
// file when the person opens it. Controls: a source file is written by the
// command and allowed to a write decision, and a new workspace file the
// command makes is set aside, as before.
func TestAttack18WorkspaceFileLinked(t *testing.T) {
	f := requireKernel(t, true)
	const evil = `{"tasks":{"version":"2.0.0","tasks":[{"label":"x","command":"touch pwned","runOptions":{"runOn":"folderOpen"}}]}}`
	for _, tc := range []struct{ name, link, target, attack string }{
		{"inside", "proj.code-workspace", "editor/proj.code-workspace", "echo '" + evil + "' > proj.code-workspace"},
		{"outside", "proj.code-workspace", "OUT/proj.code-workspace", "rm -f proj.code-workspace; echo '" + evil + "' > proj.code-workspace"},
		{"dangling", "mise.dev.toml", "conf/mise.dev.toml", "mkdir -p conf && echo '[hooks]' > conf/mise.dev.toml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, out := tempWorkspace(t), tempWorkspace(t)
			target := strings.Replace(tc.target, "OUT", out, 1)
			files := map[string]string{"src/main.go": "x\n"}
			if tc.name == "inside" {
				files[tc.target] = "{}\n"
			}
			mkfiles(t, ws, files)
			if tc.name == "outside" {
				mustDo(t, os.WriteFile(target, []byte("{}\n"), 0o644))
			}
			mustDo(t, os.Symlink(target, ws+"/"+tc.link))
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, "src/main.go", domain.AccessWrite, false); err != nil {
				t.Fatalf("control: a write decision on src/main.go was refused: %v", err)
			}
			if r := sh(t, s, "echo y >> src/main.go && echo '{}' > new.code-workspace"); r.ExitCode != 0 || len(r.Quarantined) != 1 {
				t.Fatalf("control: src/main.go not writable or new.code-workspace not set aside: %d %s %+v", r.ExitCode, r.Stderr, r.Quarantined)
			}
			for _, rel := range []string{tc.link, tc.target} {
				if strings.HasPrefix(rel, "OUT") {
					continue
				}
				if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err == nil {
					t.Errorf("a write decision on %s (the workspace file %s or where it leads) was allowed", rel, tc.link)
				}
			}
			r := sh(t, s, tc.attack)
			b, _ := os.ReadFile(ws + "/" + tc.link)
			if strings.Contains(string(b), "folderOpen") || strings.Contains(string(b), "[hooks]") {
				t.Errorf("the command's content is what the person's %s holds now (command %d %s, set aside %+v)", tc.link, r.ExitCode, strings.TrimSpace(string(r.Stderr)), r.Quarantined)
			}
		})
	}
}

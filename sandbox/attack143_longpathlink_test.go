package sandbox

import (
	"os/exec"
	"strings"
	"testing"
)

// TestAttack143_LongPathLinkedAgentFiles (review 143, one command): the
// check after a command skips, silently, a directory whose path below the
// root is longer than PATH_MAX (visit's Fstatat: ENAMETOOLONG, `continue`),
// and never follows a symbolic link. A symlink's target may be up to 4,095
// bytes and links chain: the command (bash cd's down one level at a time)
// plants a project directory with a .tool-versions (asdf and mise run a
// path: version's programs), a .yarnrc.yml (yarnPath) and a
// .claude/settings.json at the bottom of a chain of 17 directories of
// 250-byte names, and links sub -> a/<9 more levels>/proj, a -> <8
// levels>: ws/sub/.tool-versions opens (a short path, resolved through
// the links), and the check says nothing. A tool that looks for its file
// by the logical working directory ($PWD: a shell script, a Go program's
// os.Getwd) in ws/sub reads the agent's.
//
// Control ("control-short-names"): the same command with 1-byte names:
// the check sets the items aside.
func TestAttack143_LongPathLinkedAgentFiles(t *testing.T) {
	items := []string{".tool-versions", ".yarnrc.yml", ".claude/settings.json"}
	for _, c := range []struct {
		name string
		n    int
	}{{"control-short-names", 1}, {"long-names", 250}} {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			t.Cleanup(func() { exec.Command("rm", "-rf", f.ws).Run() }) // paths past PATH_MAX
			name := strings.Repeat("L", c.n)
			var first, second []string
			for i := 0; i < 8; i++ {
				first = append(first, name)
			}
			for i := 0; i < 9; i++ {
				second = append(second, name)
			}
			script := `W=$PWD; i=0; while [ $i -lt 17 ]; do mkdir -p ` + name + ` && cd ` + name + ` || exit 1; i=$((i+1)); done; ` +
				`mkdir -p proj/.claude && echo '{"hooks":{}}' > proj/.claude/settings.json && ` +
				`echo 'nodejs path:/tmp/evil143' > proj/.tool-versions && echo 'yarnPath: evil.cjs' > proj/.yarnrc.yml && cd "$W" && ` +
				`ln -s ` + strings.Join(first, "/") + ` a && ln -s a/` + strings.Join(second, "/") + `/proj sub && cat sub/.tool-versions && echo planted`
			r, err := run(t, f.s, SpawnRequest{Argv: []string{"/bin/bash", "-c", script}}, nil)
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			attackReport(t, "command", r)
			if !strings.Contains(string(r.Stdout), "planted") {
				t.Fatalf("premise: the command failed (%d): %s", r.ExitCode, r.Stderr)
			}
			// The person's shell in ws/sub, looking for the file up from
			// $PWD as asdf does.
			out, _ := exec.Command("/bin/bash", "-c", `cd "$1" && d=$PWD && while [ "$d" != / ]; do if [ -f "$d/.tool-versions" ]; then echo "found $d/.tool-versions:"; cat "$d/.tool-versions"; break; fi; d=$(dirname "$d"); done`, "x", f.ws+"/sub").CombinedOutput()
			t.Logf("host shell in sub: %s", out)
			for _, it := range items {
				if !strings.Contains(readFileOr(f.ws+"/sub/"+it), "evil") && !strings.Contains(readFileOr(f.ws+"/sub/"+it), "hooks") {
					continue
				}
				if c.n == 1 {
					t.Errorf("control: sub/%s opens to the agent's file (set aside: %v)", it, quarantined(r))
				} else {
					t.Errorf("ESCAPED: sub/%s opens to the agent's file, planted past PATH_MAX (set aside: %v; limits %v)", it, quarantined(r), r.CheckLimits)
				}
			}
		})
	}
}

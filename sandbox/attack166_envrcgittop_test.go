package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack166EnvrcGitToplevelForms (review 166): a .envrc below its
// repository's top names a script under the top in forms other than the
// one $(git rev-parse --show-toplevel) spelled exactly so
// (launcherparse.go envrcRefs matches only "$"+gitTopForm): the command
// substitution in backticks, git -C ., a space inside the parentheses, a
// variable holding the top, and --show-toplevel through git's --path-format
// option. direnv evaluates each the same (the person's shell sources the
// top's script on entering sub/), but the scripts stay writable to a file
// tool and to the command, which plants code the person's next cd runs.
// Control: the exact form's script (top0.sh) is read-only to both, and a
// script nothing names (other.sh) is written by both.
func TestAttack166EnvrcGitToplevelForms(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		"sub/.envrc": "source \"$(git rev-parse --show-toplevel)/scripts/top0.sh\"\n" +
			"source \"`git rev-parse --show-toplevel`/scripts/top1.sh\"\n" +
			"source \"$(git -C . rev-parse --show-toplevel)/scripts/top2.sh\"\n" +
			"source \"$( git rev-parse --show-toplevel )/scripts/top3.sh\"\n" +
			"top=$(git rev-parse --show-toplevel)\nsource \"$top/scripts/top4.sh\"\n" +
			"source \"$(git rev-parse --path-format=absolute --show-toplevel)/scripts/top5.sh\"\n",
		"scripts/top0.sh":  "export T0=1\n",
		"scripts/top1.sh":  "export T1=1\n",
		"scripts/top2.sh":  "export T2=1\n",
		"scripts/top3.sh":  "export T3=1\n",
		"scripts/top4.sh":  "export T4=1\n",
		"scripts/top5.sh":  "export T5=1\n",
		"scripts/other.sh": "export OTHER=1\n",
	})
	if top := strings.TrimSpace(hostGit(t, f.ws+"/sub", "rev-parse", "--show-toplevel")); top != f.ws {
		t.Fatalf("premise: git's top of sub is %q, not %q", top, f.ws)
	}
	// Premise: bash evaluates every form to the top (direnv runs .envrc in bash).
	c := exec.Command("bash", "-c", "T=`git rev-parse --show-toplevel`; echo $T; echo $(git -C . rev-parse --show-toplevel); echo $( git rev-parse --show-toplevel ); echo $(git rev-parse --path-format=absolute --show-toplevel)")
	c.Dir = f.ws + "/sub"
	b, err := c.CombinedOutput()
	out := string(b)
	if err != nil {
		t.Fatalf("premise: bash: %v %s", err, out)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l != f.ws {
			t.Fatalf("premise: a form evaluated to %q, not %q", l, f.ws)
		}
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/scripts/top0.sh", domain.AccessWrite, false); err == nil {
		t.Fatalf("control: a file tool's write of scripts/top0.sh (the exact form) was allowed")
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/scripts/other.sh", domain.AccessWrite, false); err != nil {
		t.Fatalf("control: a file tool's write of scripts/other.sh was refused: %v", err)
	}
	forms := map[string]string{"top1": "backticks", "top2": "git -C .", "top3": "spaces in $( )", "top4": "a variable holding the top", "top5": "--path-format=absolute"}
	for _, n := range []string{"top1", "top2", "top3", "top4", "top5"} {
		if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/scripts/"+n+".sh", domain.AccessWrite, false); err == nil {
			t.Errorf("a file tool's write of scripts/%s.sh, which sub/.envrc sources under the repository's top (%s), was allowed", n, forms[n])
		}
	}
	r := sh(t, s, "for n in top0 top1 top2 top3 top4 top5 other; do echo 'touch /tmp/pwned' >> scripts/$n.sh; done; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if b, _ := os.ReadFile(f.ws + "/scripts/top0.sh"); strings.Contains(string(b), "pwned") {
		t.Fatalf("control: scripts/top0.sh (the exact form) was rewritten by the command: %q", b)
	}
	if b, _ := os.ReadFile(f.ws + "/scripts/other.sh"); !strings.Contains(string(b), "pwned") {
		t.Fatalf("control: scripts/other.sh was not written by the command: %q", b)
	}
	for _, n := range []string{"top1", "top2", "top3", "top4", "top5"} {
		if b, _ := os.ReadFile(f.ws + "/scripts/" + n + ".sh"); strings.Contains(string(b), "pwned") {
			t.Errorf("scripts/%s.sh, which sub/.envrc sources under the repository's top (%s), was rewritten by the command: %q", n, forms[n], b)
		}
	}
}

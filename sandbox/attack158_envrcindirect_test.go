package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack158_EnvrcIndirectRunWatch (review 158, high: host code
// execution when the person's direnv next loads .envrc). envrcbare.go
// watches a file .envrc runs by a bare name where it does not exist yet
// (source setup.sh): a file tool may not write it, and a command's new one
// is set aside. But envrcWords only takes a name as run where the call
// itself names a launcherRuns program (runsFiles on the call's own words)
// or where an assignment's value is a literal word; three everyday shell
// forms hand the name to source through a step it does not follow:
//
//   - a function defined, then called: `load() { source "$1"; }` and
//     `load site.sh` (runsFiles(["load","site.sh"]) is 0; the body's
//     `source "$1"` is an expansion, dropped);
//   - a variable joined to a literal: `name=deploy; source "$name.sh"`
//     (the assignment's value `deploy` is watched, `deploy.sh` is not);
//   - an array: `files=(extra.sh); for f in "${files[@]}"; do source
//     "$f"; done` (an array assignment has no Value, only Array, so
//     assign() never sees it; the loop's word is an expansion).
//
// Neither parser (envrcRefs, the line parser, takes only dotfiles and
// words with a "/" as paths) watches site.sh, deploy.sh or extra.sh. With
// none there yet, a command writes them, they stay, and the person's next
// `cd` into the workspace (direnv allow is on .envrc, which is unchanged)
// sources the agent's code as the person, outside any sandbox.
//
// Control: `source setup.sh` in the same .envrc is watched: refused to a
// file tool, set aside after the same command.
func TestAttack158_EnvrcIndirectRunWatch(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{".envrc": "source setup.sh\n" +
		"load_local() {\n  source \"$1\"\n}\nload_local site.sh\n" +
		"name=deploy\nsource \"$name.sh\"\n" +
		"files=(extra.sh)\nfor f in \"${files[@]}\"; do source \"$f\"; done\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	attacks := []string{"site.sh", "deploy.sh", "extra.sh"}
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/setup.sh", domain.AccessWrite, false); err == nil {
		t.Fatalf("control: a write of setup.sh, which .envrc sources and which does not exist, was allowed")
	}
	for _, n := range attacks {
		if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+n, domain.AccessWrite, false); err == nil {
			t.Errorf("a file tool's write of %s, which .envrc sources (through a function, a joined variable or an array) and which does not exist, was allowed", n)
		}
	}
	script := "echo 'touch /tmp/pwned' > setup.sh"
	for _, n := range attacks {
		script += "; echo 'touch /tmp/pwned' > " + n
	}
	r := sh(t, s, script+"; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if exists(f.ws + "/setup.sh") {
		t.Fatalf("control: setup.sh, which .envrc sources, made by the command, stayed after the check (quarantined: %+v)", r.Quarantined)
	}
	for _, n := range attacks {
		if exists(f.ws + "/" + n) {
			t.Errorf("%s, which .envrc sources through an indirection, made by the command, stayed after the check: the person's next direnv sources it", n)
		}
	}
}

package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack158_EnvrcFunctionRunWatch (review 158, high: host code
// execution when the person's direnv next loads .envrc). envrcbare.go
// watches a file .envrc runs by a bare name where it does not exist yet
// (source setup.sh): a file tool may not write it, and a command's new one
// is set aside. envrcWords takes a name as run only where the call itself
// names a launcherRuns program (runsFiles on the call's own words). A
// function the script defines and then calls with the name is not
// followed: `load_local() { source "$1"; }` then `load_local site.sh`, and
// `function inc { . "$1"; }` then `inc more.sh` (runsFiles of the call is
// 0; in the body, "$1" is an expansion, dropped). The line parser
// (envrcRefs) takes only dotfiles and words with a "/" as paths. With
// neither file there yet, a command writes them, they stay, and the
// person's next `cd` into the workspace (direnv allow is on .envrc, which
// is unchanged) sources the agent's code as the person, outside any
// sandbox.
//
// Control: `source setup.sh` in the same .envrc is watched: refused to a
// file tool, set aside after the same command.
func TestAttack158_EnvrcFunctionRunWatch(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{".envrc": "source setup.sh\n" +
		"load_local() {\n  source \"$1\"\n}\nload_local site.sh\n" +
		"function inc { . \"$1\"; }\ninc more.sh\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	attacks := []string{"site.sh", "more.sh"}
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/setup.sh", domain.AccessWrite, false); err == nil {
		t.Fatalf("control: a write of setup.sh, which .envrc sources and which does not exist, was allowed")
	}
	for _, n := range attacks {
		if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+n, domain.AccessWrite, false); err == nil {
			t.Errorf("a file tool's write of %s, which .envrc sources (through a function the script defines) and which does not exist, was allowed", n)
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

// TestAttack158_EnvrcArrayRunWatch (review 158, high: as above). The
// README says an assignment's value is watched where .envrc runs what it
// names (assign(): `f=extra.sh; source "$f"` is). An array assignment,
// `files=(extra.sh)`, has no Value, only Array, so assign() never sees it,
// and the loop `for f in "${files[@]}"; do source "$f"; done` iterates an
// expansion: extra.sh, missing, is not watched; the command makes it and
// the person's next direnv sources it.
//
// Control: `source setup.sh` in the same .envrc is watched.
func TestAttack158_EnvrcArrayRunWatch(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{".envrc": "source setup.sh\n" +
		"files=(extra.sh)\nfor f in \"${files[@]}\"; do source \"$f\"; done\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	attacks := []string{"extra.sh"}
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/setup.sh", domain.AccessWrite, false); err == nil {
		t.Fatalf("control: a write of setup.sh, which .envrc sources and which does not exist, was allowed")
	}
	for _, n := range attacks {
		if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+n, domain.AccessWrite, false); err == nil {
			t.Errorf("a file tool's write of %s, which .envrc sources (the words of an array a loop iterates) and which does not exist, was allowed", n)
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

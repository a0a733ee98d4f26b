package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// envrcRunWatchCase writes the .envrc (and the other files) into a new
// plant fixture and checks that setup.sh (the control: `source setup.sh`
// is in every .envrc) and each attack name, none of them existing, are
// refused to a file tool's write and set aside after a command makes
// them.
func envrcRunWatchCase(t *testing.T, files map[string]string, attacks []string, how string) {
	t.Helper()
	f := newPlantFixture(t)
	mkfiles(t, f.ws, files)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/setup.sh", domain.AccessWrite, false); err == nil {
		t.Fatalf("control: a write of setup.sh, which .envrc sources and which does not exist, was allowed")
	}
	for _, n := range attacks {
		if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+n, domain.AccessWrite, false); err == nil {
			t.Errorf("a file tool's write of %s, which .envrc sources (%s) and which does not exist, was allowed", n, how)
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
			t.Errorf("%s, which .envrc sources (%s), made by the command, stayed after the check: the person's next direnv sources it", n, how)
		}
	}
}

// TestAttack159_EnvrcRunnerDefinedEarlier (review 159, high: host code
// execution when the person's direnv next loads .envrc). envrcWordsWith
// (envrcbare.go) finds the script's runners (functions whose body sources
// what it is given) in one syntax.Walk, in the order of the text: a
// function is a runner only if the runner it calls was defined above it.
// bash looks a function up when it is called, so the usual layout of a
// helper library, the public function first and its worker below
// (`load() { _load_one "$1"; }` then `_load_one() { source "$1"; }`),
// sources `load site.sh`'s site.sh, and site.sh, missing, is not watched:
// the command makes it and it stays. The README says the arguments of a
// function the script defines that sources what it is given are watched.
//
// Control: `source setup.sh` in the same .envrc, and `_load_one extra.sh`
// (the worker called directly), are watched.
func TestAttack159_EnvrcRunnerDefinedEarlier(t *testing.T) {
	envrc := "source setup.sh\n" +
		"load() {\n  _load_one \"$1\"\n}\n" +
		"_load_one() {\n  source \"$1\"\n}\n" +
		"_load_one extra.sh\n" +
		"load site.sh\n"
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{".envrc": envrc})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/extra.sh", domain.AccessWrite, false); err == nil {
		t.Fatalf("control: a write of extra.sh, which .envrc sources through the worker function directly, was allowed")
	}
	envrcRunWatchCase(t, map[string]string{".envrc": envrc}, []string{"site.sh"},
		"through a function that calls the runner defined below it")
}

// TestAttack159_EnvrcDeclaredArrayRunWatch (review 159, high: as above).
// Review 158 made an array's elements values (envrcWordsWith: a
// CallExpr's Assigns with an Array). An array given to a declaration
// builtin, `declare -a files=(extra.sh)`, `local files=(…)` in a function,
// `readonly`, `typeset`, is a syntax.DeclClause, whose Args the walk never
// reads as assignments: extra.sh and local.sh, iterated by a loop that
// sources them, are not watched. The README says an array's elements are.
//
// Control: `source setup.sh`, and the plain array `files=(plain.sh)` in
// the same .envrc, are watched.
func TestAttack159_EnvrcDeclaredArrayRunWatch(t *testing.T) {
	envrc := "source setup.sh\n" +
		"plain=(plain.sh)\nfor f in \"${plain[@]}\"; do source \"$f\"; done\n" +
		"declare -a files=(extra.sh)\nfor f in \"${files[@]}\"; do source \"$f\"; done\n" +
		"load_all() {\n  local more=(local.sh)\n  for f in \"${more[@]}\"; do source \"$f\"; done\n}\nload_all\n"
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{".envrc": envrc})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/plain.sh", domain.AccessWrite, false); err == nil {
		t.Fatalf("control: a write of plain.sh, an element of a plain array a loop sources, was allowed")
	}
	envrcRunWatchCase(t, map[string]string{".envrc": envrc}, []string{"extra.sh", "local.sh"},
		"the elements of a declare -a / local array a loop iterates")
}

// TestAttack159_EnvrcRunnerFromSourcedLibrary (review 159, high: as
// above). The runners are only the functions the .envrc itself (or a
// string it evals) defines. A project's helper library, sourced by the
// .envrc (`source_env lib/direnv.sh`: the library is kept read-only as a
// launcher path) and defining `load() { source "$1"; }`, is not read for
// them: the .envrc's own `load site.sh` sources site.sh, missing, not
// watched.
//
// Control: `source setup.sh` in the same .envrc is watched.
func TestAttack159_EnvrcRunnerFromSourcedLibrary(t *testing.T) {
	envrcRunWatchCase(t, map[string]string{
		".envrc":        "source setup.sh\nsource_env lib/direnv.sh\nload site.sh\n",
		"lib/direnv.sh": "load() {\n  source \"$1\"\n}\n",
	}, []string{"site.sh"}, "through a function a library the .envrc sources defines")
}

package sandbox

import (
	"testing"
)

// TestAttack161_EnvrcTrapDoubleDash (review 161, high: host code
// execution when the person's direnv next loads .envrc). Review 159 had
// envrcWordsWith read trap's script as code, but it takes args[1] as the
// script: `trap -- 'source trapped.sh' EXIT`, the form shellcheck and
// many style guides write (bash: "--" ends the options, the script is the
// next word), reads "--" as the script and never looks at the real one.
// trapped.sh, missing, is not watched: a command makes it and it stays;
// bash sources it when direnv's shell exits (verified: `bash -c "trap --
// 'source trapped.sh' EXIT; true"` runs it).
//
// Control: `trap 'source plain.sh' EXIT` (no "--") in the same .envrc is
// watched.
func TestAttack161_EnvrcTrapDoubleDash(t *testing.T) {
	envrcRunWatchCase(t, map[string]string{".envrc": "source setup.sh\n" +
		"trap 'source plain.sh' EXIT\n"}, []string{"plain.sh"}, "control: trap without --")
	envrcRunWatchCase(t, map[string]string{".envrc": "source setup.sh\n" +
		"trap -- 'source trapped.sh' EXIT\n"}, []string{"trapped.sh"}, "in the script trap -- runs at EXIT")
}

// TestAttack161_EnvrcRunnerFromNestedLibrary (review 161, high: as
// above). readLauncherRefs reads for runners only the libraries the
// .envrc itself sources ("a level deep"). A project's .envrc that sources
// lib/direnv.sh, which in turn sources lib/helpers.sh defining `load() {
// source "$1"; }`, runs `load site.sh` (verified with bash): site.sh,
// missing, is not watched; the command makes it and it stays.
//
// Control: the same library sourced directly by .envrc is watched (review
// 159's case).
func TestAttack161_EnvrcRunnerFromNestedLibrary(t *testing.T) {
	envrcRunWatchCase(t, map[string]string{
		".envrc":         "source setup.sh\nsource lib/helpers.sh\nload direct.sh\n",
		"lib/helpers.sh": "load() {\n  source \"$1\"\n}\n",
	}, []string{"direct.sh"}, "control: a library the .envrc sources directly")
	envrcRunWatchCase(t, map[string]string{
		".envrc":         "source setup.sh\nsource lib/direnv.sh\nload site.sh\n",
		"lib/direnv.sh":  "source lib/helpers.sh\n",
		"lib/helpers.sh": "load() {\n  source \"$1\"\n}\n",
	}, []string{"site.sh"}, "through a function a library of a library defines")
}

// TestAttack161_EnvrcRunnerFromDirenvrc (review 161, high: host code
// execution when the person's direnv next loads .envrc). direnv's stdlib
// sources the person's own ~/.config/direnv/direnvrc (and
// ~/.config/direnv/lib/*.sh) before every .envrc, and that is where
// people keep their helpers: a `load() { source "$1"; }` defined there is
// called by the project's .envrc (`load site.sh`) without the .envrc
// sourcing any library. readLauncherRefs reads for runners only the
// libraries the .envrc itself sources (review 159): site.sh, missing, is
// not watched; the command makes it and it stays.
//
// Control: the same helper in a library the .envrc sources is watched.
func TestAttack161_EnvrcRunnerFromDirenvrc(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	mkfiles(t, home, map[string]string{".config/direnv/direnvrc": "load() {\n  source \"$1\"\n}\n"})
	envrcRunWatchCase(t, map[string]string{
		".envrc":         "source setup.sh\nsource lib/helpers.sh\nload direct.sh\n",
		"lib/helpers.sh": "load() {\n  source \"$1\"\n}\n",
	}, []string{"direct.sh"}, "control: the helper in a library the .envrc sources")
	envrcRunWatchCase(t, map[string]string{
		".envrc": "source setup.sh\nload site.sh\n",
	}, []string{"site.sh"}, "through a helper the person's ~/.config/direnv/direnvrc defines")
}

// TestAttack161_EnvrcLibraryOwnSource (review 161, high: host code
// execution when the person's direnv next loads .envrc). A library the
// .envrc sources (source lib/helpers.sh: kept read-only as a launcher
// path) runs its own top-level lines when direnv loads the .envrc, in the
// .envrc's directory: `source local.sh` there sources local.sh. Review 159
// reads such a library for the runners it defines (readLauncherRefs,
// envrcRunners) but not for what it runs or sources itself: local.sh,
// missing, is not watched; the command makes it and it stays. (Verified
// with bash: `bash -c 'source lib/a.sh'` whose a.sh sources lib/b.sh runs
// b.sh.)
//
// Control: the same line in the .envrc itself (`source setup.sh`) is
// watched.
func TestAttack161_EnvrcLibraryOwnSource(t *testing.T) {
	envrcRunWatchCase(t, map[string]string{
		".envrc":         "source setup.sh\nsource lib/helpers.sh\n",
		"lib/helpers.sh": "export HELPERS=1\nsource local.sh\n",
	}, []string{"local.sh"}, "by a line of a library the .envrc sources")
}

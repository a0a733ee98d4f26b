package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack182RunnerSubcommandWatched: review 182, 8ddc51a6's
// launcherRuns (envrcbare.go). bun and deno were added to the runners
// whose every bare argument is a file they run, watched where missing
// with the extensions an interpreter adds. But bun and deno take a
// subcommand and a script's name first (`bun install`, `bun run build`,
// `deno task test`): "run", "build", "task", "test" are no files, yet
// they are now watched missing. A .envrc with `bun run build` (an
// ordinary layout) and the agent's ordinary build, which makes build/
// (bun's, vite's output), is set aside: a false protection that stops
// ordinary work, which the bare-name readers meant to avoid ("a command
// that makes a directory named build is not set aside for it",
// launcherbare.go).
//
// Control: the same command's dist/, named by `npm run dist` (npm is no
// runner), stays; `bun scripts/boot` still has scripts/boot.ts, made by
// the command, set aside.
func TestAttack182RunnerSubcommandWatched(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		".envrc":          "bun install\nbun run build\nnpm run dist\nbun scripts/boot\n",
		"scripts/keep.ts": "console.log('keep')\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	r := sh(t, s, "mkdir -p dist build && echo out > dist/app.js && echo out > build/app.js && echo pwned > scripts/boot.ts; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if exists(f.ws + "/scripts/boot.ts") {
		t.Fatalf("control: scripts/boot.ts, which `bun scripts/boot` runs, made by the command, stayed")
	}
	if !exists(f.ws + "/dist/app.js") {
		t.Fatalf("control: dist/app.js, named by nothing the person runs, was set aside (%+v)", r.Quarantined)
	}
	if !exists(f.ws + "/build/app.js") {
		t.Errorf("build/app.js, the output of the ordinary build `bun run build` names, was set aside: \"build\" is a package.json script's name, no file (set aside: %+v)", r.Quarantined)
	}
}

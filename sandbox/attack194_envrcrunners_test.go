package sandbox

import (
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack194_EnvrcRunnerSpellings: envrcbuild.go keeps read-only the
// file whose recipes a .envrc's build or task runner runs, but misses
// spellings those runners document:
//   - rake searches the directories above for its Rakefile as npm and just
//     do (Rake::Application#find_rakefile_location; -N/--nosearch turns it
//     off), but is not marked walksUp: a nested sub/.envrc's `rake setup`
//     runs the top's Rakefile, left writable;
//   - bun runs package.json's scripts without "run" (`bun dev`, the
//     "naked" form) and `bun install` runs the root package's lifecycle
//     scripts; the reader wants the "run" subcommand and keeps nothing;
//   - make reads its long options through getopt_long, which takes any
//     unambiguous abbreviation: `make --dir=tools` (as --directory=tools)
//     runs tools/Makefile, left writable (the reader knows --directory
//     only);
//   - just reads a path before the recipe's name as the directory to
//     search (`just tools/build` runs tools/justfile's build): left
//     writable;
//   - rake loads every rakelib/*.rake beside its Rakefile (its default
//     --rakelibdir): with the Rakefile kept, a rakelib/pwn.rake the agent
//     makes adds actions to the task the .envrc runs, and stays;
//   - just takes its justfile by a name compared without case
//     (eq_ignore_ascii_case): where none is, a JustFile the agent makes is
//     taken before the directory above's, and only four case spellings
//     are watched.
//
// The agent rewrites the file (or makes the new one) in a writable
// workspace; the person's next direnv runs its recipes outside the
// sandbox.
// Controls: the reader's own spellings of the same calls (nested npm run
// dev, bun run dev, npm --prefix web run dev, a justfile of a watched
// name) keep the file read-only or set aside, and a file nothing runs
// stays writable.
func TestAttack194_EnvrcRunnerSpellings(t *testing.T) {
	requireKernel(t, true)
	for _, c := range []struct {
		name, envrc, at, file, other string
		// made: the file is made by the command where it was missing
		// (the runner takes it), rather than rewritten.
		made    bool
		control bool
	}{
		{name: "control: nested npm run dev walks up", envrc: "npm run dev\n", at: "sub", file: "package.json", other: "tools/package.json", control: true},
		{name: "nested rake walks up", envrc: "rake setup\n", at: "sub", file: "Rakefile", other: "tools/Rakefile"},
		{name: "control: rake's Rakefile", envrc: "rake setup\n", file: "Rakefile", other: "tools/Rakefile", control: true},
		{name: "rake imports rakelib/*.rake", envrc: "rake setup\n", file: "rakelib/pwn.rake", other: "tools/Rakefile", made: true},
		{name: "control: bun run dev", envrc: "bun run dev\n", file: "package.json", other: "tools/package.json", control: true},
		{name: "bun dev (naked script)", envrc: "bun dev\n", file: "package.json", other: "tools/package.json"},
		{name: "bun install (root lifecycle scripts)", envrc: "bun install\n", file: "package.json", other: "tools/package.json"},
		{name: "control: npm --prefix web", envrc: "npm --prefix web run dev\n", file: "web/package.json", other: "tools/package.json", control: true},
		{name: "control: make --directory=tools", envrc: "make --directory=tools\n", file: "tools/Makefile", other: "web/Makefile", control: true},
		{name: "make --dir=tools (getopt_long abbreviation)", envrc: "make --dir=tools\n", file: "tools/Makefile", other: "web/Makefile"},
		{name: "control: just -d tools", envrc: "just -d tools -f tools/justfile build\n", file: "tools/justfile", other: "web/justfile", control: true},
		{name: "just tools/build (search directory in the recipe's path)", envrc: "just tools/build\n", file: "tools/justfile", other: "web/justfile"},
		{name: "control: nested just, justfile made in sub", envrc: "just build\n", at: "sub", file: "sub/justfile", other: "tools/justfile", made: true, control: true},
		{name: "nested just, JustFile made in sub", envrc: "just build\n", at: "sub", file: "sub/JustFile", other: "tools/justfile", made: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			files := map[string]string{
				filepath.Join(c.at, ".envrc"): c.envrc,
				c.other:                       "honest other\n",
			}
			if c.made && strings.Contains(c.envrc, "rake") {
				files["Rakefile"] = "task :setup do\n  puts 'honest'\nend\n"
			} else if c.made {
				// The honest file the runner finds now: the top's.
				files["justfile"] = "build:\n\techo honest\n"
			} else {
				files[c.file] = "honest\n"
			}
			mkfiles(t, f.ws, files)
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if !writeAllowed(t, s, f.ws+"/"+c.other) {
				t.Fatalf("control: a write of %s, which nothing runs, was refused", c.other)
			}
			r := sh(t, s, "mkdir -p "+filepath.Dir(c.file)+"; echo pwned >> "+c.file+"; echo mine >> "+c.other+"; echo done")
			if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFileOr(f.ws+"/"+c.other), "mine") {
				t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
			}
			if got := strings.Contains(readFileOr(f.ws+"/"+c.file), "pwned"); got {
				if c.control {
					t.Fatalf("control %q: the command rewrote (or made) %s, which the reader keeps", c.envrc, c.file)
				}
				t.Errorf("%q in %q: a command rewrote (or made) %s, whose recipes the person's next direnv runs (quarantined %v)", c.envrc, "/"+c.at, c.file, r.Quarantined)
			}
		})
	}
}

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"turnstile/domain"
)

func TestEnvrcBuildRefs(t *testing.T) {
	// named is runner's default files in dir, and in each directory from
	// the .envrc's up for one that looks there.
	named := func(runner, dir string) []string {
		var out []string
		for _, n := range buildRunners[runner].files {
			out = append(out, filepath.Join(dir, n))
		}
		if buildRunners[runner].walksUp {
			for _, n := range buildRunners[runner].files {
				out = append(out, string(rune(gitTopMark))+"/"+n)
			}
		}
		return out
	}
	makefiles := func(dir string) []string { return named("make", dir) }
	for _, c := range []struct {
		words []string
		want  []string
	}{
		{[]string{"make"}, makefiles(".")},
		{[]string{"make", "build"}, makefiles(".")},
		{[]string{"make", "-C", "tools"}, makefiles("tools")},
		{[]string{"make", "-Ctools", "all"}, makefiles("tools")},
		{[]string{"make", "--directory=tools"}, makefiles("tools")},
		{[]string{"make", "--directory", "tools"}, makefiles("tools")},
		{[]string{"make", "--dir=tools"}, makefiles("tools")}, // getopt_long's abbreviation
		{[]string{"make", "--di", "tools"}, makefiles("tools")},
		{[]string{"make", "-sCtools"}, makefiles("tools")},
		{[]string{"make", "-kC", "tools"}, makefiles("tools")},
		{[]string{"make", "-C", "a", "-C", "b"}, makefiles("a/b")},
		{[]string{"make", "-f", "build.mk"}, []string{"build.mk"}},
		{[]string{"make", "--fi=build.mk"}, []string{"build.mk"}},
		{[]string{"make", "-kfbuild.mk"}, []string{"build.mk"}},
		{[]string{"make", "-C", "tools", "--file=x.mk"}, []string{"tools/x.mk"}},
		{[]string{"make", "-j4", "-f", "x.mk"}, []string{"x.mk"}},
		{[]string{"make", "-j4f", "x.mk"}, makefiles(".")}, // getopt: j's value is "4f"
		{[]string{"make", "-I", "inc", "all"}, makefiles(".")},
		{[]string{"timeout", "60", "make"}, makefiles(".")},
		{[]string{"command", "make"}, makefiles(".")},
		{[]string{"/usr/bin/gmake", "-f", "/abs/x.mk"}, []string{"/abs/x.mk"}},
		{[]string{"npm", "run", "dev"}, named("npm", ".")},
		{[]string{"npm", "--prefix", "web", "start"}, named("npm", "web")},
		{[]string{"pnpm", "-C", "web", "dev"}, named("pnpm", "web")},
		{[]string{"yarn", "--cwd=web", "dev"}, named("yarn", "web")},
		{[]string{"bun", "run", "dev"}, named("bun", ".")},
		{[]string{"bun", "dev"}, named("bun", ".")},
		{[]string{"bun", "install"}, named("bun", ".")},
		{[]string{"deno", "task", "dev"}, named("deno", ".")},
		{[]string{"just", "-d", "tools", "setup"}, named("just", "tools")},
		{[]string{"just", "tools/build"}, named("just", "tools")},
		{[]string{"rake", "-f", "tasks.rb"}, []string{"tasks.rb"}},
		{[]string{"rake", "setup"}, named("rake", ".")},
		{[]string{"just", "-f", "x.just"}, []string{"x.just"}},
		{[]string{"task", "build"}, named("task", ".")},
		// controls: no runner, a runner's other subcommand, make -f -, a
		// check that the program exists
		{[]string{"echo", "hi"}, nil},
		{[]string{"deno", "run", "main.ts"}, nil},
		{[]string{"make", "-f", "-"}, nil},
		{[]string{"has", "npm"}, nil},
		{[]string{"command", "-v", "make"}, nil},
		{[]string{"type", "-P", "just"}, nil},
		{[]string{"which", "task"}, nil},
	} {
		if got := envrcBuildRefs(c.words).files; !slices.Equal(got, c.want) {
			t.Errorf("%q: %q, want %q", c.words, got, c.want)
		}
	}
	if r := envrcBuildRefs([]string{"rake"}); !slices.Equal(r.patterns, []string{"rakelib/*.rake"}) {
		t.Errorf("rake's patterns: %q", r.patterns)
	}
	if r := envrcBuildRefs([]string{"just"}); !slices.Equal(r.here, []string{"[jJ][uU][sS][tT][fF][iI][lL][eE]", ".[jJ][uU][sS][tT][fF][iI][lL][eE]"}) {
		t.Errorf("just's names of any case: %q", r.here)
	}
	if r := envrcBuildRefs([]string{"just", "-d", "tools"}); r.here != nil {
		t.Errorf("just's names of any case in another directory than the .envrc's: %q", r.here)
	}
}

// TestEnvrcBuildRunnerFiles (a note of review 192): a .envrc that runs a
// build runner (cd tools && make, make -C tools, npm --prefix web run
// dev) ran the makefile's or package.json's recipes, which the agent could
// rewrite: the person's next direnv ran them. They are kept read-only now
// (refused to a write decision, unchanged after a command's write), and a
// makefile of a name make prefers, made by a command where it was
// missing (tools/GNUmakefile), is set aside. Controls: the same file in
// a directory the .envrc runs nothing in stays writable, as does every
// file when the .envrc runs no build runner.
func TestEnvrcBuildRunnerFiles(t *testing.T) {
	requireKernel(t, true)
	for _, c := range []struct {
		envrc, at, file, other string
		control                bool
	}{
		{envrc: "cd tools && make\n", file: "tools/Makefile", other: "web/Makefile"},
		{envrc: "make\n", file: "Makefile", other: "web/Makefile"},
		{envrc: "npm run dev\n", file: "package.json", other: "web/package.json"},
		{envrc: "make -C tools all\n", file: "tools/Makefile", other: "web/Makefile"},
		{envrc: "make -sCtools\n", file: "tools/Makefile", other: "web/Makefile"},
		{envrc: "env -C tools make build\n", file: "tools/Makefile", other: "web/Makefile"},
		{envrc: "make -f tools/Makefile\n", file: "tools/Makefile", other: "web/Makefile"},
		{envrc: "npm --prefix web run dev\n", file: "web/package.json", other: "tools/package.json"},
		// npm in a directory with no package.json takes its parent's:
		// sub/.envrc (a nested one the walk reads) runs the top's.
		{envrc: "npm run dev\n", at: "sub", file: "package.json", other: "tools/package.json"},
		{envrc: "cd tools && echo entered\n", file: "tools/Makefile", other: "web/Makefile", control: true},
	} {
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{
			filepath.Join(c.at, ".envrc"): c.envrc,
			c.file:                        "all:\n\techo honest\n",
			c.other:                       "all:\n\techo other\n",
		})
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		if !writeAllowed(t, s, f.ws+"/"+c.other) {
			t.Fatalf("%q: control: a write of %s, which nothing runs, was refused", c.envrc, c.other)
		}
		if allowed := writeAllowed(t, s, f.ws+"/"+c.file); allowed != c.control {
			t.Errorf("%q: a file tool's write of %s allowed: %v", c.envrc, c.file, allowed)
		}
		r := sh(t, s, "echo pwned >> "+c.file+"; echo mine >> "+c.other+"; echo done")
		if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFileOr(f.ws+"/"+c.other), "mine") {
			t.Fatalf("%q: premise: the command did not run: %d %s", c.envrc, r.ExitCode, r.Stderr)
		}
		if rewritten := strings.Contains(readFileOr(f.ws+"/"+c.file), "pwned"); rewritten != c.control {
			if c.control {
				t.Fatalf("control %q: the command could not write %s", c.envrc, c.file)
			}
			t.Errorf("%q: a command rewrote %s, whose recipes the person's next direnv runs", c.envrc, c.file)
		}
		if !strings.HasSuffix(c.file, "Makefile") || c.control || strings.Contains(c.envrc, "-f") {
			continue // make -f reads that file only
		}
		// A makefile make prefers, made where it was missing.
		gnu := filepath.Join(filepath.Dir(c.file), "GNUmakefile")
		r = sh(t, s, "printf 'all:\\n\\techo pwned\\n' > "+gnu+"; echo done")
		if !strings.Contains(string(r.Stdout), "done") {
			t.Fatalf("%q: premise: the command did not run: %d %s", c.envrc, r.ExitCode, r.Stderr)
		}
		if _, err := os.Lstat(filepath.Join(f.ws, gnu)); err == nil {
			msg := ""
			if mk, err := exec.LookPath("make"); err == nil {
				out, _ := exec.Command(mk, "-C", filepath.Join(f.ws, filepath.Dir(c.file))).CombinedOutput()
				msg = ": make there prints " + strings.TrimSpace(string(out))
			}
			t.Errorf("%q: a command made %s, which make reads before Makefile, and it stayed (quarantined %v)%s", c.envrc, gnu, r.Quarantined, msg)
		}
	}
}

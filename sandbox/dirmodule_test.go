package sandbox

import (
	"os"
	"strings"
	"syscall"
	"testing"

	"turnstile/domain"
)

// The directory modules an interpreter runs (dirmodule.go), attacked the
// ways review 182 did not: a project with no package.json yet (the agent
// makes one whose main is its own file), a cd before `node .`, python's
// __main__.py, a main of "." or
// "..", and a package.json that is a FIFO. Each is paired with a file
// nothing runs, which stays writable, so that no check passes by refusing
// everything.

func writeAllowed(t *testing.T, s *domain.TurnExecutionSecuritySnapshot, p string) bool {
	t.Helper()
	_, err := (DecisionChecker{}).ResolveFile(s, p, domain.AccessWrite, false)
	return err == nil
}

func TestDirModuleNodeDotWithoutPackageJSON(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		".envrc":   "node .\n",
		"other.js": "console.log('other')\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if !writeAllowed(t, s, f.ws+"/other.js") {
		t.Fatalf("control: a write of other.js, which nothing runs, was refused")
	}
	for _, n := range []string{"package.json", "index.js", "index.mjs", "index.ts", "__main__.py"} {
		if writeAllowed(t, s, f.ws+"/"+n) {
			t.Errorf("a file tool's write of %s, missing, which `node .` would run (or point at), was allowed", n)
		}
	}
	// A command that makes them: each is set aside, the control stays.
	r := sh(t, s, `echo '{"main":"evil.js"}' > package.json; echo pwned > index.js; echo mine >> other.js; echo done`)
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if !strings.Contains(readFile(t, f.ws+"/other.js"), "mine") {
		t.Fatalf("control: the command could not write other.js (%s)", r.Stderr)
	}
	for _, n := range []string{"package.json", "index.js"} {
		if _, err := os.Stat(f.ws + "/" + n); err == nil {
			t.Errorf("%s, made by the command where `node .` would read it, stayed", n)
		}
	}
}

func TestDirModuleAfterCdAndPython(t *testing.T) {
	for _, c := range []struct {
		files  map[string]string
		kept   []string
		others []string
	}{{
		// cd svc; node .: svc is kept whole (as any directory a
		// launcher's cd leads to and runs), and its main, outside it.
		files: map[string]string{
			".envrc":           "cd svc\nnode .\n",
			"svc/package.json": `{"main": "../shared/start.js"}` + "\n",
			"shared/start.js":  "start\n",
			"shared/other.js":  "other\n",
		},
		kept:   []string{"svc/package.json", "shared/start.js"},
		others: []string{"shared/other.js"},
	}, {
		files: map[string]string{
			".envrc":  "python3 .\n",
			"tool.py": "x\n",
		},
		kept:   []string{"__main__.py"},
		others: []string{"tool.py"},
	}} {
		f := newPlantFixture(t)
		mkfiles(t, f.ws, c.files)
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		for _, n := range c.others {
			if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+n, domain.AccessWrite, false); err != nil {
				t.Errorf("control: a write of %s, which nothing runs, was refused: %v", n, err)
			}
		}
		for _, n := range c.kept {
			if writeAllowed(t, s, f.ws+"/"+n) {
				t.Errorf("a file tool's write of %s, which a launcher's interpreter runs as the directory's module, was allowed", n)
			}
		}
	}
}

func TestDirModuleMainDotAndAbove(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		".envrc":            "node pkg\nnode loop\n",
		"pkg/package.json":  `{"main": "."}` + "\n",
		"pkg/index.js":      "index\n",
		"loop/package.json": `{"main": ".."}` + "\n",
		"index.js":          "root index\n",
		"other.js":          "other\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if !writeAllowed(t, s, f.ws+"/other.js") {
		t.Fatalf("control: a write of other.js was refused (the workspace kept whole by a main of \"..\")")
	}
	for _, n := range []string{"pkg/index.js", "index.js"} {
		if writeAllowed(t, s, f.ws+"/"+n) {
			t.Errorf("a write of %s, which `node pkg` or `node loop` runs through main, was allowed", n)
		}
	}
}

// TestDirModuleFIFOPackageJSON: a package.json the agent made a FIFO
// does not hold the view build (a blocking open would hang every
// command), and is kept as the file it stands for.
func TestDirModuleFIFOPackageJSON(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{".envrc": "node .\n", "other.js": "x\n"})
	if err := syscall.Mkfifo(f.ws+"/package.json", 0o644); err != nil {
		t.Fatal(err)
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	r := sh(t, s, "echo mine >> other.js; echo done")
	if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFile(t, f.ws+"/other.js"), "mine") {
		t.Fatalf("control: the command did not run or write other.js: %d %s", r.ExitCode, r.Stderr)
	}
	if writeAllowed(t, s, f.ws+"/package.json") {
		t.Errorf("a write of package.json (a FIFO), which `node .` reads, was allowed")
	}
}

// TestDirModuleArgForms: the forms of the project's directory an
// interpreter is given, beside review 185's: ~+, $(pwd), ${PWD}, nodejs,
// python3.12, node --watch .; and the arguments that are no module
// (python3 -m venv ., node server.js .), which keep nothing.
func TestDirModuleArgForms(t *testing.T) {
	for _, c := range []struct {
		envrc string
		kept  bool
	}{
		{"node ~+\n", true}, {"node $(pwd)\n", true}, {"node ${PWD}\n", true}, {"nodejs .\n", true},
		{"python3.12 .\n", true}, {"node --watch .\n", true}, {"node -r dotenv/config .\n", true},
		{"python3 -m venv .\n", false}, {"node server.js .\n", false}, {"node -e 'x' .\n", false},
		// An option the list does not know may take the next word (review
		// 190): read both ways, "." may be the script (and is kept where
		// it is only an argument after one: the cost of not knowing).
		{"node --future-option 1 .\n", true}, {"node --future-flag server.js .\n", true},
		{"node --watch server.js .\n", false},
		{"python3 --check-hash-based-pycs never .\n", true}, {"python3 -P .\n", true},
	} {
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{".envrc": c.envrc, "package.json": `{"main": "app.js"}` + "\n", "app.js": "x\n", "server.js": "x\n", "other.js": "x\n"})
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		if !writeAllowed(t, s, f.ws+"/other.js") {
			t.Errorf("%q: control: other.js was refused", c.envrc)
		}
		if got := !writeAllowed(t, s, f.ws+"/app.js"); got != c.kept {
			t.Errorf("%q: app.js (package.json's main) kept = %v, want %v", c.envrc, got, c.kept)
		}
	}
}

// TestLauncherFIFOLibrary: a FIFO the agent put where a .envrc sources a
// library (readLauncherFile) does not hold the view build, as the FIFO
// package.json above does not. Control: a command runs and writes the
// project's file.
func TestLauncherFIFOLibrary(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{".envrc": "source_env_if_exists lib.sh\nsource lib.sh\n", "other.js": "x\n"})
	if err := syscall.Mkfifo(f.ws+"/lib.sh", 0o644); err != nil {
		t.Fatal(err)
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	r := sh(t, s, "echo mine >> other.js; echo done")
	if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFile(t, f.ws+"/other.js"), "mine") {
		t.Fatalf("control: the command did not run or write other.js: %d %s", r.ExitCode, r.Stderr)
	}
	if writeAllowed(t, s, f.ws+"/lib.sh") {
		t.Errorf("a write of lib.sh (a FIFO), which .envrc sources, was allowed")
	}
}

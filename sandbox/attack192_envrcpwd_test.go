package sandbox

import (
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack192EnvrcPWDSpellings: review 192, launcherparse.go
// (envrcPWDAnywhere, envrcPWDText) and envrcbare.go. Review 190's fix reads
// a list of spellings of the .envrc's own directory as "." (${PWD%/},
// $(pwd -P), $(realpath .), $(dirname "${BASH_SOURCE[0]}")…), and a word
// holding any other expansion is dropped: the script it sources stays
// writable. bash (which direnv runs the .envrc in, from its directory)
// runs each of these as it runs "./scripts/env.sh" (verified with bash
// 5: each prints the sourced script's output): backquotes (`pwd`), the
// blanks bash allows in $( pwd ), $(builtin pwd), $(realpath -s .), the
// ";" form of the cd-and-pwd idiom, and shellcheck's `dirname --`. The
// agent rewrites scripts/env.sh and the person's next direnv sources it
// outside the sandbox.
//
// Control: `source "$(pwd)/scripts/env.sh"` and the "&&" form of the
// idiom have scripts/env.sh refused to a write decision and a command's
// rewrite of it fail; scripts/other.sh, which nothing sources, stays
// writable.
func TestAttack192EnvrcPWDSpellings(t *testing.T) {
	for _, c := range []struct {
		envrc   string
		control bool
	}{
		{envrc: `source "$(pwd)/scripts/env.sh"`, control: true},
		{envrc: `source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/scripts/env.sh"`, control: true},
		{envrc: "source `pwd`/scripts/env.sh"},
		{envrc: `source "$( pwd )/scripts/env.sh"`},
		{envrc: `source "$(builtin pwd)/scripts/env.sh"`},
		{envrc: `source "$(realpath -s .)/scripts/env.sh"`},
		{envrc: `source "$(cd "$(dirname "${BASH_SOURCE[0]}")"; pwd)/scripts/env.sh"`},
		{envrc: `source "$(dirname -- "${BASH_SOURCE[0]}")/scripts/env.sh"`},
	} {
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{
			".envrc":           c.envrc + "\n",
			"scripts/env.sh":   "echo honest\n",
			"scripts/other.sh": "echo other\n",
		})
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		if !writeAllowed(t, s, f.ws+"/scripts/other.sh") {
			t.Fatalf("%s: control: a write of scripts/other.sh, which nothing sources, was refused", c.envrc)
		}
		if writeAllowed(t, s, f.ws+"/scripts/env.sh") {
			if c.control {
				t.Fatalf("control %s: a file tool's write of scripts/env.sh was allowed", c.envrc)
			}
			t.Errorf("%s: a file tool's write of scripts/env.sh, which the .envrc sources, was allowed", c.envrc)
		}
		r := sh(t, s, "echo 'echo pwned' > scripts/env.sh; echo '#mine' >> scripts/other.sh; echo done")
		if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFileOr(f.ws+"/scripts/other.sh"), "mine") {
			t.Fatalf("%s: premise: the command did not run: %d %s", c.envrc, r.ExitCode, r.Stderr)
		}
		if got := readFileOr(f.ws + "/scripts/env.sh"); got != "echo honest\n" {
			if c.control {
				t.Fatalf("control %s: the command rewrote scripts/env.sh: %q", c.envrc, got)
			}
			cmd := exec.Command("bash", "-c", "source ./.envrc")
			cmd.Dir = f.ws
			out, _ := cmd.CombinedOutput()
			t.Errorf("%s: a command rewrote scripts/env.sh, which the person's next direnv sources (bash there prints %s)", c.envrc, strings.Join(strings.Fields(string(out)), " "))
		}
	}
}

// TestAttack192EnvChdirAbbreviated: review 192, launcherparse.go
// (envrcDirs.chdir). env -C DIR, -CDIR, --chdir DIR and --chdir=DIR are
// read as where the program env runs runs (review 190), but GNU env reads
// its long options with getopt_long, which takes any unambiguous prefix:
// `env --ch=tools bash setup.sh` (or --chd, --chdi) runs tools/setup.sh
// (verified: `env --ch=/usr pwd` prints /usr). The reader does not know
// the abbreviation, reads setup.sh from the .envrc's directory, and
// tools/setup.sh stays writable: the agent rewrites it and the person's
// next direnv runs it.
//
// The same reader reads the value of env's -u NAME as the program env
// runs and stops there: `env -u FOO --chdir=tools bash setup.sh` (and
// -Ctools) runs tools/setup.sh too.
//
// Control: `env --chdir=tools bash setup.sh` has tools/setup.sh refused
// to a write decision and a command's rewrite of it fail; tools/other.sh,
// which nothing runs, stays writable.
func TestAttack192EnvChdirAbbreviated(t *testing.T) {
	for _, c := range []struct {
		envrc   string
		control bool
	}{
		{envrc: "env --chdir=tools bash setup.sh", control: true},
		{envrc: "env --ch=tools bash setup.sh"},
		{envrc: "env --chdi=tools bash setup.sh"},
		// env's -u NAME (--unset) takes a value: chdir reads NAME as the
		// program env runs and stops before the --chdir after it
		// (verified: `env -u FOO --chdir=/usr pwd` prints /usr).
		{envrc: "env -u FOO --chdir=tools bash setup.sh"},
		{envrc: "env -u FOO -Ctools bash setup.sh"},
	} {
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{
			".envrc":         c.envrc + "\n",
			"tools/setup.sh": "echo honest\n",
			"tools/other.sh": "echo other\n",
		})
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		if !writeAllowed(t, s, f.ws+"/tools/other.sh") {
			t.Fatalf("%s: control: a write of tools/other.sh, which nothing runs, was refused", c.envrc)
		}
		if writeAllowed(t, s, f.ws+"/tools/setup.sh") {
			if c.control {
				t.Fatalf("control %s: a file tool's write of tools/setup.sh was allowed", c.envrc)
			}
			t.Errorf("%s: a file tool's write of tools/setup.sh, which the .envrc runs, was allowed", c.envrc)
		}
		r := sh(t, s, "echo 'echo pwned' > tools/setup.sh; echo '#mine' >> tools/other.sh; echo done")
		if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFileOr(f.ws+"/tools/other.sh"), "mine") {
			t.Fatalf("%s: premise: the command did not run: %d %s", c.envrc, r.ExitCode, r.Stderr)
		}
		if got := readFileOr(f.ws + "/tools/setup.sh"); got != "echo honest\n" {
			if c.control {
				t.Fatalf("control %s: the command rewrote tools/setup.sh: %q", c.envrc, got)
			}
			cmd := exec.Command("bash", "-c", "source ./.envrc")
			cmd.Dir = f.ws
			out, _ := cmd.CombinedOutput()
			t.Errorf("%s: a command rewrote tools/setup.sh, which the person's next direnv runs (bash there prints %s)", c.envrc, strings.Join(strings.Fields(string(out)), " "))
		}
	}
}

// TestAttack192EnvrcBacktickPATH: review 192, the same flaw for a
// directory a .envrc puts in PATH: `export PATH="`pwd`/bin:$PATH"` (the
// old spelling of $(pwd), which bash runs alike) is not read as the
// project's bin/, which stays writable whole: the agent adds bin/git (or
// bin/ls) and the person's next command of that name in the shell direnv
// set up runs it outside the sandbox.
//
// Control: `export PATH="$(pwd)/bin:$PATH"` has a write of bin/git
// refused to a write decision and a command's fail; scripts/other.sh
// stays writable.
func TestAttack192EnvrcBacktickPATH(t *testing.T) {
	for _, c := range []struct {
		envrc   string
		control bool
	}{
		{envrc: `export PATH="$(pwd)/bin:$PATH"`, control: true},
		{envrc: "export PATH=\"`pwd`/bin:$PATH\""},
	} {
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{
			".envrc":           c.envrc + "\n",
			"bin/tool":         "#!/bin/sh\necho tool\n",
			"scripts/other.sh": "echo other\n",
		})
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		if !writeAllowed(t, s, f.ws+"/scripts/other.sh") {
			t.Fatalf("%s: control: a write of scripts/other.sh was refused", c.envrc)
		}
		if writeAllowed(t, s, f.ws+"/bin/git") {
			if c.control {
				t.Fatalf("control %s: a file tool's write of bin/git was allowed", c.envrc)
			}
			t.Errorf("%s: a file tool's write of bin/git, in the directory the .envrc puts first in PATH, was allowed", c.envrc)
		}
		r := sh(t, s, "printf '#!/bin/sh\\necho pwned\\n' > bin/git; chmod +x bin/git; echo '#mine' >> scripts/other.sh; echo done")
		if !strings.Contains(string(r.Stdout), "done") || !strings.Contains(readFileOr(f.ws+"/scripts/other.sh"), "mine") {
			t.Fatalf("%s: premise: the command did not run: %d %s", c.envrc, r.ExitCode, r.Stderr)
		}
		if exists(f.ws + "/bin/git") {
			if c.control {
				t.Fatalf("control %s: the command's bin/git stayed", c.envrc)
			}
			cmd := exec.Command("bash", "-c", "source ./.envrc; git")
			cmd.Dir = f.ws
			out, _ := cmd.CombinedOutput()
			t.Errorf("%s: bin/git, made by a command, stayed (the person's git there prints %s)", c.envrc, strings.Join(strings.Fields(string(out)), " "))
		}
	}
}

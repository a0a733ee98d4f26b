package sandbox

import (
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack190EnvrcPWDSpellings: review 190, launcherparse.go
// (envrcPWD, envrcPWDAnywhere) and envrcbare.go. A .envrc that sources a
// script by the project's directory has it kept read-only where it spells
// that directory $PWD, ${PWD} or $(pwd) inside one word ("$PWD/x.sh"),
// but not in other spellings bash reads the same (each verified here
// with bash, run in the .envrc's directory): the quote closed before the
// rest ("$PWD"/scripts/env.sh, "${PWD}"/scripts/env.sh, a common style),
// bash's ~+ (launcherRef takes it for another user's home and skips it),
// ${PWD%/}, $(pwd -P) and $(realpath .). scripts/env.sh then stays
// writable to commands and file tools, and the person's next direnv
// sources the agent's rewrite outside the sandbox.
//
// Control: `source "$PWD/scripts/env.sh"` has scripts/env.sh refused to
// a write decision and read-only to a command; scripts/other.sh, which
// nothing sources, stays writable.
func TestAttack190EnvrcPWDSpellings(t *testing.T) {
	for _, c := range []struct {
		envrc   string
		control bool
	}{
		{envrc: `source "$PWD/scripts/env.sh"`, control: true},
		{envrc: `source "$PWD"/scripts/env.sh`},
		{envrc: `source "${PWD}"/scripts/env.sh`},
		{envrc: `source ~+/scripts/env.sh`},
		{envrc: `source "${PWD%/}/scripts/env.sh"`},
		{envrc: `source "$(pwd -P)/scripts/env.sh"`},
		{envrc: `source "$(realpath .)/scripts/env.sh"`},
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
			cmd := exec.Command("bash", "-c", c.envrc)
			cmd.Dir = f.ws
			out, _ := cmd.CombinedOutput()
			t.Errorf("%s: a command rewrote scripts/env.sh, which the person's next direnv sources (bash there prints %s)", c.envrc, strings.Join(strings.Fields(string(out)), " "))
		}
	}
}

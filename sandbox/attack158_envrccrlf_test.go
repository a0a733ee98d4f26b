package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack158_EnvrcCRLFName (review 158, low: host code execution when
// the person's direnv next loads a .envrc saved with CRLF line ends, a
// Windows or WSL checkout with core.autocrlf). bash does not take a
// carriage return for a blank: in `source_env_if_exists .envrc.local\r`
// the name it tests and sources is ".envrc.local\r". Both of turnstile's
// readers drop the CR (the mvdan parser; lines() and strings.Fields), so
// they watch ".envrc.local", which bash never reads, and leave the name
// bash does read unwatched. direnv's source_env_if_exists stays silent
// while the file is missing, so such a .envrc loads without complaint for
// the person; the command makes ".envrc.local\r", it stays, and the
// person's next `cd` into the project sources it.
//
// Control: the name as the readers take it (.envrc.local) is refused to a
// file tool and set aside after the same command.
func TestAttack158_EnvrcCRLFName(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{".envrc": "export APP_ENV=dev\r\nsource_env_if_exists .envrc.local\r\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/.envrc.local", domain.AccessWrite, false); err == nil {
		t.Fatalf("control: a write of .envrc.local, which the readers take .envrc to source, was allowed")
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/.envrc.local\r", domain.AccessWrite, false); err == nil {
		t.Errorf("a file tool's write of \".envrc.local\\r\", the name bash sources from the CRLF .envrc, was allowed")
	}
	r := sh(t, s, "echo 'touch /tmp/pwned' > .envrc.local; echo 'touch /tmp/pwned' > \"$(printf '.envrc.local\\r')\"; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if exists(f.ws + "/.envrc.local") {
		t.Fatalf("control: .envrc.local, made by the command, stayed after the check (quarantined: %+v)", r.Quarantined)
	}
	if exists(f.ws + "/.envrc.local\r") {
		t.Errorf("\".envrc.local\\r\", made by the command, stayed after the check: direnv's source_env_if_exists in the CRLF .envrc sources it")
	}
}

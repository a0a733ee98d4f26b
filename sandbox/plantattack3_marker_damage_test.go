package sandbox

import (
	"testing"

	"turnstile/domain"
)

// TestAttack3MarkerDamage (third attack review): the check reads a held
// git dir (one the command ran with, its config read-only: the person's
// own) whenever a quarantine marker sits next to its HEAD, and quarantines
// it when its config holds a key outside the allowlist — the person's own
// choices (here an alias and a textconv). The marker is only a name: any
// command may create one in the workspace's own .git, which stays writable.
// A command that does nothing but `touch .git/HEAD.turnstile-untrusted`
// gets the person's repository's HEAD renamed, and the result tells the
// person that their own config is a program the command left.
func TestAttack3MarkerDamage(t *testing.T) {
	f := newPlantFixture(t)
	r := sh(t, f.s, "touch .git/HEAD"+domain.UntrustedSuffix+".x && echo ok")
	attackReport(t, "command", r)
	if r.ExitCode != 0 {
		t.Fatal("the command failed")
	}
	if !exists(f.ws + "/.git/HEAD") {
		out, err := hostGitRun(t, f.ws, "status")
		t.Logf("host git status: err=%v\n%s", err, out)
		t.Fatalf("DAMAGE: the workspace's own repository lost its HEAD (quarantined %v)", quarantined(r))
	}
}

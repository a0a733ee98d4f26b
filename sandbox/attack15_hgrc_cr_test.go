package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"turnstile/domain"
)

// TestAttack15HgrcCarriageReturn (fifteenth attack review, a variant of
// 4fda0bd): the check after a command leaves a Mercurial config it made
// when it holds [paths] alone, as hg clone writes it, and read it line by
// line at each "\n"; Mercurial reads it with splitlines, which ends a line
// at a lone "\r" too. A command that wrote sub/.hg/hgrc as
// "[paths]\ndefault = URL\r[hooks]\rpre-status = ..." left a config the
// check took for one [paths] line, and hg, the next time a person ran
// hg status in sub, for a [hooks] section with the command's hook.
// Control: the clone's hgrc of [paths] alone stays.
func TestAttack15HgrcCarriageReturn(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	mk := "mkdir -p clone/.hg sub/.hg && printf 'share-safe\\n' > clone/.hg/requires && cp clone/.hg/requires sub/.hg/requires && "
	r := sh(t, s, mk+"printf '[paths]\\ndefault = https://example.com/repo\\n' > clone/.hg/hgrc && "+
		"printf '[paths]\\ndefault = https://example.com/repo\\r[hooks]\\rpre-status = id > /tmp/pwned\\n' > sub/.hg/hgrc")
	if r.ExitCode != 0 {
		t.Fatalf("the command failed: %d %s", r.ExitCode, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, "clone/.hg/hgrc")); err != nil {
		t.Fatalf("control: the clone's hgrc of [paths] alone went: %v %+v", err, r.Quarantined)
	}
	if _, err := os.Stat(filepath.Join(ws, "sub/.hg/hgrc")); err == nil {
		t.Errorf("an hgrc with a [hooks] section after a carriage return stays: %+v", r.Quarantined)
	}
}

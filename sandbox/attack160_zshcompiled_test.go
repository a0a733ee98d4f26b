package sandbox

import (
	"testing"

	"turnstile/domain"
)

// TestAttack160ZshCompiledStartupFilesLeftByACommand (review 160, the
// command side of tests/attack160_zshcompiled_test.go): zsh runs
// NAME.zwc, the compiled form of a start-up file, instead of NAME when it
// is newer (zsh manual, STARTUP/SHUTDOWN FILES). A command's .zshrc at a
// root is set aside, but its .zshrc.zwc and .zshenv.zwc are left there,
// newer than the person's read-only .zshrc and .zshenv, so the person's
// next zsh runs them in their place.
// Control: the same command's .zshrc is set aside; an ordinary file stays.
func TestAttack160ZshCompiledStartupFilesLeftByACommand(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r := sh(t, s, "for n in .zshrc .zshrc.zwc .zshenv.zwc notes.txt; do printf 'compiled' > \"$n\" || exit 1; done; echo ok")
	if r.ExitCode != 0 {
		t.Fatalf("the command failed: %d %s", r.ExitCode, r.Stderr)
	}
	if !exists(ws + "/notes.txt") {
		t.Fatalf("control: notes.txt was not written")
	}
	if exists(ws + "/.zshrc") {
		t.Fatalf("control: .zshrc, a listed start-up file the command made at the root, was not set aside (%+v)", r.Quarantined)
	}
	for _, n := range []string{".zshrc.zwc", ".zshenv.zwc"} {
		if exists(ws + "/" + n) {
			t.Errorf("%s, which zsh reads in place of the protected %s, was left at the root by the command", n, n[:len(n)-4])
		}
	}
}

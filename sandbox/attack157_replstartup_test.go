package sandbox

import (
	"testing"

	"turnstile/domain"
)

// TestAttack157REPLStartupFilesLeftByACommand (review 157, the command
// side of tests/attack157_replstartup_test.go): a start-up file of the
// protected list that a command creates at a writable root is set aside
// after it (.pdbrc, .ghci: the person's next pdb or ghci there would run
// it). IEx's .iex.exs, OCaml's .ocamlinit, Octave's .octaverc and the Perl
// debugger's .perldb are read from the directory those programs start in
// the same way (each runs code: System.cmd, Sys.command, system()), but
// the list does not name them, so the command leaves them in place at the
// root, where the person's next iex, ocaml, octave or perl -d runs them
// outside every sandbox.
// Control: the same command's .pdbrc and .ghci are set aside; an ordinary
// file it writes stays.
func TestAttack157REPLStartupFilesLeftByACommand(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r := sh(t, s, "for n in .pdbrc .ghci .iex.exs .ocamlinit .octaverc .perldb notes.txt; do echo 'system(\"id\")' > \"$n\" || exit 1; done; echo ok")
	if r.ExitCode != 0 {
		t.Fatalf("the command failed: %d %s", r.ExitCode, r.Stderr)
	}
	if !exists(ws + "/notes.txt") {
		t.Fatalf("control: notes.txt was not written")
	}
	for _, n := range []string{".pdbrc", ".ghci"} {
		if exists(ws + "/" + n) {
			t.Fatalf("control: %s, a listed start-up file the command made at the root, was not set aside (%+v)", n, r.Quarantined)
		}
	}
	for _, n := range []string{".iex.exs", ".ocamlinit", ".octaverc", ".perldb"} {
		if exists(ws + "/" + n) {
			t.Errorf("%s, which the person's next REPL or debugger started in the workspace runs, was left at the root by the command (not set aside as .pdbrc is)", n)
		}
	}
}

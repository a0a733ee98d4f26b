package sandbox

import (
	"testing"

	"turnstile/domain"
)

// TestAttack163HomeRunFilesLeftByACommand (review 163, the command side of
// tests/attack163_homerunfiles_test.go): a start-up file of the protected
// list a command creates at a writable root is set aside after it
// (.bashrc, .gdbinit: any root may be a person's home), but gdb's
// ~/.gdbearlyinit (its `shell` lines run at every gdb start), wget's
// ~/.wgetrc (use_askpass runs a program at every wget), curl's ~/.curlrc
// (url + output: the next curl overwrites any file of the person's, its
// .bashrc included), husky's ~/.config/husky/init.sh and ~/.huskyrc
// (sourced before every hook), Bun's ~/.bunfig.toml (preload), Jupyter's
// ~/.jupyter/*_config.py and mongosh's ~/.mongoshrc.js are not on the
// list, so the command leaves them in place (gdb, wget and curl
// demonstrated on this machine with HOME set to a directory holding them).
// Control: the same command's .bashrc and .gdbinit are set aside; an
// ordinary file it writes stays.
func TestAttack163HomeRunFilesLeftByACommand(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r := sh(t, s, "mkdir -p .config/husky .jupyter && for n in .bashrc .gdbinit .gdbearlyinit .wgetrc .curlrc .config/husky/init.sh .huskyrc .bunfig.toml .jupyter/jupyter_server_config.py .mongoshrc.js notes.txt; do echo 'shell id > /tmp/pwned' > \"$n\" || exit 1; done; echo ok")
	if r.ExitCode != 0 {
		t.Fatalf("the command failed: %d %s", r.ExitCode, r.Stderr)
	}
	if !exists(ws + "/notes.txt") {
		t.Fatalf("control: notes.txt was not written")
	}
	for _, n := range []string{".bashrc", ".gdbinit"} {
		if exists(ws + "/" + n) {
			t.Fatalf("control: %s, a listed start-up file the command made at the root, was not set aside (%+v)", n, r.Quarantined)
		}
	}
	for _, n := range []string{".gdbearlyinit", ".wgetrc", ".curlrc", ".config/husky/init.sh", ".huskyrc", ".bunfig.toml",
		".jupyter/jupyter_server_config.py", ".mongoshrc.js"} {
		if exists(ws + "/" + n) {
			t.Errorf("%s, which the person's next gdb, wget, curl, git commit (husky), bun, jupyter or mongosh runs, was left at the root by the command (not set aside as .bashrc is)", n)
		}
	}
}

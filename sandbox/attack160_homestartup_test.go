package sandbox

import (
	"testing"

	"turnstile/domain"
)

// TestAttack160HomeStartupFilesLeftByACommand (review 160, the command
// side of tests/attack160_homestartup_test.go): a start-up file of the
// protected list a command creates at a writable root is set aside after
// it (.bashrc, .mvn/jvm.config: any root may be a person's home). Maven's
// ~/.mavenrc (sourced as shell by /usr/bin/mvn before every run), Debian
// sensible-editor's ~/.selected_editor (sourced as shell), less's
// ~/.lesskey (its #env LESSOPEN runs a command each time less opens a
// file) and the docker CLI's ~/.docker/cli-plugins/docker-NAME (run
// for `docker NAME`, before the system's plugins), xdg-user-dir's
// ~/.config/user-dirs.dirs (sourced as shell) and xdg-open's
// ~/.local/share/applications/*.desktop (its Exec run for the type
// ~/.config/mimeapps.list maps to it) run code the same way —
// each demonstrated on this machine with HOME set to a directory holding
// it — but the list does not name them, so the command leaves them in
// place.
// Control: the same command's .bashrc and .mvn/jvm.config are set aside;
// an ordinary file it writes stays.
func TestAttack160HomeStartupFilesLeftByACommand(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r := sh(t, s, "mkdir -p .mvn .docker/cli-plugins .config .local/share/applications && for n in .bashrc .mvn/jvm.config .mavenrc .selected_editor .lesskey .docker/cli-plugins/docker-compose .config/user-dirs.dirs .config/mimeapps.list .local/share/applications/x.desktop notes.txt; do echo 'id > /tmp/pwned' > \"$n\" || exit 1; done; echo ok")
	if r.ExitCode != 0 {
		t.Fatalf("the command failed: %d %s", r.ExitCode, r.Stderr)
	}
	if !exists(ws + "/notes.txt") {
		t.Fatalf("control: notes.txt was not written")
	}
	for _, n := range []string{".bashrc", ".mvn/jvm.config"} {
		if exists(ws + "/" + n) {
			t.Fatalf("control: %s, a listed start-up file the command made at the root, was not set aside (%+v)", n, r.Quarantined)
		}
	}
	for _, n := range []string{".mavenrc", ".selected_editor", ".lesskey", ".docker/cli-plugins/docker-compose",
		".config/user-dirs.dirs", ".config/mimeapps.list", ".local/share/applications/x.desktop"} {
		if exists(ws + "/" + n) {
			t.Errorf("%s, which the person's next mvn, sensible-editor, less, docker, xdg-user-dir or xdg-open runs, was left at the root by the command (not set aside as .bashrc is)", n)
		}
	}
}

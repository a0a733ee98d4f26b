package tests

import (
	"strconv"
	"testing"
)

// Review 160 (high): the protected list keeps, at every writable root (any
// root may be a person's home: domain/protected.go, "Every root gets them"),
// the files a host program runs at the person's next login, shell, editor
// or tool start (.bashrc, .profile, .gitconfig, .config/git, .tmux.conf,
// .gdbinit, .Renviron, .mvn/jvm.config, ...), but not these of exactly the
// same kind, each demonstrated on this machine with HOME set to a
// directory holding the file:
//
//   - Maven's /usr/bin/mvn sources "$HOME/.mavenrc" as shell before every
//     run (`mvn -v` ran its `touch`); .mvn/jvm.config and
//     .mvn/maven.config, Maven's other start-up files, are listed.
//   - Debian's sensible-editor (crontab -e, mutt, select-editor's users)
//     sources ~/.selected_editor as shell (". ~/.selected_editor").
//   - less (590 here) reads ~/.lesskey as a lesskey source, whose #env
//     section sets LESSOPEN: `LESSOPEN=|cmd %s` runs cmd each time less
//     opens a file (`less notes.txt` ran the planted command).
//   - the docker CLI runs ~/.docker/cli-plugins/docker-NAME for
//     `docker NAME` (the user's directory before the system's, so
//     docker-compose and docker-buildx there replace the installed ones).
//   - xdg-user-dir (/usr/bin/xdg-user-dir, and the desktop scripts that
//     call it) sources ~/.config/user-dirs.dirs as shell.
//   - xdg-open (generic mode, through xdg-mime) runs the Exec line of the
//     desktop file ~/.config/mimeapps.list names for the file's type, looked
//     up in ~/.local/share/applications first: `xdg-open a.txt` ran the
//     planted x.desktop's Exec.
//
// In auto_accept_edits a file tool's write of each is allowed without a
// question, outside every sandbox, and a command creates them at a root
// (none is on the after-check's list either), so the person's next mvn,
// crontab -e, less, docker compose or xdg-open runs the agent's program as the
// person.
//
// Controls, in the same turn: the same kind of file the list names
// (.bashrc, .mvn/jvm.config, .gitconfig) is refused, and an ordinary file
// is written.
//
// Suggested fix: add .mavenrc, .selected_editor, .lesskey,
// (newer less releases' .config/lesskey too), .docker/cli-plugins,
// .config/user-dirs.dirs, .config/mimeapps.list and
// .local/share/applications to domain.DefaultProtectedPaths beside .bashrc and .mvn/jvm.config.
func TestAttack160_HomeStartupFilesWritable(t *testing.T) {
	t.Parallel()
	s := editsTurn(t, "home", "sub")

	for i, p := range []string{".bashrc", ".mvn/jvm.config", ".gitconfig"} {
		d := s.decide("home", "c"+strconv.Itoa(i), "apply_patch", attack136AddFile(p, "x"))
		if d.Decision != "deny" {
			t.Fatalf("control: a write of %s: %s/%s/%s, want deny (a listed start-up file)", p, d.Decision, d.Reason, d.Refusal)
		}
	}
	if d := s.decide("home", "ok", "apply_patch", attack136AddFile("notes.txt", "x")); d.Decision != "allow" {
		t.Fatalf("control: a write of notes.txt: %+v, want allow (auto_accept_edits)", d)
	}

	files := []struct{ path, line string }{
		{".mavenrc", `id > /tmp/pwned`},
		{".selected_editor", `id > /tmp/pwned; SELECTED_EDITOR=vi`},
		{".lesskey", "#env\nLESSOPEN=|id > /tmp/pwned; cat %s"},
		{".docker/cli-plugins/docker-compose", "#!/bin/sh\nid > /tmp/pwned"},
		{".config/user-dirs.dirs", `id > /tmp/pwned`},
		{".local/share/applications/x.desktop", "[Desktop Entry]\nType=Application\nName=x\nExec=sh -c 'id > /tmp/pwned'\nMimeType=text/plain;"},
		{".config/mimeapps.list", "[Default Applications]\ntext/plain=x.desktop"},
	}
	for i, f := range files {
		d := s.decide("home", "w"+strconv.Itoa(i), "apply_patch", attack136AddFile(f.path, f.line))
		if d.Decision != "deny" {
			t.Errorf("a file tool's write of %s (run by the person's next mvn, sensible-editor, less, docker, xdg-user-dir or xdg-open): %s/%s/%s, want deny, as .bashrc and .mvn/jvm.config are",
				f.path, d.Decision, d.Reason, d.Refusal)
		}
	}
}

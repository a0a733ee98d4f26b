package tests

import (
	"strconv"
	"testing"
)

// Review 163 (high): the protected list (domain/protected.go,
// DefaultProtectedPaths: "Every root gets them: any root may be a person's
// home") keeps the home files a host program runs code from (.bashrc,
// .gdbinit, .mavenrc, .lesskey, ...), but not these of the same kind, the
// first three demonstrated on this machine with HOME set to a directory
// holding the file:
//
//   - GNU gdb (13.1 here) reads ~/.gdbearlyinit before anything else, and
//     runs its commands: `shell CMD` ran the planted command on a plain
//     `gdb -batch` (.gdbinit and .config/gdb are listed; the early one is
//     not).
//   - wget (1.21) reads ~/.wgetrc; `use_askpass = PROGRAM` runs PROGRAM on
//     every invocation (`wget -q -O /dev/null http://127.0.0.1:9/` ran it,
//     before and although the connection was refused).
//   - curl reads ~/.curlrc before its arguments: `url = "file://WS/payload"`
//     plus `output = "/home/p/.bashrc"` makes the person's next
//     `curl https://anything` first copy the agent's file over any file the
//     person may write (ran here: the target was overwritten), .bashrc
//     included — the list's own files rewritten outside every sandbox.
//   - husky 9's hook runner (.husky/_/h) sources
//     ${XDG_CONFIG_HOME:-~/.config}/husky/init.sh before every hook
//     (documented: "Startup files"), husky 4–8 ~/.huskyrc the same way:
//     the person's next git commit in any husky project runs it.
//   - Bun reads its global config at ~/.bunfig.toml (the project's
//     bunfig.toml is listed): `preload` runs a script before every bun run.
//   - Jupyter runs ~/.jupyter/jupyter_*_config.py (Python) at every
//     jupyter lab/notebook/server start; mongosh runs ~/.mongoshrc.js at
//     start.
//
// In auto_accept_edits a file tool's write of each at a root is allowed
// without a question, outside every sandbox.
//
// Controls, in the same turn: the same kind of file the list names
// (.bashrc, .gdbinit, .mavenrc) is refused, and an ordinary file is
// written.
//
// Suggested fix: add .gdbearlyinit, .wgetrc, .config/wget (wget2's
// wgetrc), .curlrc, .config/husky, .huskyrc, .bunfig.toml, .jupyter and
// .mongoshrc.js to domain.DefaultProtectedPaths beside .gdbinit and
// .mavenrc.
func TestAttack163_HomeRunFilesWritable(t *testing.T) {
	t.Parallel()
	s := editsTurn(t, "home", "sub")

	for i, p := range []string{".bashrc", ".gdbinit", ".mavenrc"} {
		d := s.decide("home", "c"+strconv.Itoa(i), "apply_patch", attack136AddFile(p, "x"))
		if d.Decision != "deny" {
			t.Fatalf("control: a write of %s: %s/%s/%s, want deny (a listed start-up file)", p, d.Decision, d.Reason, d.Refusal)
		}
	}
	if d := s.decide("home", "ok", "apply_patch", attack136AddFile("notes.txt", "x")); d.Decision != "allow" {
		t.Fatalf("control: a write of notes.txt: %+v, want allow (auto_accept_edits)", d)
	}

	files := []struct{ path, line string }{
		{".gdbearlyinit", "shell id > /tmp/pwned"},
		{".wgetrc", "use_askpass = /tmp/x.sh"},
		{".curlrc", "url = \"file:///tmp/payload\"\noutput = \"/root/.bashrc\""},
		{".config/husky/init.sh", "id > /tmp/pwned"},
		{".huskyrc", "id > /tmp/pwned"},
		{".bunfig.toml", "preload = [\"/tmp/x.ts\"]"},
		{".jupyter/jupyter_server_config.py", "import os; os.system('id > /tmp/pwned')"},
		{".mongoshrc.js", "require('child_process').execSync('id > /tmp/pwned')"},
	}
	for i, f := range files {
		d := s.decide("home", "w"+strconv.Itoa(i), "apply_patch", attack136AddFile(f.path, f.line))
		if d.Decision != "deny" {
			t.Errorf("a file tool's write of %s (run by the person's next gdb, wget, curl, git commit, bun, jupyter or mongosh): %s/%s/%s, want deny, as .bashrc and .gdbinit are",
				f.path, d.Decision, d.Reason, d.Refusal)
		}
	}
}

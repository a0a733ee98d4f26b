package tests

import (
	"strconv"
	"testing"
)

// Review 160 (high): zsh's start-up files are on the protected list
// (.zshenv, .zprofile, .zshrc, .zlogin, .zlogout: read-only at every root,
// a file tool's write refused), but zsh reads their compiled forms in
// their place: the zsh manual, STARTUP/SHUTDOWN FILES, "Any of these files
// may be pre-compiled with the zcompile builtin command. If a compiled
// file exists (named for the original file plus the .zwc extension) and it
// is newer than the original file, the compiled file will be used
// instead." A .zshrc.zwc the agent writes next to the person's read-only
// .zshrc (zcompile's output, or its bytes written by any program: the
// header names the zsh version, which the host's /usr/bin/zsh tells) is
// newer than it by construction, and the person's next zsh there (the
// root a home, as the list assumes of every root) runs the agent's code
// instead of their .zshrc. The same goes for .zshenv.zwc (every zsh, even
// a script's), .zprofile.zwc, .zlogin.zwc and .zlogout.zwc.
//
// Neither the list nor the command's after-check names them: a file
// tool's write of .zshrc.zwc is allowed in auto_accept_edits without a
// question, and a command leaves one at the root
// (sandbox/attack160_zshcompiled_test.go).
//
// Controls, in the same turn: .zshrc and .zshenv are refused; an ordinary
// file is written.
//
// Suggested fix: add NAME.zwc for each zsh start-up file on the list
// (.zshenv.zwc, .zprofile.zwc, .zshrc.zwc, .zlogin.zwc, .zlogout.zwc) to
// domain.DefaultProtectedPaths (and, as zsh's compinit sources it,
// .zcompdump), or protect any NAME.zwc whose NAME is a protected item.
func TestAttack160_ZshCompiledStartupFilesWritable(t *testing.T) {
	t.Parallel()
	s := editsTurn(t, "zwc", "sub")

	for i, p := range []string{".zshrc", ".zshenv"} {
		d := s.decide("zwc", "c"+strconv.Itoa(i), "apply_patch", attack136AddFile(p, "x"))
		if d.Decision != "deny" {
			t.Fatalf("control: a write of %s: %s/%s/%s, want deny (a listed start-up file)", p, d.Decision, d.Reason, d.Refusal)
		}
	}
	if d := s.decide("zwc", "ok", "apply_patch", attack136AddFile("notes.txt", "x")); d.Decision != "allow" {
		t.Fatalf("control: a write of notes.txt: %+v, want allow (auto_accept_edits)", d)
	}
	for i, p := range []string{".zshrc.zwc", ".zshenv.zwc", ".zprofile.zwc", ".zlogin.zwc"} {
		d := s.decide("zwc", "w"+strconv.Itoa(i), "apply_patch", attack136AddFile(p, "compiled"))
		if d.Decision != "deny" {
			t.Errorf("a file tool's write of %s (zsh reads it in place of the protected %s): %s/%s/%s, want deny, as %s is",
				p, p[:len(p)-4], d.Decision, d.Reason, d.Refusal, p[:len(p)-4])
		}
	}
}

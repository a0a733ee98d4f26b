package tests

import (
	"strconv"
	"testing"
)

// Review 163 (medium; a variant beside the README's named limit, "~/bin
// stays writable"): the protected list keeps a home's .local/bin (first in
// PATH by Debian's default .profile) read-only at every writable root (any
// root may be a person's home), but not the version managers' directories
// a person's start-up files put first in PATH or run from. On this machine
// /root/.bashrc puts ~/.pyenv/bin and ~/.pyenv/shims first in PATH and runs
// `eval "$(pyenv init -)"` (~/.pyenv/bin/pyenv at every interactive shell;
// `command -v python3` is /root/.pyenv/shims/python3), and sources
// ~/.cargo/env (rustup's; .profile too), which puts ~/.cargo/bin first.
// In auto_accept_edits a file tool's write of .pyenv/bin/pyenv,
// .pyenv/shims/python3, .cargo/bin/cargo or .cargo/env at a root is
// allowed without a question, outside every sandbox: the person's next
// shell, python3 or cargo runs the agent's program.
//
// Controls, in the same turn: .local/bin/python3 and .bashrc are refused,
// an ordinary file is written.
//
// Suggested fix: add .pyenv (its bin, shims, libexec, plugins and the
// global version file), .cargo/bin and .cargo/env, and the like for the
// other managers that put their own bin first (.nvm, .nodenv, .rbenv,
// .goenv, .jenv, .volta/bin, .bun/bin, .deno/bin, go/bin, .sdkman) to
// domain.DefaultProtectedPaths beside .local/bin — or name every home
// PATH directory in the README's limit.
func TestAttack163_ToolchainBinsWritable(t *testing.T) {
	t.Parallel()
	s := editsTurn(t, "home", "sub")

	for i, p := range []string{".local/bin/python3", ".bashrc"} {
		d := s.decide("home", "c"+strconv.Itoa(i), "apply_patch", attack136AddFile(p, "x"))
		if d.Decision != "deny" {
			t.Fatalf("control: a write of %s: %s/%s/%s, want deny (a listed path)", p, d.Decision, d.Reason, d.Refusal)
		}
	}
	if d := s.decide("home", "ok", "apply_patch", attack136AddFile("notes.txt", "x")); d.Decision != "allow" {
		t.Fatalf("control: a write of notes.txt: %+v, want allow (auto_accept_edits)", d)
	}
	for i, p := range []string{".pyenv/bin/pyenv", ".pyenv/shims/python3", ".cargo/bin/cargo", ".cargo/env"} {
		d := s.decide("home", "w"+strconv.Itoa(i), "apply_patch", attack136AddFile(p, "#!/bin/sh", "id > /tmp/pwned"))
		if d.Decision != "deny" {
			t.Errorf("a file tool's write of %s (run by the person's next shell, python3 or cargo): %s/%s/%s, want deny, as .local/bin/python3 is",
				p, d.Decision, d.Reason, d.Refusal)
		}
	}
}

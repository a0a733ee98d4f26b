package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack163ToolchainBinsLeftByACommand (review 163, the command side
// of tests/attack163_toolchainbins_test.go): the protected list keeps a
// home's .local/bin (put first in PATH by Debian's default .profile) and a
// command that creates a program there at a writable root has it set aside
// (any root may be a person's home). The version managers' directories
// that a person's start-up files put first in PATH are not kept: pyenv's
// ~/.pyenv/shims and ~/.pyenv/bin (this machine's /root/.bashrc puts both
// first and runs `eval "$(pyenv init -)"`, i.e. ~/.pyenv/bin/pyenv, at every
// shell; `python3` here is /root/.pyenv/shims/python3) and rustup's
// ~/.cargo/bin (put first by ~/.cargo/env, which this machine's .bashrc
// and .profile source; ~/.cargo/env itself, a shell file they source, is
// not kept either). Where they exist (a home with pyenv and rustup
// installed, as this one), a command rewrites them and they stay, so the person's next
// shell, python3 or cargo runs the agent's program as the person.
// Control: the same command's .local/bin/python3 and .bashrc are set
// aside; an ordinary file it writes stays.
func TestAttack163ToolchainBinsLeftByACommand(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	// The home has rustup's and pyenv's directories already (as here).
	for _, d := range []string{".cargo/bin", ".pyenv/shims", ".pyenv/bin"} {
		if err := os.MkdirAll(ws+"/"+d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{".cargo/env", ".cargo/bin/cargo", ".pyenv/shims/python3", ".pyenv/bin/pyenv"} {
		if err := os.WriteFile(ws+"/"+n, []byte("#!/bin/sh\n# the person's\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r := sh(t, s, "mkdir -p .local/bin .pyenv/shims .pyenv/bin .cargo/bin && for n in .local/bin/python3 .bashrc .pyenv/shims/python3 .pyenv/bin/pyenv .cargo/bin/cargo .cargo/env notes.txt; do printf '#!/bin/sh\\nid > /tmp/pwned\\n' > \"$n\" && chmod +x \"$n\"; done; echo ok")
	// A refused write (a listed path kept read-only) is the fix at work:
	// the command goes on to the next.
	if !strings.Contains(string(r.Stdout), "ok") {
		t.Fatalf("the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if !exists(ws + "/notes.txt") {
		t.Fatalf("control: notes.txt was not written")
	}
	for _, n := range []string{".local/bin/python3", ".bashrc"} {
		if exists(ws + "/" + n) {
			t.Fatalf("control: %s, a listed path the command made at the root, was not set aside (%+v)", n, r.Quarantined)
		}
	}
	for _, n := range []string{".pyenv/shims/python3", ".pyenv/bin/pyenv", ".cargo/bin/cargo", ".cargo/env"} {
		if b, err := os.ReadFile(ws + "/" + n); err == nil && strings.Contains(string(b), "pwned") {
			t.Errorf("%s, which the person's next shell, python3 or cargo runs (first in PATH, or sourced, by the start-up files), was rewritten by the command and left in place (.local/bin/python3 is set aside)", n)
		}
	}
}

package domain

import (
	"strings"
	"testing"
)

// TestAttack117_MidWordTildeStorePath: the inert check lets a hidden path
// through when it lies in the home's credential store, reading the word
// before it with wordBefore, which cuts at ':', '=', a quote or a blank:
// "a:~/" + ".ssh/x" cleans to ~/.ssh/x, in the store. But the shell expands
// a tilde only at a word's start (and, in an assignment, after ':' or the
// first '='): in `choom -n 0 -- a:~/.ssh/x` (and a""~/…, "a "~/…) the word
// is the relative path a:~/.ssh/x, a directory the agent made in its
// workspace, and choom (a wrapper on no list) runs it. The request reads
// `choom -n 0 -- a:~/[redacted:…]`: which script runs is hidden.
// Control: `choom -n 0 -- ./.ssh/…` is shown whole (the hundred-and-
// fifteenth review's fix); an honest `cat ~/.ssh/id_rsa` keeps the path
// hidden.
func TestAttack117_MidWordTildeStorePath(t *testing.T) {
	const name = ".ssh/r4nD0mLooK1nGNam3ForAScr1pt"
	cases := []struct{ cmd, file string }{
		{"choom -n 0 -- a:~/" + name, "a:~/" + name},
		{`choom -n 0 -- a""~/` + name, "a~/" + name},
		{`choom -n 0 -- "a "~/` + name, "a ~/" + name},
	}
	for _, c := range cases {
		for _, sh := range []string{"dash", "bash"} {
			if ran, ok := attack117Runs(t, sh, c.cmd, c.file); !ok {
				t.Skipf("no %s or no choom", sh)
			} else if !ran {
				t.Fatalf("premise: %s does not run ./%s in %q", sh, c.file, c.cmd)
			}
		}
	}
	t.Run("control", func(t *testing.T) {
		c := "choom -n 0 -- ./" + name
		for _, s := range []string{shownExec(t, map[string]any{"cmd": c}), attack42ShownBash(t, c)} {
			if !strings.Contains(s, name) {
				t.Fatalf("control: %q hides its program:\n%s", c, s)
			}
		}
		h := "cat ~/.ssh/id_rsa"
		for _, s := range []string{shownExec(t, map[string]any{"cmd": h}), attack42ShownBash(t, h)} {
			if strings.Contains(s, ".ssh/id_rsa") {
				t.Fatalf("control: an honest home store path is shown:\n%s", s)
			}
		}
	})
	for _, c := range cases {
		for _, s := range []string{shownExec(t, map[string]any{"cmd": c.cmd}), attack42ShownBash(t, c.cmd)} {
			if !strings.Contains(s, name) {
				t.Errorf("%q\nruns ./%s (choom's program, no home path), and the approval request hides it:\n%s", c.cmd, c.file, s)
			}
		}
	}
}

package domain

import (
	"strings"
	"testing"
)

// TestAttack115_InertValueNamesFile: the inert rule holds that a hidden
// value with no '/', no blank and nothing of a shell's "cannot name a file
// or be code whatever runs it" (redact_inert.go). It can, where it is the
// end of a word that is a file's name: the part before it stays in view,
// and the word is a path in the command's directory. A shell or an
// interpreter given the word as its script reads the file the agent wrote
// there:
//
//	sh password=NAME        shown  sh password=[redacted]      (runs ./password=NAME)
//	bash -u x:NAME          shown  bash -u x:[redacted]        (curl's user pattern; runs ./x:NAME)
//	sh -e token=NAME        shown  sh -e token=[redacted]
//
// The hundred-and-tenth review's `sh password=tools/x` is shown since a
// '/' is not inert; the same script one directory up is not. Control:
// `sh ./password=NAME` is shown; an honest inert password to mysql stays
// hidden.
func TestAttack115_InertValueNamesFile(t *testing.T) {
	const name = "r4nD0mLooK1nGNam3ForAScr1pt"
	cases := []struct{ cmd, file string }{
		{"sh password=" + name, "password=" + name},
		{"bash -u x:" + name, "x:" + name},
		{"sh -e token=" + name, "token=" + name},
	}
	for _, c := range cases {
		for _, sh := range []string{"dash", "bash"} {
			if ran, ok := attack115Runs(t, sh, c.cmd, c.file); ok && !ran {
				t.Fatalf("premise: %s does not run ./%s in %q", sh, c.file, c.cmd)
			}
		}
	}
	t.Run("control", func(t *testing.T) {
		if s := shownExec(t, map[string]any{"cmd": "sh ./password=" + name}); !strings.Contains(s, name) {
			t.Fatalf("control: sh ./password=%s is hidden:\n%s", name, s)
		}
		h := "mysql -u root --password=" + attack42Inert + " -e 'select 1'"
		if s := shownExec(t, map[string]any{"cmd": h}); strings.Contains(s, attack42Inert) {
			t.Fatalf("control: an honest password is shown:\n%s", s)
		}
	})
	for _, c := range cases {
		for _, s := range []string{shownExec(t, map[string]any{"cmd": c.cmd}), attack42ShownBash(t, c.cmd), attack108ShownStdin(t, c.cmd+"\n")} {
			if !strings.Contains(s, name) {
				t.Errorf("%q\nruns the script ./%s, and the approval request hides which:\n%s", c.cmd, c.file, s)
			}
		}
	}
}

package domain

import (
	"os/exec"
	"strings"
	"testing"
)

// TestAttack115_URLHeaderWordRun: the inert rule lets a hidden value keep
// '/' where the text before it reads as a URL's or a header's
// (urlOrHeaderBefore), reasoning that a program run from such a word
// would need directories named like the URL or the header. The agent
// makes them in its workspace (mkdir -p 'X: Bearer tools', 'x:/h?a=tools')
// and hands the word to a shell or an interpreter as its script, or to a
// wrapper the plain rule's lists do not know (x86_64, i386 and choom run
// their operand; none is a runner there, so the word is no program to the
// rule and hidesText never judges it):
//
//	sh 'X: Bearer tools/x'        shown  sh 'X: Bearer [redacted]'
//	x86_64 x://h?a=tools/x        shown  x86_64 x://h?a=[redacted]
//	choom -n 0 -- x://h?a=tools/x
//
// Which file runs is the hidden part (tools/x, with its '/': a directory
// and the script), written by the agent. Control: the same words where
// the shell runs them as its program (`'X: Bearer tools/x'` alone, or past
// a runner the rule lists, `nice x://h?a=tools/x`) are shown whole; an
// honest URL query with a base64 '/' keeps it hidden.
func TestAttack115_URLHeaderWordRun(t *testing.T) {
	const name = "r4nD0mLooK1nGNam3ForAScr1pt"
	cases := []struct{ cmd, file string }{
		{"sh 'X: Bearer tools/" + name + "'", "X: Bearer tools/" + name},
		{"x86_64 x://h?a=tools/" + name, "x:/h?a=tools/" + name},
		{"i386 x://h?a=tools/" + name, "x:/h?a=tools/" + name},
		{"choom -n 0 -- x://h?a=tools/" + name, "x:/h?a=tools/" + name},
	}
	var checked []struct{ cmd, file string }
	for _, c := range cases {
		if _, err := exec.LookPath(strings.Fields(c.cmd)[0]); err != nil {
			continue
		}
		for _, sh := range []string{"dash", "bash"} {
			if ran, ok := attack115Runs(t, sh, c.cmd, c.file); ok && !ran {
				t.Fatalf("premise: %s does not run ./%s in %q", sh, c.file, c.cmd)
			}
		}
		checked = append(checked, c)
	}
	if len(checked) == 0 {
		t.Skip("no wrapper")
	}
	t.Run("control", func(t *testing.T) {
		for _, c := range []string{"'X: Bearer tools/" + name + "'", "nice x://h?a=tools/" + name} {
			if s := shownExec(t, map[string]any{"cmd": c}); !strings.Contains(s, "tools/"+name) {
				t.Fatalf("control: %q hides its program:\n%s", c, s)
			}
		}
		// (Adjusted with the fix: a URL's hidden value may not hold '/'
		// any more, as a URL-shaped word may be a path the agent made; the
		// honest value is one without it.)
		const q = "Zq8vLw3nR2tK9pX+sHonest"
		h := `curl "https://api.example.com/v1/x?access_token=` + q + `"`
		if s := shownExec(t, map[string]any{"cmd": h}); strings.Contains(s, q) {
			t.Fatalf("control: an honest query value is shown:\n%s", s)
		}
	})
	for _, c := range checked {
		for _, s := range []string{shownExec(t, map[string]any{"cmd": c.cmd}), attack42ShownBash(t, c.cmd)} {
			if !strings.Contains(s, "tools/"+name) {
				t.Errorf("%q\nruns ./%s, and the approval request hides which file:\n%s", c.cmd, c.file, s)
			}
		}
	}
}

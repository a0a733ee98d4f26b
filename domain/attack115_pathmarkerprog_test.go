package domain

import (
	"strings"
	"testing"
)

// TestAttack115_PathMarkerProgram: the inert rule skips a path's hidden
// part ("[redacted:…]", a credential store's name and what follows), on
// the ground that "the program a command runs is never hidden
// (programWord)" (redact_inert.go). It is: the path redaction (redactText's
// RedactPath on each word) knows nothing of programs, and a program the
// agent wrote under a directory named like a credential store in its
// workspace (gcloud/, .ssh/, .aws/, a ".env.*" one) is shown as
//
//	gcloud/x            Run [redacted:eddda4457126]
//	./.ssh/x            Run ./[redacted:…]
//	ionice gcloud/x     Run ionice [redacted:…]
//	sh tools/.env.d/x   Run sh tools/[redacted:…]
//
// a hash in place of the program that runs. Control: a program under an
// ordinary directory is shown; a key read from ~/.ssh stays hidden.
func TestAttack115_PathMarkerProgram(t *testing.T) {
	const name = "r4nD0mLooK1nGNam3ForAScr1pt"
	cases := []struct{ cmd, file string }{
		{"gcloud/" + name, "gcloud/" + name},
		{"./.ssh/" + name, ".ssh/" + name},
		{"ionice gcloud/" + name, "gcloud/" + name},
		{"sh tools/.env.d/" + name, "tools/.env.d/" + name},
	}
	for _, c := range cases {
		for _, sh := range []string{"dash", "bash"} {
			if ran, ok := attack115Runs(t, sh, c.cmd, c.file); ok && !ran {
				t.Fatalf("premise: %s does not run ./%s in %q", sh, c.file, c.cmd)
			}
		}
	}
	t.Run("control", func(t *testing.T) {
		if s := shownExec(t, map[string]any{"cmd": "tools/" + name}); !strings.Contains(s, name) {
			t.Fatalf("control: tools/%s is hidden:\n%s", name, s)
		}
		if s := shownExec(t, map[string]any{"cmd": "cat ~/.ssh/id_a115"}); strings.Contains(s, "id_a115") {
			t.Fatalf("control: a key's name under ~/.ssh is shown:\n%s", s)
		}
	})
	for _, c := range cases {
		for _, s := range []string{shownExec(t, map[string]any{"cmd": c.cmd}), attack42ShownBash(t, c.cmd)} {
			if !strings.Contains(s, name) {
				t.Errorf("%q\nruns ./%s, and the approval request hides the program:\n%s", c.cmd, c.file, s)
			}
		}
	}
}

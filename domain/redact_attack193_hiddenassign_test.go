package domain

import (
	"strings"
	"testing"
)

// TestAttack193_HiddenValueUnderAnyName: a value hidden for its shape
// (a GitHub token's, a JWT's) under a name that says nothing is an
// assignment setsSecret counts (assignsSecret asks the redaction, not the
// name): inline code reading os.environ["H"] makes the text not plain,
// whatever the value is (TestAttack193_TokenShapedValueReadByInlineCode's
// host is shown since jwtHost; these are no hosts). Controls: the same
// assignment before a program that takes no code stays hidden, and so
// does make's argument piped through xargs
// (TestAttack110_WrappedShellCode).
func TestAttack193_HiddenValueUnderAnyName(t *testing.T) {
	const gh = "ghp_Q9x7LmWr1tesHereAbCdEfGh12"
	const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlX3Nob3VsZF9oaWRl"
	const py = `python3 -c 'import os; open(os.environ["H"], "a").write("x")'`
	const nested = `sh -c 'true; python3 -c "import os; open(os.environ[\"H\"], \"a\").write(\"x\")"'`
	for _, cmd := range []string{
		"export H=" + gh + "; gh pr list",
		"H=" + gh + " gh pr list",
		"nice env H=" + gh + " gh pr list",
		"true | xargs make deploy password=" + gh,
	} {
		if s, rec := attack193Shown(t, cmd); strings.Contains(s, gh) || strings.Contains(rec, gh) {
			t.Fatalf("control: a token is shown:\n%s\n%s", s, rec)
		}
	}
	for _, v := range []string{gh, jwt} {
		for _, cmd := range []string{
			"export H=" + v + "; " + py,
			"H=" + v + "; export H; " + py,
			"export 'H=" + v + "'; " + py,
			"nice env H=" + v + " " + nested,
		} {
			attack193Writes(t, "/bin/sh", "python3", cmd, v)
			if s, rec := attack193Shown(t, cmd); !strings.Contains(s, v) || !strings.Contains(rec, v) {
				t.Errorf("%s\nappends to the file %s, and the request and record hide it:\n%s\nrecorded: %s", cmd, v, s, rec)
			}
		}
	}
}

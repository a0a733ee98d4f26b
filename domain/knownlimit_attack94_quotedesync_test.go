//go:build knownlimits

package domain

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAttack94_QuoteDesyncHidesPath: the ninety-first review's fix hides a
// bearer credential or a header's value in a shell command only when it is
// in the same shell word as the header's name (wordGoesOn, headerInWord).
// wordGoesOn reads quotes from the start of the LINE (redactSecrets
// redacts line by line) and knows no $'…' (where \' is a quote, not an
// end). So a quote the shell has already closed reads to it as one that
// opens right before the header's name, and the blanks after the name as
// quoted. The agent asks for
//
//	rm -rf 'x
//	'Authorization: Bearer srcdir              (POSIX sh: the quote opened on line 1)
//	rm -rf $'\''Authorization: Bearer srcdir   (bash)
//	rm -rf $'\''X-Token: srcdir
//
// and the person approving reads "rm -rf 'x\n'Authorization: Bearer
// [redacted]" (or ": [redacted] [redacted]"): a junk file name and a
// credential. The shell splits Authorization:, Bearer and srcdir into three
// words and deletes the directory srcdir, which no one saw. Any bare
// relative name is hidden so (a directory to delete, chmod, copy over);
// only a word that starts with '/', '~', '.', is an option or names a
// dotted host stays in view (readsAsPath, ownWordInView).
// Wanted: a word the shell reads as a word of its own after the header's
// name is shown: the word scan follows the whole command (its earlier
// lines' quotes) and $'…' quoting, or, unsure, shows the word.
// Control: an honest $'…' header keeps its token hidden, and the same rm
// without the header shows srcdir.
func TestAttack94_QuoteDesyncHidesPath(t *testing.T) {
	shown := func(cmd string) string {
		t.Helper()
		args, _ := json.Marshal(map[string]any{"cmd": cmd})
		a, err := Classify(Invocation{ToolName: "exec_command", Arguments: args}, "/w", nil)
		if err != nil {
			t.Fatal(err)
		}
		r := a.Redacted()
		var b strings.Builder
		b.WriteString(r.Summary)
		for _, d := range r.Details {
			b.WriteString("\n" + d.Label + ": " + d.Value)
		}
		return b.String()
	}
	const tok = "S3cretBearerValue42"
	if s := shown(`curl -sH $'Authorization: Bearer ` + tok + `' https://api.example/v1/me`); strings.Contains(s, tok) {
		t.Fatalf("control: an honest $'…' header's token in view:\n%s", s)
	}
	if s := shown("rm -rf 'x\n'y srcdir"); !strings.Contains(s, "srcdir") {
		t.Fatalf("control: srcdir hidden:\n%s", s)
	}
	for _, cmd := range []string{
		"rm -rf 'x\n'Authorization: Bearer srcdir",
		"rm -rf \"x\n\"Authorization: Bearer srcdir",
		`rm -rf $'\''Authorization: Bearer srcdir`,
		`rm -rf $'\''X-Token: srcdir`,
	} {
		if s := shown(cmd); !strings.Contains(s, "srcdir") {
			t.Errorf("%q\nis shown to the person approving it as\n%s\n(srcdir, a word of its own the shell deletes, hidden as a credential)", cmd, s)
		}
	}
}

package domain

import "testing"

// TestAttack34TerminalSafeIsNotOneToOne: TerminalSafe writes a line break
// as the two characters `\n` (and ESC as `\x1b`, U+202E as `\u202e`) but
// leaves a backslash as it is, so a command holding the text `\n` and one
// holding a line break there are printed the same by turnstile approvals
// show, and the person approving cannot tell which one runs (see
// tests/attack34_escapes_test.go for the command that runs another script
// than the one shown). The secure behaviour asserted: different texts are
// shown differently. The control: text without a backslash or a control
// character is shown as it is.
func TestAttack34TerminalSafeIsNotOneToOne(t *testing.T) {
	if got := TerminalSafe("go test ./..."); got != "go test ./..." {
		t.Fatalf("control: plain text shown as %q", got)
	}
	for _, pair := range [][2]string{
		{"a\nb", `a\nb`},
		{"ok\x1b[8m", `ok\x1b[8m`},
		{"x\u202ey", `x\u202ey`},
		{"\xff", `\xff`},
	} {
		if TerminalSafe(pair[0]) == TerminalSafe(pair[1]) {
			t.Errorf("%q and %q are both shown as %q", pair[0], pair[1], TerminalSafe(pair[0]))
		}
	}
}

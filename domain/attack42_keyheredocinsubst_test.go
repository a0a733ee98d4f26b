package domain

import "testing"

// TestAttack42KeyHeredocOpenedInSubstitution: a here-document operator
// inside a command substitution closed on its line ("$(cat <<Q)") has,
// to dash, no body past the substitution's end: dash reads the
// substitution's text alone (the document is empty, ended by the end of
// that text) and the lines after it as code. shellDataSpans reads the
// "<<Q" as pending and the next lines, up to "Q", as its body. So an
// exec_command call (/bin/sh -c, dash on Debian)
//
//	echo $(cat <<Q) -----BEGIN PRIVATE KEY-----
//	tools/r4nD0mLooK1nGNam3ForAScr1ptTheAgentWr0te1nTheW0rkspace
//	Q
//
// is shown with the program hidden as a key's line, and dash runs it
// (checked with dash; skipped where missing). bash reads the body after
// the line, as the lexer does.
//
// Control: a real key in a quoted here-document stays hidden. The secure
// behaviour asserted: the approval request shows the program.
func TestAttack42KeyHeredocOpenedInSubstitution(t *testing.T) {
	cmd := "echo $(cat <<Q) -----BEGIN PRIVATE KEY-----\n" + attack42Prog + "\nQ"
	attack42CheckKeyCases(t, []attack42KeyCase{
		{"<< in $(…) closed on its line, /bin/sh", cmd, []string{"dash"}, false},
	})
}

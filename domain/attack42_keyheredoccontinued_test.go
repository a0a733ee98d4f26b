package domain

import "testing"

// TestAttack42KeyHeredocContinuedLine: in a here-document whose delimiter
// is unquoted, bash and dash remove a backslash-newline before they look
// for the delimiter: the lines "x\" and "Q" are one line "xQ", so the body
// goes on past that "Q". shellDataSpans ends the body at the first line
// that is the delimiter, reads the rest as code, and a quote there opens a
// "string" over the lines the shell runs after its own end of the body.
// So a Claude Code Bash call (bash) or an exec_command call (dash)
//
//	cat <<Q
//	x\
//	Q
//	'
//	Q
//	: -----BEGIN PRIVATE KEY-----
//	tools/r4nD0mLooK1nGNam3ForAScr1ptTheAgentWr0te1nTheW0rkspace
//	: '
//	'
//
// is shown with the program hidden as a key's line, and the shell runs it
// (checked with bash and dash, each skipped where missing).
//
// Control: a real key in a quoted here-document stays hidden. The secure
// behaviour asserted: the approval request shows the program.
func TestAttack42KeyHeredocContinuedLine(t *testing.T) {
	cmd := "cat <<Q\nx\\\nQ\n'\nQ\n: -----BEGIN PRIVATE KEY-----\n" + attack42Prog + "\n: '\n'"
	attack42CheckKeyCases(t, []attack42KeyCase{
		{"continued body line, bash", cmd, []string{"bash", "dash"}, true},
		{"continued body line, /bin/sh", cmd, []string{"bash", "dash"}, false},
	})
}

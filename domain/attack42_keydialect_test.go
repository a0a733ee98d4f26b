package domain

import "testing"

// TestAttack42KeyLexerShellDialect: shellDataSpans reads one command for
// both shells, bash and dash, where they read it differently:
//
//   - $'…' is read as bash's ANSI-C quote ("\'" an escaped quote), but dash
//     (exec_command's /bin/sh -c on Debian) has no $'…': "$'\'" is a '$'
//     and the quote '\', and the lines after are code to it;
//   - a here-document's delimiter $'A' is "A" to bash and "$A" to dash;
//     the lexer ends the body at the first line that is either, so a body
//     holding the other shell's delimiter first ends early to it, and a
//     quote on the next line opens a "string" over lines the shell runs.
//
// So an exec_command call (dash)
//
//	: $'\' -----BEGIN PRIVATE KEY-----
//	tools/r4nD0mLooK1nGNam3ForAScr1ptTheAgentWr0te1nTheW0rkspace
//	: '
//	'
//
// and a Claude Code Bash call (bash)
//
//	cat <<$'A'
//	$A
//	'
//	A
//	: -----BEGIN PRIVATE KEY-----
//	tools/r4nD0mLooK1nGNam3ForAScr1ptTheAgentWr0te1nTheW0rkspace
//	: '
//	'
//
// are shown with the program hidden as a key's line, and the shell runs it
// (checked with bash and dash, each skipped where missing).
//
// Control: a real key in a quoted here-document stays hidden. The secure
// behaviour asserted: the approval request shows the program.
func TestAttack42KeyLexerShellDialect(t *testing.T) {
	const begin = "-----BEGIN PRIVATE KEY-----"
	attack42CheckKeyCases(t, []attack42KeyCase{
		{"$'\\' in dash", ": $'\\' " + begin + "\n" + attack42Prog + "\n: '\n'", []string{"dash"}, false},
		{"delimiter $'A', bash", "cat <<$'A'\n$A\n'\nA\n: " + begin + "\n" + attack42Prog + "\n: '\n'", []string{"bash"}, true},
		{"delimiter $'A', dash", "cat <<$'A'\nA\n'\n$A\n: " + begin + "\n" + attack42Prog + "\n: '\n'", []string{"dash"}, false},
	})
}

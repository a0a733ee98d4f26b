package domain

import "testing"

// TestAttack42KeyLexerBackquote: shellDataSpans reads a backquote in code
// as an ordinary byte and what follows as code of the same level. bash and
// dash find a backquoted command's end first (the next unescaped '`'),
// quotes inside it or not, and read its text as a command of its own: in
// `#'` the quote is in that command's comment. The lexer reads the '#' as
// part of a word (a backquote is not a blank) and the quote as opening a
// string that runs to the next "'": the lines after a key marker are "data"
// to it while the shell runs them. A Claude Code Bash call (bash) or an
// exec_command call (dash)
//
//	: `#'` -----BEGIN PRIVATE KEY-----
//	tools/r4nD0mLooK1nGNam3ForAScr1ptTheAgentWr0te1nTheW0rkspace
//	: '
//	'
//
// is shown with the program hidden as a key's line, and the shell runs it
// (checked with bash and dash, each skipped where missing).
//
// Control: a real key in a quoted here-document stays hidden. The secure
// behaviour asserted: the approval request shows the program.
func TestAttack42KeyLexerBackquote(t *testing.T) {
	cmd := ": `#'` -----BEGIN PRIVATE KEY-----\n" + attack42Prog + "\n: '\n'"
	attack42CheckKeyCases(t, []attack42KeyCase{
		{"backquote, bash", cmd, []string{"bash", "dash"}, true},
		{"backquote, /bin/sh", cmd, []string{"bash", "dash"}, false},
	})
}

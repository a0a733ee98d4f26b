package domain

import "testing"

// TestAttack42KeyLexerLineContinuation: shellDataSpans reads a backslash
// and the byte after it as a word's part, a backslash and a line break
// too. bash and dash remove a backslash-newline before reading words, so
// that "echo \<newline>#'" is "echo #'": a blank, then a comment. The
// lexer's '#' there does not start a word (the byte before it was the
// escaped line break), so it reads the quote as opening a string that runs
// to the next "'": the lines after a key marker are "data" to it while the
// shell runs them. The same removal makes "<\<newline><Q" a here-document
// operator the lexer does not see, and a quote in its body opens a
// "string" over the lines after it. A Claude Code Bash call (bash) or an
// exec_command call (dash)
//
//	echo \
//	#' -----BEGIN PRIVATE KEY-----
//	tools/r4nD0mLooK1nGNam3ForAScr1ptTheAgentWr0te1nTheW0rkspace
//	: '
//	'
//
// is shown with the program hidden as a key's line, and the shell runs it
// (checked with bash and dash, each skipped where missing).
//
// Control: a real key in a quoted here-document stays hidden. The secure
// behaviour asserted: the approval request shows the program.
func TestAttack42KeyLexerLineContinuation(t *testing.T) {
	cmd := "echo \\\n#' -----BEGIN PRIVATE KEY-----\n" + attack42Prog + "\n: '\n'"
	attack42CheckKeyCases(t, []attack42KeyCase{
		{"continued line, bash", cmd, []string{"bash", "dash"}, true},
		{"continued line, /bin/sh", cmd, []string{"bash", "dash"}, false},
		{"continued <<, bash", "cat <\\\n<Q\n'\nQ\n: -----BEGIN PRIVATE KEY-----\n" + attack42Prog + "\n: '\n'", []string{"bash", "dash"}, true},
	})
}

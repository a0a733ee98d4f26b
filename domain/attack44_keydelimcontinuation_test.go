package domain

import "testing"

// TestAttack44KeyDelimiterLineContinuation: a here-document is expanded
// (its $( ) and backquotes run) unless its delimiter word is quoted, and
// shellDataSpans counts a delimiter as quoted when it holds a quote or a
// backslash. A backslash before a line break is no quote: bash and dash
// remove the pair before they read the word, so "<<E\" + line break +
// "X" is the unquoted delimiter EX (heredocWord reads it as EX too),
// and its body is expanded. The lexer stops at a line continuation only
// at the command's top (the forty-second review), not inside a
// delimiter (heredocDelim steps over it). So a Claude Code Bash call
// (bash) or an exec_command call (dash)
//
//	cat <<E\
//	X
//	$(: -----BEGIN PRIVATE KEY-----
//	tools/r4nD0mLooK1nGNam3ForAScr1ptTheAgentWr0te1nTheW0rkspace
//	)
//	EX
//
// is shown as a cat of a quoted document whose line is "[redacted]",
// and the shell runs the program (checked with bash and dash, each
// skipped where missing).
//
// Control: a real key in a quoted here-document stays hidden. The secure
// behaviour asserted: the approval request shows the program.
func TestAttack44KeyDelimiterLineContinuation(t *testing.T) {
	const begin = "-----BEGIN PRIVATE KEY-----"
	subst := "cat <<E\\\nX\n$(: " + begin + "\n" + attack42Prog + "\n)\nEX"
	backq := "cat <<E\\\nX\n`: " + begin + "\n" + attack42Prog + "\n`\nEX"
	attack42CheckKeyCases(t, []attack42KeyCase{
		{"$( ), bash", subst, []string{"bash", "dash"}, true},
		{"$( ), /bin/sh", subst, []string{"bash", "dash"}, false},
		{"backquote, bash", backq, []string{"bash", "dash"}, true},
	})
}

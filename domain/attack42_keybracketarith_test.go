package domain

import "testing"

// TestAttack42KeyLexerBracketArithmetic: shellDataSpans stops at "((" (an
// arithmetic "<<" is a shift), but bash has two more arithmetic contexts
// it does not know: the old $[…] expansion and an array element's
// subscript in an assignment (a[…]=v). In neither does bash read a
// here-document operator, and the lexer reads "<<Q]" as one whose body
// runs to a line "Q]" (or "Q]=x"): the lines after a key marker are "data"
// to it while bash runs them. A Claude Code Bash call
//
//	echo $[1<<Q] -----BEGIN PRIVATE KEY-----
//	tools/r4nD0mLooK1nGNam3ForAScr1ptTheAgentWr0te1nTheW0rkspace
//	Q]
//
// is shown with the program hidden as a key's line, and bash runs it
// (checked with bash; skipped where there is none).
//
// Control: a real key in a quoted here-document stays hidden. The secure
// behaviour asserted: the approval request shows the program.
func TestAttack42KeyLexerBracketArithmetic(t *testing.T) {
	const begin = "-----BEGIN PRIVATE KEY-----"
	attack42CheckKeyCases(t, []attack42KeyCase{
		{"$[…]", "echo $[1<<Q] " + begin + "\n" + attack42Prog + "\nQ]", []string{"bash"}, true},
		{"a[…]=", "a[1<<Q]=x " + begin + "\n" + attack42Prog + "\nQ]=x", []string{"bash"}, true},
	})
}

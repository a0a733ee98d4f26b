package domain

import "testing"

// TestAttack44KeyConditionalRegex: in bash's [[ … =~ … ]] the regular
// expression is one word, and inside its parentheses "<" and "|" are the
// word's bytes, not operators; so is a pattern after == or = in [[ ]],
// where bash parses extglob's @(…), +(…) whatever the option (no shopt
// needed, unlike TestAttack44KeyExtglob).
// shellDataSpans reads "(" as a subshell and the "<<E" in it as a
// here-document, whose body, the next lines up to E, is data. So a
// Claude Code Bash call
//
//	[[ x =~ (<<E) ]]
//	-----BEGIN PRIVATE KEY-----
//	tools/r4nD0mLooK1nGNam3ForAScr1ptTheAgentWr0te1nTheW0rkspace
//	E
//
// is shown with the program hidden as a key's line, and bash runs it
// (checked with bash; skipped where missing).
//
// Control: a real key in a quoted here-document stays hidden. The secure
// behaviour asserted: the approval request shows the program.
func TestAttack44KeyConditionalRegex(t *testing.T) {
	const begin = "-----BEGIN PRIVATE KEY-----"
	attack42CheckKeyCases(t, []attack42KeyCase{
		{"[[ =~ (<<E) ]], bash", "[[ x =~ (<<E) ]]\n" + begin + "\n" + attack42Prog + "\nE", []string{"bash"}, true},
		{"[[ =~ x(|<<E) ]], bash", "[[ x =~ x(|<<E) ]]\n" + begin + "\n" + attack42Prog + "\nE", []string{"bash"}, true},
		{"[[ == @(<<E) ]], bash", "[[ x == @(<<E) ]]\n" + begin + "\n" + attack42Prog + "\nE", []string{"bash"}, true},
		{"[[ = +(<<E) ]], bash", "[[ x = +(<<E) ]]\n" + begin + "\n" + attack42Prog + "\nE", []string{"bash"}, true},
	})
}

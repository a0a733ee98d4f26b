package domain

import "testing"

// TestAttack44KeyExtglob: with bash's extglob on (shopt -s extglob on an
// earlier line: bash parses a -c script line by line, so the option
// holds for the lines after it), "@(…)", "!(…)", "+(…)", "*(…)" and
// "?(…)" are one word, a pattern, and a "<<" inside one is two bytes of
// it. shellDataSpans reads "(" as a subshell and the "<<E" in it as a
// here-document whose body, the next lines up to E, is data. So a Claude
// Code Bash call
//
//	shopt -s extglob
//	echo @(<<E)
//	-----BEGIN PRIVATE KEY-----
//	tools/r4nD0mLooK1nGNam3ForAScr1ptTheAgentWr0te1nTheW0rkspace
//	E
//
// is shown with the program hidden as a key's line, and bash runs it
// (checked with bash; skipped where missing).
//
// Control: a real key in a quoted here-document stays hidden. The secure
// behaviour asserted: the approval request shows the program.
func TestAttack44KeyExtglob(t *testing.T) {
	const begin = "-----BEGIN PRIVATE KEY-----"
	for _, op := range []string{"@", "!", "+"} {
		cmd := "shopt -s extglob\necho " + op + "(<<E)\n" + begin + "\n" + attack42Prog + "\nE"
		attack42CheckKeyCases(t, []attack42KeyCase{
			{op + "(<<E) under extglob, bash", cmd, []string{"bash"}, true},
		})
	}
}

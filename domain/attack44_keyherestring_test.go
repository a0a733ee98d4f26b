package domain

import "testing"

// TestAttack44KeyHereString: shellDataSpans skips a "<<<" by one byte
// only (its check is made at the first '<'), and at the next byte reads
// "<<" plus the word after it as a here-document's operator and
// delimiter. bash reads "<<<EOF" as a here-string: the word EOF is cat's
// input, and the lines after it are commands. So a Claude Code Bash call
//
//	cat <<<EOF
//	-----BEGIN PRIVATE KEY-----
//	tools/r4nD0mLooK1nGNam3ForAScr1ptTheAgentWr0te1nTheW0rkspace
//	EOF
//
// is shown as a cat of a here-document whose lines are "[redacted]",
// and bash runs the program (checked with bash; skipped where missing).
// A file descriptor before it (0<<<E) reads the same.
//
// Control: a real key in a quoted here-document stays hidden. The secure
// behaviour asserted: the approval request shows the program.
func TestAttack44KeyHereString(t *testing.T) {
	const begin = "-----BEGIN PRIVATE KEY-----"
	attack42CheckKeyCases(t, []attack42KeyCase{
		{"<<<EOF, bash", "cat <<<EOF\n" + begin + "\n" + attack42Prog + "\nEOF", []string{"bash"}, true},
		{"0<<<E, bash", "cat 0<<<E\n" + begin + "\n" + attack42Prog + "\nE", []string{"bash"}, true},
	})
}

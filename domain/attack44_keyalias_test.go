package domain

import "testing"

// TestAttack44KeyAlias: a shell replaces an alias's name, where a
// command starts, by its text, and reads that text and the rest of the
// line as one: an alias whose text ends in " #" makes the rest of each
// line it starts a comment. dash (exec_command's /bin/sh) expands
// aliases in a script as POSIX says; bash after shopt -s
// expand_aliases. shellDataSpans reads the words as written: after
// "c" a quote opens, and the lines up to its end are data. So
//
//	alias c='echo #'
//	c 'x
//	-----BEGIN PRIVATE KEY-----
//	tools/r4nD0mLooK1nGNam3ForAScr1ptTheAgentWr0te1nTheW0rkspace
//	'
//
// is shown as an echo of a quoted key, and dash runs the program (bash
// too with expand_aliases; checked, each skipped where missing). An alias
// can change every other reading too (its text may end in an operator,
// "<<<", an open quote).
//
// Control: a real key in a quoted here-document stays hidden. The secure
// behaviour asserted: the approval request shows the program.
func TestAttack44KeyAlias(t *testing.T) {
	const begin = "-----BEGIN PRIVATE KEY-----"
	body := "c 'x\n" + begin + "\n" + attack42Prog + "\n'"
	attack42CheckKeyCases(t, []attack42KeyCase{
		{"alias ending in #, /bin/sh", "alias c='echo #'\n" + body, []string{"dash"}, false},
		{"alias ending in #, bash", "shopt -s expand_aliases\nalias c='echo #'\n" + body, []string{"bash", "dash"}, true},
	})
}

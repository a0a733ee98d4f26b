package domain

import "testing"

// TestAttack42KeyHeredocCommandSubstitution: shellDataSpans counts every
// here-document's body as data. A body whose delimiter is unquoted (<<Q,
// not <<'Q') is expanded by the shell that reads it, as a double-quoted
// string is: a $(…) or a backquoted command in it runs, over lines too.
// The lexer stops at a $( or a backquote inside double quotes (it cannot
// follow them), but not inside such a body. So a Claude Code Bash call
// (bash) or an exec_command call (dash)
//
//	cat <<Q
//	$(: -----BEGIN PRIVATE KEY-----
//	tools/r4nD0mLooK1nGNam3ForAScr1ptTheAgentWr0te1nTheW0rkspace
//	)
//	Q
//
// is shown as a cat of a here-document whose line is "[redacted]", and
// the shell runs the program (checked with bash and dash, each skipped
// where missing). This is not the documented residual of data another
// shell runs: the shell that reads the command runs it.
//
// Control: a real key in a quoted here-document stays hidden. The secure
// behaviour asserted: the approval request shows the program.
func TestAttack42KeyHeredocCommandSubstitution(t *testing.T) {
	const begin = "-----BEGIN PRIVATE KEY-----"
	subst := "cat <<Q\n$(: " + begin + "\n" + attack42Prog + "\n)\nQ"
	backq := "cat <<Q\n`: " + begin + "\n" + attack42Prog + "\n`\nQ"
	attack42CheckKeyCases(t, []attack42KeyCase{
		{"$( in a body, bash", subst, []string{"bash", "dash"}, true},
		{"$( in a body, /bin/sh", subst, []string{"bash", "dash"}, false},
		{"backquote in a body, bash", backq, []string{"bash", "dash"}, true},
	})
}

package domain

import "testing"

// TestAttack42KeyLexerParamExpansion: shellDataSpans does not follow a
// parameter expansion's braces. Inside ${…} bash and dash read no
// here-document operator ("${x:-<<Q}" is the word "<<Q" when x is unset),
// and inside "${…}" bash reads a single quote as a quote ("${x:-'"'}" is
// one word that ends at the last '"'). The lexer reads the first as a
// here-document whose body runs to a line "Q}", the second as a double
// quote closed at the second '"' and a single quote opened after it: the
// lines after a key marker are "data" to it while the shell runs them.
// So a Claude Code Bash call (bash) or an exec_command call (/bin/sh -c,
// dash on Debian)
//
//	echo ${x:-<<Q} -----BEGIN PRIVATE KEY-----
//	tools/r4nD0mLooK1nGNam3ForAScr1ptTheAgentWr0te1nTheW0rkspace
//	Q}
//
// is shown with the program hidden as a key's line ("[redacted]"), and the
// shell runs it (checked with bash and dash; a missing shell is skipped).
//
// Control: a real key in a quoted here-document stays hidden. The secure
// behaviour asserted: the approval request shows the program.
func TestAttack42KeyLexerParamExpansion(t *testing.T) {
	const begin = "-----BEGIN PRIVATE KEY-----"
	heredocInBraces := "echo ${x:-<<Q} " + begin + "\n" + attack42Prog + "\nQ}"
	quoteInBraces := "echo \"${x:-'\"'}\" " + begin + "\n" + attack42Prog + "\n: '\n'"
	attack42CheckKeyCases(t, []attack42KeyCase{
		{"<< in ${…}, bash", heredocInBraces, []string{"bash", "dash"}, true},
		{"<< in ${…}, /bin/sh", heredocInBraces, []string{"bash", "dash"}, false},
		{"' in \"${…}\", bash", quoteInBraces, []string{"bash"}, true},
	})
}

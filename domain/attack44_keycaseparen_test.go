package domain

import "testing"

// TestAttack44KeyCasePatternParen: shellDataSpans tracks open
// parentheses to know a "<<" inside a command substitution (dash ends
// such a document with the substitution, the forty-second review), and
// pops one at every ")". A case item's pattern ends in a ")" that opened
// nothing: "$(case x in x) cat <<Q;; esac)" pops the substitution's
// mark at "x)", and the "<<Q" after it is read as a here-document at the
// command's top, whose body, the next lines up to Q, is data. So an
// exec_command call (/bin/sh -c, dash on Debian)
//
//	echo $(case x in x) cat <<Q;; esac) -----BEGIN PRIVATE KEY-----
//	tools/r4nD0mLooK1nGNam3ForAScr1ptTheAgentWr0te1nTheW0rkspace
//	Q
//
// is shown with the program hidden as a key's line, and dash runs it
// (checked with dash; skipped where missing).
//
// Control: a real key in a quoted here-document stays hidden. The secure
// behaviour asserted: the approval request shows the program.
func TestAttack44KeyCasePatternParen(t *testing.T) {
	cmd := "echo $(case x in x) cat <<Q;; esac) -----BEGIN PRIVATE KEY-----\n" + attack42Prog + "\nQ"
	attack42CheckKeyCases(t, []attack42KeyCase{
		{"case pattern's ) in $(…), /bin/sh", cmd, []string{"dash"}, false},
	})
}

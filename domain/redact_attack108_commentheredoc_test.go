package domain

import (
	"strings"
	"testing"
)

// TestAttack108_CommentHereDoc: pipelines and runsAFile read "<<" as a
// here-document's start wherever it stands on a line (hereDelimiter), a
// comment's too: the lines after "# <<true", to a line "true", are taken
// for the here-document's input, one pipeline whose commands runsAFile
// does not read ("a here-document's lines are its input, not
// commands"). The shell reads no here-document in a comment and runs
// those lines: `# <<true`, `echo password=tools/x | cut -d= -f2 > g`,
// `. ./g`, `true` writes the value cut out of "password=" to g and
// sources it; the command is called plain and the value hidden.
// Control: the same lines without the comment are shown whole; a real
// here-document holding a password written to a file and not run keeps
// it hidden.
func TestAttack108_CommentHereDoc(t *testing.T) {
	body := "echo password=" + attack42Prog + " | cut -d= -f2 > g\n. ./g\ntrue"
	if s := shownExec(t, map[string]any{"cmd": body}); !strings.Contains(s, attack42Prog) {
		t.Fatalf("control: the lines without the comment are not shown whole:\n%s", s)
	}
	honest := "cat > app.env <<EOF\npassword=" + attack42Prog + "\nEOF\nchmod 600 app.env"
	if s := shownExec(t, map[string]any{"cmd": attack42Honest(honest)}); strings.Contains(s, attack42Inert) {
		t.Fatalf("control: a here-document written to a file shows the password:\n%s", s)
	}
	attack42CheckKeyCases(t, []attack42KeyCase{
		{name: "comment <<", cmd: "# <<true\n" + body, runs: []string{"bash", "dash"}},
		{name: "comment <<, Claude Code Bash", cmd: "# <<true\n" + body, runs: []string{"bash"}, bash: true},
	})
}

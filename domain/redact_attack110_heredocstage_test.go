package domain

import (
	"strings"
	"testing"
)

// TestAttack110_HereDocEarlierStage: a pipe into a reader of code is not
// plain when its left side "carries" what would be hidden, and the left
// side is read as the text from the BinaryCmd's X's start to its end. The
// parser nests a pipeline to the left (`a | b | c` is (a | b) | c), and a
// here-document's lines come after the whole line: in
//
//	cat <<EOF | cut -d= -f2 | sh
//	password=tools/x
//	EOF
//
// the left side of the pipe into sh is `cat <<EOF | cut -d= -f2` (its end
// is cut's), the document's line is not in it, and nothing is carried;
// the inner pipe (cat's stmt, whose end is the document's) goes into cut,
// no reader of code. The command is called plain, the password hidden,
// and the shell runs it. The hundred-and-sixth review's `cut -d= -f2
// <<EOF | sh -s` (the document on the last stage before the shell) is
// shown whole.
// Controls: that form is shown whole; an honest `cat <<EOF | cut -d= -f2
// | wc -c` with a password keeps it hidden.
func TestAttack110_HereDocEarlierStage(t *testing.T) {
	doc := "\npassword=" + attack42Prog + "\nEOF"
	if s := shownExec(t, map[string]any{"cmd": "cut -d= -f2 <<EOF | sh" + doc}); !strings.Contains(s, attack42Prog) {
		t.Fatalf("control: a document on the last stage into sh is not shown whole:\n%s", s)
	}
	if s := shownExec(t, map[string]any{"cmd": attack42Honest("cat <<EOF | cut -d= -f2 | wc -c" + doc)}); strings.Contains(s, attack42Inert) {
		t.Fatalf("control: an honest document piped to wc shows the password:\n%s", s)
	}
	attack42CheckKeyCases(t, []attack42KeyCase{
		{name: "cat <<EOF | cut | sh", cmd: "cat <<EOF | cut -d= -f2 | sh" + doc, runs: []string{"bash", "dash"}},
		{name: "cat <<'EOF' | cut | sh", cmd: "cat <<'EOF' | cut -d= -f2 | sh" + doc, runs: []string{"bash", "dash"}},
		{name: "cat <<EOF | cut | sh, Claude Code Bash", cmd: "cat <<EOF | cut -d= -f2 | sh" + doc, runs: []string{"bash"}, bash: true},
	})
}

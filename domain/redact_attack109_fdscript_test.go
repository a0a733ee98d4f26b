package domain

import (
	"strings"
	"testing"
)

// TestAttack109_FdScript: a here-document into a shell that reads its
// input as code makes the command not plain (stmt, readsStdinAsCode), and
// a shell reads its input as code when given no script, "-", -s or
// /dev/stdin. The same input named any other way is a script argument
// (scriptArg), so the here-document is not judged: `sh /dev/fd/0 <<'EOF'`,
// `sh /proc/self/fd/0 <<'EOF'`, `sh /dev/fd/3 3<<'EOF'` (any fd), and
// bash's here-string `sh /dev/fd/3 3<<< '…'`. The here-document's lines
// cut a password out and pipe it into sh: the command is called plain
// (no file written, so "runs" alone does not count), the password is
// hidden, and bash and dash run it. Controls: `sh <<'EOF'` and
// `sh /dev/stdin <<'EOF'` are shown whole; `cat <<'EOF'` of the same
// lines keeps the password hidden.
func TestAttack109_FdScript(t *testing.T) {
	body := "echo password=" + attack42Prog + " | cut -d= -f2 | sh\nEOF\n"
	for _, c := range []string{"sh <<'EOF'\n" + body, "sh /dev/stdin <<'EOF'\n" + body} {
		if s := shownExec(t, map[string]any{"cmd": c}); !strings.Contains(s, attack42Prog) {
			t.Fatalf("control: %q is not shown whole:\n%s", c, s)
		}
	}
	if s := shownExec(t, map[string]any{"cmd": attack42Honest("cat > notes.txt <<'EOF'\n" + body)}); strings.Contains(s, attack42Inert) {
		t.Fatalf("control: a here-document into cat shows the password:\n%s", s)
	}
	attack42CheckKeyCases(t, []attack42KeyCase{
		{name: "sh /dev/fd/0 <<EOF", cmd: "sh /dev/fd/0 <<'EOF'\n" + body, runs: []string{"bash", "dash"}},
		{name: "sh /proc/self/fd/0 <<EOF", cmd: "sh /proc/self/fd/0 <<'EOF'\n" + body, runs: []string{"bash", "dash"}},
		{name: "sh /dev/fd/3 3<<EOF", cmd: "sh /dev/fd/3 3<<'EOF'\n" + body, runs: []string{"bash", "dash"}},
		{name: "sh /dev/fd/3 3<<< (bash)", cmd: "sh /dev/fd/3 3<<< 'echo password=" + attack42Prog + " | cut -d= -f2 | sh'", runs: []string{"bash"}, bash: true},
	})
}

package domain

import (
	"strings"
	"testing"
)

// TestAttack46NameMatchedByAPattern: namedAgain shows the values when a
// secret-named variable the text assigns is named again, by its exact
// name only. A command that lists the environment picks the value out by
// a pattern that matches the name without spelling it (API_T.KEN,
// API_T[O]KEN, API_TOK*) and hands it to sh:
//
//	export API_TOKEN=tools/x; env | sed -n 's/^API_T.KEN=//p' | sh
//
// shows "export API_TOKEN=[redacted]; …" while sh runs tools/x (checked
// with bash and dash, for exec_command and a Claude Code Bash call).
//
// Control: the exported secret listed by a bare env stays hidden.
func TestAttack46NameMatchedByAPattern(t *testing.T) {
	const v = "Zq8vLw3nR2tK9pXs"
	if s := attack42ShownBash(t, "export API_TOKEN="+v+"; env | sort"); strings.Contains(s, v) {
		t.Fatalf("control: the secret is shown:\n%s", s)
	}
	for _, cmd := range []string{
		"export API_TOKEN=" + attack42Prog + "; env | sed -n 's/^API_T.KEN=//p' | sh",
		"export API_TOKEN=" + attack42Prog + "; env | grep '^API_T[O]KEN=' | cut -d= -f2 | sh",
		"export API_TOKEN=" + attack42Prog + "; printenv | awk -F= '/^API_TOK/{print $2}' | sh",
	} {
		for _, sh := range []string{"bash", "dash"} {
			if ran, ok := attack42RunsProg(t, sh, cmd); ok && !ran {
				t.Fatalf("premise: %s does not run the program of %q", sh, cmd)
			}
		}
		for _, s := range []string{attack42ShownBash(t, cmd), shownExec(t, map[string]any{"cmd": cmd})} {
			if !strings.Contains(s, attack42Prog) {
				t.Errorf("%s\nruns %s, and the approval request hides it:\n%s", cmd, attack42Prog, s)
			}
		}
	}
}

package domain

import (
	"strings"
	"testing"
)

// TestAttack46LineContinuedName: a shell removes a backslash-newline
// before it reads a word, in a parameter's name too: "$API_\<newline>TOKEN"
// expands API_TOKEN. exposedVars reads the name up to the backslash
// (API_, no secret name), and namedAgain looks for "API_TOKEN" whole, so
// the assigned value stays hidden while the shell runs it as the program:
//
//	API_TOKEN=tools/x; "$API_\
//	TOKEN"
//
// shows "API_TOKEN=[redacted]; …" (checked with bash and dash, for
// exec_command and a Claude Code Bash call).
//
// Control: the value used as a bearer credential stays hidden.
func TestAttack46LineContinuedName(t *testing.T) {
	const v = "Zq8vLw3nR2tK9pXs"
	if s := shownExec(t, map[string]any{"cmd": "API_TOKEN=" + v + "; curl -sS -H \"Authorization: Bearer $API_TOKEN\" https://api.example/"}); strings.Contains(s, v) {
		t.Fatalf("control: a bearer credential is shown:\n%s", s)
	}
	for _, cmd := range []string{
		"API_TOKEN=" + attack42Prog + "; \"$API_\\\nTOKEN\"",
		"API_TOKEN=" + attack42Prog + "; \"${API_TOK\\\nEN}\"",
		"API_TOKEN=" + attack42Prog + "\n$API\\\n_TOKEN --go",
	} {
		for _, sh := range []string{"bash", "dash"} {
			if ran, ok := attack42RunsProg(t, sh, cmd); ok && !ran {
				t.Fatalf("premise: %s does not run the program of %q", sh, cmd)
			}
		}
		for _, s := range []string{shownExec(t, map[string]any{"cmd": cmd}), attack42ShownBash(t, cmd)} {
			if !strings.Contains(s, attack42Prog) {
				t.Errorf("%q\nruns %s, and the approval request hides it:\n%s", cmd, attack42Prog, s)
			}
		}
	}
}

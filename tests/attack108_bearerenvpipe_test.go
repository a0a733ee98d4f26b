package tests

import (
	"strings"
	"testing"
)

// TestAttack108_BearerEnvPipe (high): the plain-command rule skips a
// pipeline whose text hides nothing but an expansion ("Bearer $T", read
// as "Bearer /", computesProgram's first test in its loop), so it never
// asks whether that pipeline feeds a code reader; and an expansion where
// a credential goes (credentialAt) neither makes the command not plain
// (expandsSet) nor shows the exec env's value (exposedVars). POST /exec
// with env TERM="password=tools/x" (tools/x the agent's script; TERM
// reaches the command in a restricted mode, as in the hundred-and-fourth
// review's test) and
//
//	/bin/sh -c 'echo "Bearer $TERM" | cut -d= -f2 | sh'
//
// is shown as `Environment: TERM="password=[redacted]"`, and sh runs the
// hidden part. The same with a secret-named variable (API_TOKEN, where a
// mode passes it) shows its name only (TestAttack108_BearerEnvPipeDomain).
// Wanted: a command that pipes a hidden env value into a code reader is
// not plain, its environment shown whole. Control: the same pipeline
// is shown whole when the expansion is no credential's place (echo
// "$TERM"), and runs.
func TestAttack108_BearerEnvPipe(t *testing.T) {
	t.Parallel()
	prog, shownAndRun := hiddenProgramExec(t, "t108")
	env := map[string]string{"TERM": "password=" + prog}
	shown, ran := shownAndRun("control", map[string]any{"argv": []string{"/bin/sh", "-c", `echo "$TERM" | cut -d= -f2 | sh`}, "env": env})
	if !ran || !strings.Contains(shown, prog) {
		t.Fatalf("control: the value piped into sh: ran %v, shown:\n%s", ran, shown)
	}
	for i, script := range []string{
		`echo "Bearer $TERM" | cut -d= -f2 | sh`,
		`echo "Authorization: Bearer $TERM" | cut -d= -f2 | sh`,
	} {
		shown, ran = shownAndRun("hidden"+string(rune('a'+i)), map[string]any{"argv": []string{"/bin/sh", "-c", script}, "env": env})
		if !ran {
			t.Fatalf("premise: %q did not run the script the value names; shown:\n%s", script, shown)
		}
		if !strings.Contains(shown, prog) {
			t.Errorf("the approved command %q ran %s, which its approval request hides:\n%s", script, prog, shown)
		}
	}
}

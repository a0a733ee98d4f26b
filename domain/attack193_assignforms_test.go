package domain

import (
	"strings"
	"testing"
)

// TestAttack193_SecretAssignedInAFormAssignsSecretMisses (review 193):
// the hundred-and-ninety-first review's fix makes an interpreter's inline
// code not plain in a text that assigns a secret-named variable
// (setsSecret), since the code may read it by a name it builds
// (E["API_"+"TOKEN"]) and use the hidden value as where it writes. Which
// texts assign one is read by assignsSecret: a parsed assignment
// (syntax.Assign with a Name) or a literal word after env or sudo as the
// command's FIRST word. The redaction hides the value in more forms than
// those:
//
//	export "API_TOKEN=v"; python3 -c '…E["API_"+"TOKEN"]…'   (a quoted assignment: an Assign with no Name)
//	export 'API_TOKEN=v'; python3 -c '…'
//	nice env API_TOKEN=v sh -c 'true; python3 -c "…"'       (env after a runner: command env, nice env, timeout 5 env)
//	command env API_TOKEN=v sh -c 'true; python3 -c "…"'
//
// each shown as API_TOKEN=[redacted] while the code appends to the file
// the hidden value names. (The nested script starts with "true;" so that
// runsFromArgs does not take python3 for a program in the arguments.)
// Premise checked with the real dash and bash and python3.
//
// Control: the unquoted export of the 191 test is shown whole.
func TestAttack193_SecretAssignedInAFormAssignsSecretMisses(t *testing.T) {
	const v = "wr1tesHereQ9x7Lm"
	const py = `python3 -c 'from os import environ as E; open(E["API_"+"TOKEN"], "a").write("x")'`
	const nested = `sh -c 'true; python3 -c "from os import environ as E; open(E[\"API_\"+\"TOKEN\"], \"a\").write(\"x\")"'`

	// Control.
	plain := "export API_TOKEN=" + v + "; " + py
	attack193Writes(t, "/bin/sh", "python3", plain, v)
	if s, rec := attack193Shown(t, plain); !strings.Contains(s, v) || !strings.Contains(rec, v) {
		t.Fatalf("control: the 191 form hides the value:\n%s\n%s", s, rec)
	}

	for _, cmd := range []string{
		`export "API_TOKEN=` + v + `"; ` + py,
		`export 'API_TOKEN=` + v + `'; ` + py,
		"nice env API_TOKEN=" + v + " " + nested,
		"command env API_TOKEN=" + v + " " + nested,
	} {
		attack193Writes(t, "/bin/sh", "python3", cmd, v)
		attack193Writes(t, "bash", "python3", cmd, v)
		if s, rec := attack193Shown(t, cmd); !strings.Contains(s, v) || !strings.Contains(rec, v) {
			t.Errorf("%s\nappends to the file %s, and the request and record hide it:\n%s\nrecorded: %s", cmd, v, s, rec)
		}
	}
}

package domain

import (
	"strings"
	"testing"
)

// TestAttack46CredentialPlaceReused: credentialAt calls an expansion after
// --token a credential's place and leaves its value hidden, whatever the
// command that receives it does with it. A command of the shell's own
// makes that word a positional parameter ($2) or the last argument ($_),
// which a later command runs:
//
//	API_TOKEN=tools/x; set -- --token "$API_TOKEN"; "$2"
//	API_TOKEN=tools/x; f() { "$2"; }; f --token "$API_TOKEN"
//	API_TOKEN=tools/x; : --token "$API_TOKEN"; "$_"            (bash)
//
// each shown as "API_TOKEN=[redacted]; …" while the shell runs tools/x
// (checked with bash and dash).
//
// Control: gh --token "$API_TOKEN" keeps the secret hidden.
func TestAttack46CredentialPlaceReused(t *testing.T) {
	const v = "Zq8vLw3nR2tK9pXs"
	if s := attack42ShownBash(t, "API_TOKEN="+v+`; some-cli deploy --token "$API_TOKEN"`); strings.Contains(s, v) {
		t.Fatalf("control: a credential is shown:\n%s", s)
	}
	for _, c := range []struct {
		cmd    string
		shells []string
	}{
		{"API_TOKEN=" + attack42Prog + `; set -- --token "$API_TOKEN"; "$2"`, []string{"bash", "dash"}},
		{"API_TOKEN=" + attack42Prog + `; f() { "$2"; }; f --token "$API_TOKEN"`, []string{"bash", "dash"}},
		{"API_TOKEN=" + attack42Prog + `; : --token "$API_TOKEN"; "$_"`, []string{"bash"}},
	} {
		for _, sh := range c.shells {
			if ran, ok := attack42RunsProg(t, sh, c.cmd); ok && !ran {
				t.Fatalf("premise: %s does not run the program of %q", sh, c.cmd)
			}
		}
		for _, s := range []string{attack42ShownBash(t, c.cmd), shownExec(t, map[string]any{"cmd": c.cmd})} {
			if !strings.Contains(s, attack42Prog) {
				t.Errorf("%s\nruns %s, and the approval request hides it:\n%s", c.cmd, attack42Prog, s)
			}
		}
	}
}

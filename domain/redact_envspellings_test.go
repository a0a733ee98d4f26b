package domain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecretReadByOtherSpellings: readsIndirectly knew os.environ,
// process.env and ENV.fetch by those words only; a program that takes the
// environment by another spelling (from os import environ, an alias of
// os, getattr, os.getenvb, process["env"], const { env } = process,
// Ruby's ENV.to_h) read the hidden value without its name written out
// again (every variable whose name ends in _TOKEN), and the approval
// request hid where it wrote (a note of the last session's reviews).
// Each is run with bash where its program is installed to show it writes
// to the value. Control: the same variable read only by a credential
// stays hidden.
func TestSecretReadByOtherSpellings(t *testing.T) {
	const v = "wr1tesHereQ9x7Lm"
	const set = "export API_TOKEN=" + v + "; "
	control := set + `./deploy.sh; curl -H "Authorization: Bearer $API_TOKEN" https://api.example/`
	if s := attack42ShownBash(t, control); strings.Contains(s, v) || exposedVars(control, "API_TOKEN")[exposedAll] {
		t.Fatalf("control: the secret is shown:\n%s", s)
	}
	cases := []struct{ prog, cmd string }{
		{"python3", set + `python3 -c 'from os import environ as e; [open(v, "a").write("x") for k, v in e.items() if k.endswith("_TOKEN")]'`},
		{"python3", set + `python3 -c 'import os as o; [open(v, "a").write("x") for k, v in o.environ.items() if k.endswith("_TOKEN")]'`},
		{"python3", set + `python3 -c 'import os; [open(v, "a").write("x") for k, v in getattr(os, "environ").items() if k.endswith("_TOKEN")]'`},
		{"node", set + `node -e 'for (const [k, v] of Object.entries(process["env"])) if (k.endsWith("_TOKEN")) require("fs").appendFileSync(v, "x")'`},
		{"node", set + `node -e 'const { env } = process; for (const k in env) if (k.endsWith("_TOKEN")) require("fs").appendFileSync(env[k], "x")'`},
		{"ruby", set + `ruby -e 'ENV.to_h.each { |k, v| File.write(v, "x", mode: "a") if k.end_with?("_TOKEN") }'`},
	}
	bash, err := exec.LookPath("bash")
	for _, c := range cases {
		if _, perr := exec.LookPath(c.prog); err == nil && perr == nil {
			dir := t.TempDir()
			x := exec.Command(bash, "-c", c.cmd)
			x.Dir = dir
			out, err := x.CombinedOutput()
			if _, serr := os.Stat(filepath.Join(dir, v)); err != nil || serr != nil {
				t.Fatalf("premise: the command did not write to the variable's value: %s: %v %s", c.cmd, err, out)
			}
		}
		// The judgement itself: every variable's value shown, as for
		// os.environ (the command's whole rendering shows it on other
		// grounds too: a program given code after the export).
		if !exposedVars(c.cmd, "API_TOKEN")[exposedAll] {
			t.Errorf("%s\nreads the environment by a spelling readsIndirectly does not know", c.cmd)
		}
		if s := attack42ShownBash(t, c.cmd); !strings.Contains(s, v) {
			t.Errorf("%s\nwrites to %s, and the approval request hides it:\n%s", c.cmd, v, s)
		}
	}
}

package domain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack44SecretReadByNameInAProgram: exposedVars finds a variable's
// use only as a shell expansion ($NAME, ${NAME…}). A program the command
// runs reads the environment by the variable's name, with no '$' before
// it (or with one the scan reads as another variable's: perl's
// $ENV{NAME}), and a nested shell gets "$NAME" built of pieces the scan
// does not join (a quoted "$" run into NAME). So
//
//	export API_TOKEN=wr1tesHereQ9x7Lm; python3 -c 'import os; open(os.environ["API_TOKEN"], "a").write("x")'
//	export API_TOKEN=…; awk 'BEGIN { print "x" > ENVIRON["API_TOKEN"] }'
//	export API_TOKEN=…; perl -e 'open(F, ">>", $ENV{API_TOKEN}); print F "x"'
//	export API_TOKEN=…; node -e 'require("fs").appendFileSync(process.env.API_TOKEN, "x")'
//	export API_TOKEN=…; echo 'echo x >> "$''API_TOKEN"' | sh
//	export API_TOKEN=…; sh -c 'echo x >> '"$"API_TOKEN
//
// are shown with API_TOKEN=[redacted], and each writes the file the
// hidden value names, as ">> "$API_TOKEN"" did in the thirty-ninth
// review (each checked by running it with bash where the program is
// installed; skipped where missing).
//
// Controls: a variable only a credential reads stays hidden, whether
// the shell or a program reads it. The secure behaviour asserted: the
// request shows the value.
func TestAttack44SecretReadByNameInAProgram(t *testing.T) {
	const v = "wr1tesHereQ9x7Lm"
	for _, cmd := range []string{
		"API_TOKEN=" + v + "; curl -H \"Authorization: Bearer $API_TOKEN\" https://api.example/",
		"export API_TOKEN=" + v + "; ./deploy.sh",
	} {
		if s := attack42ShownBash(t, cmd); strings.Contains(s, v) {
			t.Fatalf("control: the secret is shown:\n%s", s)
		}
	}
	const set = "export API_TOKEN=" + v + "; "
	cases := []struct{ prog, cmd string }{
		{"python3", set + `python3 -c 'import os; open(os.environ["API_TOKEN"], "a").write("x")'`},
		{"awk", set + `awk 'BEGIN { print "x" > ENVIRON["API_TOKEN"] }'`},
		{"perl", set + `perl -e 'open(F, ">>", $ENV{API_TOKEN}); print F "x"'`},
		{"node", set + `node -e 'require("fs").appendFileSync(process.env.API_TOKEN, "x")'`},
		{"sh", set + `echo 'echo x >> "$''API_TOKEN"' | sh`},
		{"sh", set + `sh -c 'echo x >> '"$"API_TOKEN`},
	}
	bash, err := exec.LookPath("bash")
	for _, c := range cases {
		if _, perr := exec.LookPath(c.prog); err == nil && perr == nil {
			dir := t.TempDir()
			x := exec.Command(bash, "-c", c.cmd)
			x.Dir = dir
			if out, err := x.CombinedOutput(); err != nil {
				t.Fatalf("premise: %s: %v %s", c.cmd, err, out)
			}
			if _, err := os.Stat(filepath.Join(dir, v)); err != nil {
				t.Fatalf("premise: the command did not write to the variable's value: %s", c.cmd)
			}
		}
		if s := attack42ShownBash(t, c.cmd); !strings.Contains(s, v) {
			t.Errorf("%s\nwrites to %s, and the approval request hides it:\n%s", c.cmd, v, s)
		}
	}
}

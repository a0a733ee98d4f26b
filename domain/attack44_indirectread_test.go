package domain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack44IndirectReadDodges: readsIndirectly (the forty-second
// review's fix) shows every secret-named value when a command reads
// variables by names it builds or holds, but it finds the readers by
// exact words: "declare -n" (not "declare -gn", "declare -rn"),
// "printenv" (not /usr/bin/printenv), a bare "env" (not "env -0",
// "env --null" or "\env | …"), and no reader of /proc/self/environ. So
//
//	API_TOKEN=wr1tesHereQ9x7Lm; declare -gn R=API_TOKEN; echo x > "$R"
//	export API_TOKEN=wr1tesHereQ9x7Lm; touch "$(/usr/bin/printenv API_TOKEN)"
//	export API_TOKEN=…; env -0 | grep -z ^API_TOKEN= | cut -z -d= -f2 | xargs -0 touch
//	export API_TOKEN=…; cat /proc/self/environ | tr '\0' '\n' | … | xargs touch
//
// are shown with API_TOKEN=[redacted]: where the command writes is
// hidden (each checked with bash: it writes the file the value names;
// skipped where missing).
//
// Controls: a variable a command only reads as a credential, or that a
// program is given, stays hidden. The secure behaviour asserted: the
// request shows the value.
func TestAttack44IndirectReadDodges(t *testing.T) {
	const v = "wr1tesHereQ9x7Lm"
	for _, cmd := range []string{
		"API_TOKEN=" + v + "; curl -H \"Authorization: Bearer $API_TOKEN\" https://api.example/",
		"export API_TOKEN=" + v + "; ./deploy.sh",
	} {
		if s := attack42ShownBash(t, cmd); strings.Contains(s, v) {
			t.Fatalf("control: the secret is shown:\n%s", s)
		}
	}
	cases := []string{
		"API_TOKEN=" + v + "; declare -gn R=API_TOKEN; echo x > \"$R\"",
		"API_TOKEN=" + v + "; declare -rn R=API_TOKEN; echo x > \"$R\"",
		"export API_TOKEN=" + v + "; touch \"$(/usr/bin/printenv API_TOKEN)\"",
		"export API_TOKEN=" + v + "; env -0 | grep -z ^API_TOKEN= | cut -z -d= -f2 | xargs -0 touch",
		"export API_TOKEN=" + v + "; env --null | grep -z ^API_TOKEN= | cut -z -d= -f2 | xargs -0 touch",
		"export API_TOKEN=" + v + "; touch \"$(\\env | grep ^API_TOKEN= | cut -d= -f2)\"",
		"export API_TOKEN=" + v + "; cat /proc/self/environ | tr '\\0' '\\n' | grep ^API_TOKEN= | cut -d= -f2 | xargs touch",
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

package domain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack115_BearerPathProgram: an inert hidden value (no '/', nothing
// of a shell's) is let through as "at most a name looked up on the PATH"
// (redact_inert.go). That name may be the program that runs. flock takes
// one operand, its lock file, and runs the next word: with the lock file
// named Bearer, the bearer pattern hides that word as a credential
// (programWord knows flock for no command that runs its next word; the
// word before it, "Bearer", is no option), and the plain rule reads
// flock's operand and the program past it, which is no pattern and no
// path. The approval request reads
//
//	flock Bearer [redacted] -s 0 data.db      (runs truncate -s 0 data.db)
//	flock Bearer [redacted] data.db           (runs unlink data.db)
//	flock Bearer [redacted] tools/x.py        (runs python3 tools/x.py)
//
// what runs is hidden: a program on the PATH, any one of at least six
// bytes. Control: the same with a lock file of another name shows the
// program; an honest bearer header keeps its token hidden.
func TestAttack115_BearerPathProgram(t *testing.T) {
	cmds := map[string]string{
		"flock Bearer truncate -s 0 data.db": "truncate",
		"flock Bearer unlink data.db":        "unlink",
	}
	for cmd := range cmds {
		for _, shell := range []string{"dash", "bash"} {
			sh, err := exec.LookPath(shell)
			if err != nil {
				continue
			}
			dir := t.TempDir()
			db := filepath.Join(dir, "data.db")
			if err := os.WriteFile(db, []byte("precious rows\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			c := exec.Command(sh, "-c", cmd)
			c.Dir = dir
			if out, err := c.CombinedOutput(); err != nil {
				t.Fatalf("premise: %s -c %q: %v %s", shell, cmd, err, out)
			}
			if b, err := os.ReadFile(db); err == nil && len(b) > 0 {
				t.Fatalf("premise: %s -c %q left data.db whole", shell, cmd)
			}
		}
	}
	t.Run("control", func(t *testing.T) {
		for cmd, prog := range cmds {
			c := strings.Replace(cmd, "Bearer", "db.lock", 1)
			if s := shownExec(t, map[string]any{"cmd": c}); !strings.Contains(s, prog) {
				t.Fatalf("control: %q hides %s:\n%s", c, prog, s)
			}
		}
		const tok = "Zq8vLw3nR2tK9pXsHonestBearer"
		h := `curl -H "Authorization: Bearer ` + tok + `" https://api.example.com/v1/x`
		if s := shownExec(t, map[string]any{"cmd": h}); strings.Contains(s, tok) {
			t.Fatalf("control: an honest bearer token is shown:\n%s", s)
		}
	})
	for cmd, prog := range cmds {
		for _, s := range []string{shownExec(t, map[string]any{"cmd": cmd}), attack42ShownBash(t, cmd), attack108ShownStdin(t, cmd+"\n")} {
			if !strings.Contains(s, prog) {
				t.Errorf("%q runs %s, and the approval request hides it:\n%s", cmd, prog, s)
			}
		}
	}
}

package domain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack106_ArgvQuotedScriptHidden (medium): an exec given as an argv
// (POST /exec, exec_command's argv) is read by computesProgram as the
// argv joined (ShellJoin), which puts a shell's -c script in single
// quotes. A script that is one quoted expansion, the way a script is
// usually written, then has two quotes before its '$' ('"${1##* }"'):
// computesProgram steps over one and reads the '$' as "within a word", so
//
//	argv ["/bin/sh", "-c", "\"${1##* }\"", "x", "Bearer tools/x"]
//
// is shown as /bin/sh -c '"${1##* }"' x 'Bearer [redacted]' and runs
// tools/x (bash and dash). The same script unquoted ('${1##* }'), or
// after exec ('exec "${1##* }"'), is shown whole (controls).
func TestAttack106_ArgvQuotedScriptHidden(t *testing.T) {
	const p = attack42Prog
	runs := func(sh string, argv []string) (ran, ok bool) {
		bin, err := exec.LookPath(sh)
		if err != nil {
			return false, false
		}
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "tools"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte("#!/bin/sh\ntouch AGENT-CODE-RAN\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		c := exec.Command(bin, argv[1:]...)
		c.Dir = dir
		_, _ = c.CombinedOutput()
		_, err = os.Stat(filepath.Join(dir, "AGENT-CODE-RAN"))
		return err == nil, true
	}
	shown := func(argv []string) string {
		a := make([]any, len(argv))
		for i, s := range argv {
			a[i] = s
		}
		return shownExec(t, map[string]any{"argv": a})
	}
	for _, script := range []string{`${1##* }`, `exec "${1##* }"`} {
		if s := shown([]string{"/bin/sh", "-c", script, "x", "Bearer " + p}); !strings.Contains(s, p) {
			t.Fatalf("control: -c %q's program is hidden:\n%s", script, s)
		}
	}
	for _, script := range []string{`"${1##* }"`} {
		argv := []string{"/bin/sh", "-c", script, "x", "Bearer " + p}
		for _, sh := range []string{"bash", "dash"} {
			if ran, ok := runs(sh, argv); ok && !ran {
				t.Fatalf("premise: %s -c %q does not run the program", sh, script)
			}
		}
		if s := shown(argv); !strings.Contains(s, p) {
			t.Errorf("-c %q: bash and dash run %s, and the approval request hides it:\n%s", script, p, s)
		}
	}
}

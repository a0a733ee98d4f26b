package domain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// attack117Runs runs cmd with shell in a directory holding a script at the
// relative path file (its directories made; "#!/bin/sh -", so a path that
// starts with '-' is read as the script, not as sh's option) and reports
// whether it ran; ok is false when the shell or choom is missing.
func attack117Runs(t *testing.T, shell, cmd, file string) (ran, ok bool) {
	t.Helper()
	sh, err := exec.LookPath(shell)
	if err != nil {
		return false, false
	}
	if _, err := exec.LookPath("choom"); err != nil {
		return false, false
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(file)), 0o755); err != nil {
		t.Fatal(err)
	}
	mark := filepath.Join(dir, "AGENT-CODE-RAN")
	if err := os.WriteFile(filepath.Join(dir, file), []byte("#!/bin/sh -\ntouch "+mark+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := exec.Command(sh, "-c", cmd)
	c.Dir = dir
	c.Stdin = strings.NewReader("")
	_, _ = c.CombinedOutput()
	_, err = os.Stat(mark)
	return err == nil, true
}

// TestAttack117_AmpersandAssignedURLProgram: the inert check lets a hidden
// value keep its '/' where the text before it matches assignedURL ("a URL
// assigned before a command": a separator [;&|\n(], then NAME=scheme://…),
// on the premise that the shell runs no part of an assignment. But the
// separator may be a literal '&' inside one word ('&X=https://h/?token=…'
// or \&X=…): the word is no assignment, and a wrapper on no list (choom,
// util-linux: `choom -n 0 -- PROGRAM`) runs it as a program by a relative
// path, a file the agent made at "&X=https:/h/?token=tools/…". The plain
// rule judges choom as the program (not a runner), and checks its other
// words only with mayBeCode, which takes '&' for an operator only as "& ",
// "&&" or a trailing '&'. The request reads
// `choom -n 0 -- '&X=https://h/?token=[redacted]'`: which script runs is
// hidden.
// Control: the same word without the '&' ('X=https://h/?token=tools/…') is
// shown whole; an honest URL assigned before a command keeps its token
// (with '/') hidden.
func TestAttack117_AmpersandAssignedURLProgram(t *testing.T) {
	file := "&X=https:/h/?token=" + attack42Prog
	cmds := []string{
		"choom -n 0 -- '&X=https://h/?token=" + attack42Prog + "'",
		`choom -n 0 -- \&X=https://h/?token=` + attack42Prog,
		"choom -n 0 -- '&X=https://h/?token=" + attack42Prog + "' arg",
	}
	for _, cmd := range cmds {
		for _, sh := range []string{"dash", "bash"} {
			if ran, ok := attack117Runs(t, sh, cmd, file); !ok {
				t.Skipf("no %s or no choom", sh)
			} else if !ran {
				t.Fatalf("premise: %s does not run %s in %q", sh, file, cmd)
			}
		}
	}
	t.Run("control", func(t *testing.T) {
		c := "choom -n 0 -- 'X=https://h/?token=" + attack42Prog + "'"
		for _, s := range []string{shownExec(t, map[string]any{"cmd": c}), attack42ShownBash(t, c)} {
			if !strings.Contains(s, attack42Prog) {
				t.Fatalf("control: %q hides its program:\n%s", c, s)
			}
		}
		const tok = "dXNlcjpwYXNz/d29yZA+ZXhhbXBsZQ"
		h := "WEBHOOK_URL=https://hooks.example.com/x?token=" + tok + " node x.js"
		for _, s := range []string{shownExec(t, map[string]any{"cmd": h}), attack42ShownBash(t, h)} {
			if strings.Contains(s, tok) {
				t.Fatalf("control: an honest assigned URL's token is shown:\n%s", s)
			}
		}
	})
	for _, cmd := range cmds {
		for _, s := range []string{shownExec(t, map[string]any{"cmd": cmd}), attack42ShownBash(t, cmd)} {
			if !strings.Contains(s, attack42Prog) {
				t.Errorf("%q\nruns the agent's %s (choom's program), and the approval request hides it:\n%s", cmd, file, s)
			}
		}
	}
}

// TestAttack117_HeaderOptionProgram: a hidden value may keep its '/' as a
// header's credential quoted whole after a header option (headerOption:
// -H, --header, --header=, -H=). The option is read from the text alone,
// not from the program it is given to: `choom -n 0 -- --header='Authorization:
// Bearer tools/…'` hands choom the single word "--header=Authorization:
// Bearer tools/…" after "--", which it runs as a program by a relative path
// (a directory "--header=Authorization: Bearer tools" the agent made). The
// request reads `choom -n 0 -- --header='Authorization: [redacted]
// [redacted]'`: the program that runs is hidden.
// Control: the same with a header name that is no credential's
// ('X-Trace: tools/…') is shown whole; curl's honest header keeps its
// base64 credential hidden.
func TestAttack117_HeaderOptionProgram(t *testing.T) {
	type tc struct{ cmd, file string }
	cases := []tc{
		{"choom -n 0 -- --header='Authorization: Bearer " + attack42Prog + "'", "--header=Authorization: Bearer " + attack42Prog},
		{"choom -n 0 -- -H='Authorization: Bearer " + attack42Prog + "'", "-H=Authorization: Bearer " + attack42Prog},
	}
	for _, c := range cases {
		for _, sh := range []string{"dash", "bash"} {
			if ran, ok := attack117Runs(t, sh, c.cmd, c.file); !ok {
				t.Skipf("no %s or no choom", sh)
			} else if !ran {
				t.Fatalf("premise: %s does not run %q in %q", sh, c.file, c.cmd)
			}
		}
	}
	t.Run("control", func(t *testing.T) {
		c := "choom -n 0 -- --header='X-Trace: " + attack42Prog + "'"
		for _, s := range []string{shownExec(t, map[string]any{"cmd": c}), attack42ShownBash(t, c)} {
			if !strings.Contains(s, attack42Prog) {
				t.Fatalf("control: %q hides its program:\n%s", c, s)
			}
		}
		const cred = "dXNlcjpwYXNz/d29yZA+ZXhhbXBsZQ=="
		h := `curl --header='Authorization: Bearer ` + cred + `' https://api.example.com/v1/x`
		for _, s := range []string{shownExec(t, map[string]any{"cmd": h}), attack42ShownBash(t, h)} {
			if strings.Contains(s, cred) {
				t.Fatalf("control: an honest header's credential is shown:\n%s", s)
			}
		}
	})
	for _, c := range cases {
		for _, s := range []string{shownExec(t, map[string]any{"cmd": c.cmd}), attack42ShownBash(t, c.cmd)} {
			if !strings.Contains(s, attack42Prog) {
				t.Errorf("%q\nruns the agent's %q (choom's program), and the approval request hides it:\n%s", c.cmd, c.file, s)
			}
		}
	}
}

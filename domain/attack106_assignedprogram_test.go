package domain

import (
	"strings"
	"testing"
)

// TestAttack106_AssignedProgramHidden (medium): computesProgram
// (domain/redact_whole.go) knows two places besides a program's word
// where an expansion chooses what runs: a PATH assigned and a cd
// (programSetters: "cd" then blanks then the expansion). Others choose a
// program as well, and the command is shown redacted:
//
//   - an environment variable that names a script or a program another
//     program runs: BASH_ENV="${T#*=}" bash -c : (bash sources it first),
//     GIT_EXTERNAL_DIFF="${T#*=}" git diff … (git runs it);
//   - cd with an option before the directory: cd -P "${T#*=}" && ./x;
//   - bash's hash -p "${T#*=}" ls; ls (ls then runs the hidden path).
//
// Each shows T="password=[redacted]" and runs the hidden program (bash
// and dash, but hash -p, which is bash's: Claude Code's Bash).
// Wanted: shown whole, as PATH="${T#*=}:$PATH" x and cd "${T#*=}" && ./x
// are (controls). Control also: an assignment of an expansion that
// chooses no program (LANG="$L") keeps a mysql password hidden.
func TestAttack106_AssignedProgramHidden(t *testing.T) {
	const secret = "Zq8vLw3nR2tK9pXs"
	hon := `LANG="$L" mysql --password=` + secret + ` db`
	for _, s := range []string{shownExec(t, map[string]any{"cmd": hon}), attack42ShownBash(t, hon)} {
		if strings.Contains(s, secret) {
			t.Fatalf("control: a password is shown:\n%s", s)
		}
	}
	const p = attack42Prog
	const dir, name = "tools", "r4nD0mLooK1nGNam3ForAScr1ptTheAgentWr0te1nTheW0rkspace"
	for _, cmd := range []string{
		`T="password=` + dir + `"; PATH="${T#*=}:$PATH" ` + name,
		`T="password=` + dir + `"; cd "${T#*=}" && ./` + name,
	} {
		for _, s := range []string{shownExec(t, map[string]any{"cmd": cmd}), attack42ShownBash(t, cmd)} {
			if !strings.Contains(s, "password="+dir) {
				t.Fatalf("control: %q is not shown whole:\n%s", cmd, s)
			}
		}
	}
	for _, c := range []struct {
		name, cmd, want string
		shells          []string
	}{
		{"BASH_ENV", `T="password=` + p + `"; BASH_ENV="${T#*=}" bash -c :`, p, []string{"bash", "dash"}},
		{"GIT_EXTERNAL_DIFF", `T="password=` + p + `"; GIT_EXTERNAL_DIFF="${T#*=}" git diff --no-index /etc/hostname /etc/hosts`, p, []string{"bash", "dash"}},
		{"cd -P", `T="password=` + dir + `"; cd -P "${T#*=}" && ./` + name, "password=" + dir, []string{"bash", "dash"}},
		{"hash -p", `T="password=` + p + `"; hash -p "${T#*=}" ls; ls`, p, []string{"bash"}},
	} {
		for _, sh := range c.shells {
			if ran, ok := attack42RunsProg(t, sh, c.cmd); ok && !ran {
				t.Fatalf("premise %s: %s does not run the program of %q", c.name, sh, c.cmd)
			}
		}
		for _, s := range []string{shownExec(t, map[string]any{"cmd": c.cmd}), attack42ShownBash(t, c.cmd)} {
			if !strings.Contains(s, c.want) {
				t.Errorf("%s: the shell runs %s, and the approval request hides %s:\n%s", c.name, p, c.want, s)
			}
		}
	}
}

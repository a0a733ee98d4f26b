package domain

import (
	"strings"
	"testing"
)

// TestAttack106_PipedProgramHidden (medium): the hundred-and-fourth
// review's rule shows a shell command whole when it computes the program
// it runs, and the README says so of "a pipeline into a shell (| sh, bash
// <<<) holding an expansion or what would be hidden". computesProgram
// (domain/redact_whole.go) recognises that pipeline by its text alone:
// pipedScriptHides starts "the pipeline" after the last ';', '&' or line
// break before "| sh" and wants a shell's name right after the '|'. So
//
//   - a redirection "2>&1" (its '&' read as a list's) or a ';' in a
//     quoted argument ("tr -d ';'") before the pipe, or the pipeline
//     written over two lines after a '|', leaves the hidden value out of
//     "the pipeline";
//   - a wrapper between the pipe and the shell (| env sh, | command sh),
//     or xargs handing the words to a shell (| xargs sh), is no shell;
//   - the value written to a file the command then sources (> r.sh;
//     . ./r.sh), or run by GNU sed's e flag, is no pipeline at all;
//   - a here-document holding the value, cut into "| sh -s" (the line
//     taken for the pipeline's ends before the document; "| sh" without
//     an option happens to take the next line), or a here-document that
//     is a shell's script, its "\$(" escaped for the outer shell.
//
// In each the approval request shows "password=[redacted]" and bash and
// dash run the program hidden there (a script the agent wrote in the
// workspace): the person approves a command without seeing what it runs.
//
// Wanted: each is shown whole, as "echo password=P | cut -d= -f2 | sh"
// already is (control). Controls also: a password given to mysql, and one
// on a line whose output a pipeline compresses (2>&1 | gzip), stay hidden.
func TestAttack106_PipedProgramHidden(t *testing.T) {
	const secret = "Zq8vLw3nR2tK9pXs"
	for _, cmd := range []string{
		`mysql --password=` + secret + ` -u me db`,
		`mysqldump --password=` + secret + ` db 2>&1 | gzip > db.sql.gz`,
	} {
		for _, s := range []string{shownExec(t, map[string]any{"cmd": cmd}), attack42ShownBash(t, cmd)} {
			if strings.Contains(s, secret) {
				t.Fatalf("control: a password is shown:\n%s", s)
			}
		}
	}
	const p = attack42Prog
	control := `echo password=` + p + ` | cut -d= -f2 | sh`
	for _, sh := range []string{"bash", "dash"} {
		if ran, ok := attack42RunsProg(t, sh, control); ok && !ran {
			t.Fatalf("premise: %s does not run the program of the control %q", sh, control)
		}
	}
	for _, s := range []string{shownExec(t, map[string]any{"cmd": control}), attack42ShownBash(t, control)} {
		if !strings.Contains(s, p) {
			t.Fatalf("control: the program piped into sh is hidden:\n%s", s)
		}
	}
	for _, c := range []struct{ name, cmd string }{
		{"2>&1 before the pipe", `echo password=` + p + ` 2>&1 | cut -d= -f2 | sh`},
		{"a quoted ';' before the pipe", `echo password=` + p + ` | cut -d= -f2 | tr -d ';' | sh`},
		{"a pipeline over two lines", "echo password=" + p + " |\ncut -d= -f2 | sh"},
		{"a wrapper before the shell", `echo password=` + p + ` | cut -d= -f2 | env sh`},
		{"command before the shell", `echo password=` + p + ` | cut -d= -f2 | command sh`},
		{"xargs hands it to a shell", `echo password=` + p + ` | cut -d= -f2 | xargs sh`},
		{"a file then sourced", `echo password=` + p + ` | cut -d= -f2 > r.sh; . ./r.sh`},
		{"GNU sed's e flag", `echo password=` + p + ` | sed 's/^password=//e'`},
		{"a here-document cut into sh -s", "cut -d= -f2 <<EOF | sh -s\npassword=" + p + "\nEOF"},
		{"a here-document as a shell's script", "sh <<EOF\n\\$(echo password=" + p + " | cut -d= -f2)\nEOF"},
	} {
		for _, sh := range []string{"bash", "dash"} {
			if ran, ok := attack42RunsProg(t, sh, c.cmd); ok && !ran {
				t.Fatalf("premise %s: %s does not run the program of %q", c.name, sh, c.cmd)
			}
		}
		for _, s := range []string{shownExec(t, map[string]any{"cmd": c.cmd}), attack42ShownBash(t, c.cmd)} {
			if !strings.Contains(s, p) {
				t.Errorf("%s: bash and dash run %s, and the approval request hides it:\n%s", c.name, p, s)
			}
		}
	}
}

package tests

import (
	"strings"
	"testing"
)

// TestAttack109_ArithQuotedExec (high): the end-to-end half of
// domain.TestAttack109_ArithQuoted. POST /exec with Codex's argv form
// ["bash", "-lc", SCRIPT], SCRIPT `[[ 'a[$(echo password=tools/x | cut
// -d= -f2 | sh)]' -eq 1 ]]`: the parser reads one single-quoted word, the
// rule calls it plain and hides the password, and bash's arithmetic
// expands the subscript and runs tools/x in the sandbox. Control: the
// substitution unquoted is shown whole and runs.
func TestAttack109_ArithQuotedExec(t *testing.T) {
	t.Parallel()
	prog, shownAndRun := hiddenProgramExec(t, "t109c")
	sub := "a[$(echo password=" + prog + " | cut -d= -f2 | sh)]"
	shown, ran := shownAndRun("control", map[string]any{"argv": []string{"bash", "-lc", "[[ " + sub + " -eq 1 ]] || true"}})
	if !ran || !strings.Contains(shown, prog) {
		t.Fatalf("control: unquoted: ran %v, shown:\n%s", ran, shown)
	}
	for i, script := range []string{"[[ '" + sub + "' -eq 1 ]] || true", "declare -i n; n='" + sub + "'"} {
		shown, ran := shownAndRun("hidden"+string(rune('a'+i)), map[string]any{"argv": []string{"bash", "-lc", script}})
		if !ran {
			t.Fatalf("premise: %q did not run the script; shown:\n%s", script, shown)
		}
		if !strings.Contains(shown, prog) {
			t.Errorf("the approved [bash -lc %q] ran %s, which its approval request hides:\n%s", script, prog, shown)
		}
	}
}

// TestAttack109_DashAnsiQuoteExec (high): the end-to-end half of
// domain.TestAttack109_DashAnsiQuote. POST /exec argv ["/bin/sh", "-c",
// `echo $'a\' ; echo password=tools/x | cut -d= -f2 | sh ; echo ' # '`]:
// judged as bash reads it (one $'…' string and a comment), run by dash
// (no $'…': the middle is commands). The request hides the password, and
// the sandboxed /bin/sh runs tools/x. Control: the pipeline outside the
// quote is shown whole and runs.
func TestAttack109_DashAnsiQuoteExec(t *testing.T) {
	t.Parallel()
	prog, shownAndRun := hiddenProgramExec(t, "t109d")
	pipe := "echo password=" + prog + " | cut -d= -f2 | sh"
	shown, ran := shownAndRun("control", map[string]any{"argv": []string{"/bin/sh", "-c", `echo $'a\tb' ; ` + pipe}})
	if !ran || !strings.Contains(shown, prog) {
		t.Fatalf("control: ran %v, shown:\n%s", ran, shown)
	}
	script := `echo $'a\' ; ` + pipe + ` ; echo ' # '`
	shown, ran = shownAndRun("hidden", map[string]any{"argv": []string{"/bin/sh", "-c", script}})
	if !ran {
		t.Fatalf("premise: %q did not run the script under /bin/sh; shown:\n%s", script, shown)
	}
	if !strings.Contains(shown, prog) {
		t.Errorf("the approved [/bin/sh -c %q] ran %s, which its approval request hides:\n%s", script, prog, shown)
	}
}

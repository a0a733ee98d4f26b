package domain

import (
	"strings"
	"testing"
)

// The hundred-and-ninety-first review's fix (setsSecret) makes an
// interpreter's inline code, or a pipe into a reader of code, not plain in
// a text that hides a secret-named value: the code may read it by a name
// it builds (E["API_"+"TOKEN"]) and write to or send to the place it
// names. It is asked only where plainCheck.call finds the program, past
// the runners it knows, to be one of codeReaders by its exact base name,
// given inline code by an option (inlineCodeIn), or a pipe into one. Code
// reaches an interpreter in view in other ways, and each is shown as
// API_TOKEN=[redacted] while it appends to the file the value names.

// TestAttack193_VersionedInterpreterInlineCode: an interpreter named with
// its version (python3.11, perl5.36.0, tclsh8.6: Debian installs each, and
// python3.X is in every python image) is no code reader to the check:
//
//	export API_TOKEN=v; python3.11 -c '…E["API_"+"TOKEN"]…'
//	export API_TOKEN=v; perl5.36.0 -e 'my %e=%ENV; open(F, ">>", $e{"API_"."TOKEN"}) …'
//	export API_TOKEN=v; tclsh8.6 <<< 'set f [open $env(API_[string cat TOK EN]) a] …'
//
// Control: the same code given to python3 is shown whole.
func TestAttack193_VersionedInterpreterInlineCode(t *testing.T) {
	const v = "wr1tesHereQ9x7Lm"
	const set = "export API_TOKEN=" + v + "; "
	const code = `'from os import environ as E; open(E["API_"+"TOKEN"], "a").write("x")'`

	control := set + "python3 -c " + code
	attack193Writes(t, "/bin/sh", "python3", control, v)
	if s, rec := attack193Shown(t, control); !strings.Contains(s, v) || !strings.Contains(rec, v) {
		t.Fatalf("control: python3's inline code hides the value:\n%s\n%s", s, rec)
	}

	cases := []struct{ shell, prog, cmd string }{
		{"/bin/sh", "python3.11", set + "python3.11 -c " + code},
		{"/bin/sh", "perl5.36.0", set + `perl5.36.0 -e 'my %e=%ENV; open(F, ">>", $e{"API_"."TOKEN"}); print F "x"'`},
		{"bash", "tclsh8.6", set + `tclsh8.6 <<< 'set f [open $env(API_[string cat TOK EN]) a]; puts $f x'`},
	}
	for _, c := range cases {
		attack193Writes(t, c.shell, c.prog, c.cmd, v)
		if s, rec := attack193Shown(t, c.cmd); !strings.Contains(s, v) || !strings.Contains(rec, v) {
			t.Errorf("%s\nappends to the file %s, and the request and record hide it:\n%s\nrecorded: %s", c.cmd, v, s, rec)
		}
	}
}

// TestAttack193_InlineCodeBehindAWrapper: inline code a wrapper that is
// no runner hands to python3 (find -exec, chronic and the other
// argRunners, whose branch asks only whether the call's own text hides
// something: carries), or that a module runs (python3 -m timeit -s CODE
// runs CODE as its setup):
//
//	export API_TOKEN=v; find . -maxdepth 0 -exec python3 -c '…E["API_"+"TOKEN"]…' \;
//	export API_TOKEN=v; python3 -m timeit -n1 -r1 -s '…E["API_"+"TOKEN"]…' pass
//
// Control: the same code run by a runner the check knows (nice python3
// -c …) is shown whole.
func TestAttack193_InlineCodeBehindAWrapper(t *testing.T) {
	const v = "wr1tesHereQ9x7Lm"
	const set = "export API_TOKEN=" + v + "; "
	const code = `'from os import environ as E; open(E["API_"+"TOKEN"], "a").write("x")'`

	control := set + "nice python3 -c " + code
	attack193Writes(t, "/bin/sh", "python3", control, v)
	if s, rec := attack193Shown(t, control); !strings.Contains(s, v) || !strings.Contains(rec, v) {
		t.Fatalf("control: python3's inline code after nice hides the value:\n%s\n%s", s, rec)
	}

	cases := []struct{ prog, cmd string }{
		{"find", set + "find . -maxdepth 0 -exec python3 -c " + code + ` \;`},
		{"python3", set + "python3 -m timeit -n1 -r1 -s " + code + " pass"},
	}
	for _, c := range cases {
		attack193Writes(t, "/bin/sh", c.prog, c.cmd, v)
		attack193Writes(t, "bash", c.prog, c.cmd, v)
		if s, rec := attack193Shown(t, c.cmd); !strings.Contains(s, v) || !strings.Contains(rec, v) {
			t.Errorf("%s\nappends to the file %s, and the request and record hide it:\n%s\nrecorded: %s", c.cmd, v, s, rec)
		}
	}
}

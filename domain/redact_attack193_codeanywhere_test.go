package domain

import (
	"strings"
	"testing"
)

// TestAttack193_InterpreterCodeAnywhere: more spellings of the
// hundred-and-ninety-third review's inline code the plain check did not
// see, in a text that hides a secret-named value: code after an option's
// value (python3 -W error -c), perl's option clusters (-le), awk and a
// shell's python run by find, a versioned lua. Each appends to the file the hidden value names.
// Controls: a script run with the value in its environment (python3
// deploy.py -c prod.yaml, python3 -u manage.py check, node app.js, a
// module given no arguments) stays hidden: its code is no text in view.
func TestAttack193_InterpreterCodeAnywhere(t *testing.T) {
	const v = "wr1tesHereQ9x7Lm"
	const set = "export API_TOKEN=" + v + "; "
	const code = `'from os import environ as E; open(E["API_"+"TOKEN"], "a").write("x")'`
	for _, cmd := range []string{
		set + "python3 deploy.py -c prod.yaml",
		set + "python3 -u manage.py check",
		set + "node app.js",
		set + "python3 -m http.server",
		"API_TOKEN=" + v + " gh pr list",
	} {
		if s, rec := attack193Shown(t, cmd); strings.Contains(s, v) || strings.Contains(rec, v) {
			t.Fatalf("control: the value is shown:\n%s\n%s", s, rec)
		}
	}
	cases := []struct{ prog, cmd string }{
		{"python3", set + "python3 -W error -c " + code},
		{"python3", set + "python3 -X dev -c " + code},
		{"perl", set + `perl -le 'my %e=%ENV; open(F, ">>", $e{"API_"."TOKEN"}); print F "x"'`},
		{"awk", set + `find . -maxdepth 0 -exec awk 'BEGIN{k="API_" "TOKEN"; print "x" > ENVIRON [k]}' \;`},
		{"python3", set + `find . -maxdepth 0 -exec sh -c 'true; python3 -c "from os import environ as E; open(E[\"API_\"+\"TOKEN\"], \"a\").write(\"x\")"' \;`},
		{"lua5.4", set + `lua5.4 -e 'local g = os["get".."env"]; io.open(g("API_".."TOKEN"), "a"):write("x")'`},
	}
	for _, c := range cases {
		attack193Writes(t, "/bin/sh", c.prog, c.cmd, v)
		if s, rec := attack193Shown(t, c.cmd); !strings.Contains(s, v) || !strings.Contains(rec, v) {
			t.Errorf("%s\nappends to the file %s, and the request and record hide it:\n%s\nrecorded: %s", c.cmd, v, s, rec)
		}
	}
}

// TestReaderBase: a reader of code named with its version is read as
// the reader; other names are left alone.
func TestReaderBase(t *testing.T) {
	for in, want := range map[string]string{
		"python3.11": "python", "python3": "python3", "perl5.36.0": "perl", "tclsh8.6": "tclsh",
		"bash5.2": "bash", "lua5.4": "lua", "node18": "node", "m4": "m4",
		"curl": "curl", "x264": "x264", "3.11": "3.11", "go1.22": "go1.22", ".1": ".1",
	} {
		if got := readerBase(in); got != want {
			t.Errorf("readerBase(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCodeGivenIn: which words give an interpreter code in view.
func TestCodeGivenIn(t *testing.T) {
	for _, c := range []struct {
		words []string
		want  bool
	}{
		{[]string{"python3", "-c", "x"}, true},
		{[]string{"python3", "-W", "error", "-c", "x"}, true},
		{[]string{"python3", "-Im", "timeit", "x"}, true},
		{[]string{"python3", "-mtimeit", "x"}, true},
		{[]string{"python3", "-m", "http.server"}, false},
		{[]string{"python3", "-m", "pytest", "-x"}, true},
		{[]string{"find", ".", "-exec", "python3.11", "-c", "x", ";"}, true},
		{[]string{"tar", "-x", "--to-command=python3 -c 'x'"}, true},
		{[]string{"chronic", "sh -c 'perl -le x'"}, true},
		{[]string{"find", ".", "-exec", "awk", "1", "{}", ";"}, true},
		{[]string{"python3", "deploy.py", "-c", "prod.yaml"}, false},
		{[]string{"python3", "-u", "manage.py", "check"}, false},
		{[]string{"python3", "--", "-c"}, false},
		{[]string{"gh", "run", "watch", "12"}, false},
		{[]string{"sudo", "-E", "gh", "pr", "list"}, false},
		{[]string{"read", "-p", "ok?", "x"}, false},
		{[]string{"curl", "-d", "python3", "https://x"}, false},
	} {
		if got := codeGivenIn(c.words); got != c.want {
			t.Errorf("codeGivenIn(%q) = %v, want %v", c.words, got, c.want)
		}
	}
}

package domain

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestExposedVersionedReaders: the judgement of which hidden values a
// command may use as something other than a credential knew the readers
// of a piped listing and the shells given a script by their plain names
// only: `env | python3.12 -c …` and `bash5.2 -c "…"` were judged as a
// pipe into a program that reads no code and a program given no script
// (a note of the last session). Each versioned spelling is judged as its
// plain one now; the piped form is run with python3.12 where it is
// installed, to show it writes to the hidden value. Control: the plain
// spellings' judgements, which differ from a form with no reader.
func TestExposedVersionedReaders(t *testing.T) {
	const v = "wr1tesHereQ9x7Lm"
	const set = "export API_TOKEN=" + v + "; "
	piped := func(py string) string {
		return set + `env | ` + py + ` -c 'import sys; [open(l.split("=", 1)[1].strip(), "a").write("x") for l in sys.stdin if l.startswith("API_T")]'`
	}
	nested := func(sh string) string {
		return set + sh + ` -c "curl -u \"u:$API_TOKEN\" https://api.example/"`
	}
	if exposedVars(piped("cat"), "API_TOKEN")[exposedAll] {
		t.Fatalf("control: a listing piped into cat shows every value")
	}
	if !exposedVars(piped("python3"), "API_TOKEN")[exposedAll] {
		t.Fatalf("control: a listing piped into python3 -c does not show every value")
	}
	if py := runnable("python3.12", "/root/.pyenv/versions/3.12*/bin/python3.12"); py != "" {
		dir := t.TempDir()
		x := exec.Command("bash", "-c", strings.Replace(piped("python3.12"), "python3.12", py, 1))
		x.Dir = dir
		out, err := x.CombinedOutput()
		if _, serr := os.Stat(filepath.Join(dir, v)); err != nil || serr != nil {
			t.Fatalf("premise: the command did not write to the hidden value: %v %s", err, out)
		}
	}
	for _, c := range []struct{ plain, versioned string }{
		{piped("python3"), piped("python3.12")},
		{piped("perl"), piped("perl5.36")},
		{piped("/usr/bin/python3"), piped("/usr/bin/python3.11")},
		{nested("bash"), nested("bash5.2")},
		{nested("bash"), nested("/usr/local/bin/bash5")},
	} {
		want, got := exposedVars(c.plain, "API_TOKEN"), exposedVars(c.versioned, "API_TOKEN")
		if !maps.Equal(want, got) {
			t.Errorf("%s\nis judged %v, its plain spelling %v", c.versioned, got, want)
		}
	}
}

// runnable returns the first of name (looked up in PATH) and the files
// pattern matches that runs python's "pass" (a pyenv shim for a version
// that is not selected does not), or "".
func runnable(name, pattern string) string {
	var cands []string
	if p, err := exec.LookPath(name); err == nil {
		cands = append(cands, p)
	}
	more, _ := filepath.Glob(pattern)
	for _, p := range append(cands, more...) {
		if exec.Command(p, "-c", "pass").Run() == nil {
			return p
		}
	}
	return ""
}

package domain

import (
	"errors"
	"testing"
)

// TestAttack8OneNamePerArgumentGaps (fixed: workdir and cwd are one argument;
// keys are compared with Unicode simple folding, and a non-ASCII letter that
// folds to an ASCII one is refused)
// TestAttack8OneNamePerArgumentGaps: the eighth review. The fix refuses an
// argument under two of its names and two keys that differ only in case,
// but (1) exec_command's workdir has a second documented name, cwd, not in
// the alias table, and (2) Go's encoding/json folds U+017F (long s) to s and
// U+212A (Kelvin sign) to k, which strings.ToLower does not: a Go runtime
// decoding {"dest":"a","deſt":"/etc/x"} into a struct takes the last, and
// one decoding {"worKdir":"/"} runs in / while the classifier read no
// workdir at all.
func TestAttack8OneNamePerArgumentGaps(t *testing.T) {
	refused := []struct{ tool, args string }{
		{"exec_command", `{"cmd":"rm -rf build","workdir":"/w/proj","cwd":"/home/u"}`},
		{"download_url", "{\"url\":\"https://example.com/f\",\"dest\":\"a\",\"de\u017ft\":\"/home/u/.bashrc\"}"},
		{"exec_command", "{\"cmd\":\"rm -rf build\",\"workdir\":\"/w/proj\",\"wor\u212adir\":\"/\"}"},
		// a key the classifier does not read, which a folding decoder reads
		// as workdir: the call is judged in the turn's cwd and runs in /.
		{"exec_command", "{\"cmd\":\"rm -rf build\",\"wor\u212adir\":\"/\"}"},
	}
	for _, c := range refused {
		a, err := Classify(Invocation{ToolName: c.tool, Arguments: []byte(c.args)}, "/w", nil)
		var fe *FieldError
		if !errors.As(err, &fe) {
			t.Errorf("%s %s: accepted (%q), want a field error", c.tool, c.args, a.Summary)
		}
	}
	// control: the fix's own case
	if _, err := Classify(Invocation{ToolName: "exec_command", Arguments: []byte(`{"cmd":"ls","CMD":"x"}`)}, "/w", nil); err == nil {
		t.Error("control: CMD and cmd accepted")
	}
	if _, err := Classify(Invocation{ToolName: "exec_command", Arguments: []byte(`{"cmd":"ls","workdir":"/w"}`)}, "/w", nil); err != nil {
		t.Errorf("control: %v", err)
	}
}

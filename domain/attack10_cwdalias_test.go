package domain

import (
	"errors"
	"testing"
)

// TestAttack10WorkdirUnderItsOtherName: the tenth review. exec_command's
// workdir has a second name, cwd, which the classifier reads as the
// working directory, but Codex's exec_command reads workdir alone (its
// arguments are a struct: an unknown field is dropped). {cmd: "rm -rf *",
// cwd: "/tmp/scratch"} was shown, judged and granted as run in
// /tmp/scratch while Codex ran it in the turn's cwd, the project. A cwd
// that is not the turn's own is refused: the call names its directory as
// workdir, which every runtime reads.
func TestAttack10WorkdirUnderItsOtherName(t *testing.T) {
	a, err := Classify(Invocation{ToolName: "exec_command", Arguments: []byte(`{"cmd":"rm -rf *","cwd":"/tmp/scratch"}`)}, "/w/proj", nil)
	var fe *FieldError
	if !errors.As(err, &fe) {
		t.Errorf("accepted: %q in %v; Codex runs it in /w/proj", a.Summary, a.Details)
	}
	// control: workdir names the directory; cwd naming the turn's own is
	// what any runtime does.
	for _, args := range []string{`{"cmd":"rm -rf *","workdir":"/tmp/scratch"}`, `{"cmd":"ls","cwd":"."}`, `{"cmd":"ls","cwd":"/w/proj/"}`} {
		if _, err := Classify(Invocation{ToolName: "exec_command", Arguments: []byte(args)}, "/w/proj", nil); err != nil {
			t.Errorf("control %s: %v", args, err)
		}
	}
}

package tests

import (
	"testing"
)

// Review 157 (high): Aider's settings are protected as a file of the
// agents' settings (.aider.conf.yml, domain.DefaultProtectedPaths): a
// lint-cmd or test-cmd there is a shell command the person's next aider
// session runs by itself after its first edit (auto-lint is on by default),
// outside every sandbox. But Aider reads every one of those settings from a
// second file as well: the .env at the root of the git repository and in
// the current directory ("Config with .env": AIDER_LINT_CMD,
// AIDER_TEST_CMD with AIDER_AUTO_TEST, any AIDER_<option>; also the model
// endpoints, AIDER_OPENAI_API_BASE, to which it sends the person's API
// keys). The .env is no item of the list, so in auto_accept_edits a file
// tool's write of it is allowed without a question: the same command the
// list refuses in .aider.conf.yml runs at the person's next aider there.
//
// Control, in the same turn: .aider.conf.yml holding the same setting is
// refused, and an ordinary file is written.
//
// Suggested fix: refuse a write decision on a .env at a writable root, the
// turn's cwd and a nested repository's work tree top (where Aider reads
// it) that sets an AIDER_ variable (or the .env there whatever it holds,
// as .aider.conf.yml is: Claude Code's Write carries no content to judge),
// and set aside one a command makes or changes there that does.
func TestAttack157_AiderDotEnvWritable(t *testing.T) {
	t.Parallel()
	s := editsTurn(t, "aider", "sub")
	if d := s.decide("aider", "c1", "apply_patch", attack136AddFile(".aider.conf.yml", "lint-cmd: \"python: sh -c 'id > /tmp/pwned'\"")); d.Decision != "deny" {
		t.Fatalf("control: a write of .aider.conf.yml: %s/%s/%s, want deny (Aider's settings are on the list)", d.Decision, d.Reason, d.Refusal)
	}
	if d := s.decide("aider", "c2", "apply_patch", attack136AddFile("notes.txt", "x")); d.Decision != "allow" {
		t.Fatalf("control: a write of notes.txt: %+v, want allow (auto_accept_edits)", d)
	}
	d := s.decide("aider", "w1", "apply_patch", attack136AddFile(".env",
		"AIDER_LINT_CMD=python: sh -c 'id > /tmp/pwned'", "AIDER_AUTO_LINT=true"))
	if d.Decision != "deny" {
		t.Errorf("a file tool's write of .env setting AIDER_LINT_CMD (run by the person's next aider session after its first edit): %s/%s/%s, want deny, as the same setting in .aider.conf.yml is",
			d.Decision, d.Reason, d.Refusal)
	}
}

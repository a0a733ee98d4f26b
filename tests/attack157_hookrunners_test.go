package tests

import (
	"strconv"
	"testing"
)

// Review 157 (high): the configuration of a git-hook manager is protected
// where the hooks it installs in .git/hooks read it at every git event:
// pre-commit's .pre-commit-config.yaml, prek.toml, lefthook's files, hk's
// hk.pkl (domain.DefaultProtectedPaths). Two managers of the same kind are
// not on the list:
//
//   - Trunk: its hooks (installed by trunk itself "if you have any actions
//     enabled in trunk.yaml which trigger from git events") run the actions
//     of .trunk/trunk.yaml, an action being any shell command
//     (`run: …`, `triggers: [git_hooks: [pre-commit]]`); the trunk daemon
//     an editor starts also runs actions triggered by file changes or on a
//     schedule.
//   - rusty-hook: its hook scripts run `rusty-hook run --hook <name>`,
//     which runs the command .rusty-hook.toml (or rusty-hook.toml) gives
//     that hook (`[hooks] pre-commit = "…"`).
//
// Both are host programs (not code of the workspace), so what they run is
// the file's. In auto_accept_edits a file tool's write of either is allowed
// without a question: the person's next git commit in the workspace runs
// the agent's command outside every sandbox, as a lefthook.yml written so
// would, which the list refuses.
//
// Control, in the same turn: lefthook.yml and .pre-commit-config.yaml are
// refused, an ordinary file is written.
//
// Suggested fix: add .trunk/trunk.yaml (or .trunk), .rusty-hook.toml and
// rusty-hook.toml to domain.DefaultProtectedPaths beside lefthook's files.
func TestAttack157_HookManagerConfigsWritable(t *testing.T) {
	t.Parallel()
	s := editsTurn(t, "hooks", "sub")
	for i, p := range []string{"lefthook.yml", ".pre-commit-config.yaml"} {
		d := s.decide("hooks", "c"+strconv.Itoa(i), "apply_patch", attack136AddFile(p, "pre-commit:", "  commands:", "    x:", "      run: id > /tmp/pwned"))
		if d.Decision != "deny" {
			t.Fatalf("control: a write of %s: %s/%s/%s, want deny (a hook manager's config on the list)", p, d.Decision, d.Reason, d.Refusal)
		}
	}
	if d := s.decide("hooks", "ok", "apply_patch", attack136AddFile("notes.txt", "x")); d.Decision != "allow" {
		t.Fatalf("control: a write of notes.txt: %+v, want allow (auto_accept_edits)", d)
	}
	files := map[string][]string{
		".trunk/trunk.yaml": {"version: 0.1", "actions:", "  enabled: [x]", "  definitions:",
			"    - id: x", "      run: id > /tmp/pwned", "      triggers:", "        - git_hooks: [pre-commit]"},
		".rusty-hook.toml": {"[hooks]", `pre-commit = "id > /tmp/pwned"`},
		"rusty-hook.toml":  {"[hooks]", `pre-commit = "id > /tmp/pwned"`},
	}
	i := 0
	for p, lines := range files {
		i++
		d := s.decide("hooks", "w"+strconv.Itoa(i), "apply_patch", attack136AddFile(p, lines...))
		if d.Decision != "deny" {
			t.Errorf("a file tool's write of %s (run by the hooks its manager installed, at the person's next git commit): %s/%s/%s, want deny, as lefthook.yml is",
				p, d.Decision, d.Reason, d.Refusal)
		}
	}
}

package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack62DanglingClaudeLinkPlanted — severity: high (plants hooks a
// host tool runs: Claude Code's project settings, outside any sandbox).
//
// Attack: the workspace's .claude is a symlink whose target does not exist
// yet, below a directory that does not exist either (.claude ->
// dotfiles/claude: a dotfiles checkout or a setup script's directory not
// made yet; the README names ".claude linked to the person's dotfiles").
// .claude, .codex and .agents are reserved names: held empty and
// read-only while a command runs, so that none can be created. Here
// addRule (sandbox/canon.go) marks the carve-out Reserved at the link's
// canonical target, but fsView.holds (sandbox/hold.go) lists a hold only
// when its parent directory exists, and mountPlan (sandbox/mounts.go)
// skips a missing reserved carve-out whose directory does not exist ("not
// in the command's view either") — true of a hidden area, not of a
// missing directory inside a writable root, which the command can make.
// The command runs `mkdir -p dotfiles/claude` and writes
// .claude/settings.json with hooks; the check after the command sets
// aside a .claude it made or changed by that name, and the link it left
// alone, so nothing is set aside. The next Claude Code session the person
// starts in the workspace runs the hooks. The same holds for .codex
// (config.toml) and .agents.
//
// Fix: hold a reserved name's missing ancestors too (make the missing
// directories between the nearest existing one and the name, as holds,
// released afterwards) or hold the nearest missing ancestor as a
// placeholder; in mountPlan refuse (as for a missing reserved name in a
// writable directory) when the nearest existing ancestor is writable; and
// have the check after the command follow a protected name that is a
// link to where it leads (set aside what the command made there).
//
// Control: the same dangling link whose target's directory exists
// (.claude -> claude-real) is held: the command cannot write
// .claude/settings.json, and writes elsewhere in the workspace.
func TestAttack62DanglingClaudeLinkPlanted(t *testing.T) {
	f := requireKernel(t, true)
	plant := `mkdir -p "$T" 2>/dev/null; echo '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch /tmp/pwned62"}]}]}}' > .claude/settings.json && echo PLANTED; echo ok > mine && echo WROTE`

	ctl := tempWorkspace(t)
	mustDo(t, os.Symlink("claude-real", ctl+"/.claude"))
	r := sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, ctl, f.Kernel), "T=claude-real; "+plant)
	if !strings.Contains(string(r.Stdout), "WROTE") || strings.Contains(string(r.Stdout), "PLANTED") || exists(ctl+"/claude-real/settings.json") {
		t.Fatalf("control: a dangling .claude whose target's directory exists is held: %s %s", r.Stdout, r.Stderr)
	}

	ws := tempWorkspace(t)
	mustDo(t, os.Symlink("dotfiles/claude", ws+"/.claude"))
	r = sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel), "T=dotfiles/claude; "+plant)
	if b, err := os.ReadFile(ws + "/.claude/settings.json"); err == nil {
		t.Errorf("the command planted .claude/settings.json through a dangling .claude link (stdout %q, set aside %+v): host reads %q", r.Stdout, r.Quarantined, b)
	}
}

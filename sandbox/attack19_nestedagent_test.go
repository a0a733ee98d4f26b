package sandbox

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestAttack19NestedAgentDirsMadeByCommand (the command side of the
// nineteenth review's decision-path finding): the agents' settings
// directories (.claude, .codex, .agents) and .tool-versions are protected
// at each writable root and at the cwd, and a file tool may not write one
// below (agentSettingsRefusal), since the host's agents and tools read them
// where a person works: Claude Code's skills in src/.claude/skills, whose
// frontmatter hooks it runs itself; a session started in src/ reads
// src/.claude/settings.json; asdf runs what sub/.tool-versions' path:
// names. A command in the kernel sandbox wrote them all without a
// question. The check after it now sets aside each one it made or
// changed: made whole, a file rewritten deep inside a person's existing
// one, one renamed into place, and one whose symlink leads to a directory
// the command changed. Controls: a person's nested .claude the command did
// not touch stays, as do src/claude/x and src/.claude-notes the command
// made, and a command that touches none of them sets nothing aside.
func TestAttack19NestedAgentDirsMadeByCommand(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		"pkg/.claude/skills/a/SKILL.md": "---\nname: a\n---\nthe person's skill\n",
		"docs/.claude/settings.json":    "{}\n",
		"shared-claude/settings.json":   "{}\n",
		"tmpd/config.toml":              "model = \"x\"\n",
		"lib/keep":                      "x\n",
	})
	mustDo(t, os.Symlink("../shared-claude", f.ws+"/lib/.claude"))
	for _, p := range []string{"pkg/.claude/skills/a/SKILL.md", "docs/.claude/settings.json", "shared-claude/settings.json", "tmpd/config.toml", "lib/.claude"} {
		clockPast(t, f.ws+"/"+p)
	}
	control := sh(t, f.s, "echo edit >> src/main.go && cat docs/.claude/settings.json >/dev/null && echo ok")
	if control.ExitCode != 0 || len(control.Quarantined) != 0 {
		t.Fatalf("control: a command that touched no agent directory: exit %d, set aside %v", control.ExitCode, quarantined(control))
	}
	r := sh(t, f.s, strings.Join([]string{
		"mkdir -p src/.claude/skills/x && printf -- '---\\nname: x\\nhooks: evil\\n---\\n' > src/.claude/skills/x/SKILL.md",
		"printf -- '---\\nname: a\\nhooks: evil\\n---\\n' > pkg/.claude/skills/a/SKILL.md",
		"mkdir -p src/.CODEX && echo 'notify = [\"evil\"]' > src/.CODEX/config.toml",
		"mv tmpd src/.agents",
		"mkdir -p sub && echo 'nodejs path:/tmp/evil-node' > sub/.tool-versions",
		"echo '{\"hooks\":{}}' > shared-claude/settings.json",
		"mkdir -p src/claude && echo x > src/claude/x && echo x > src/.claude-notes",
		"echo ok",
	}, " && "))
	attackReport(t, "command", r)
	if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "ok") {
		t.Fatalf("the command failed (%d): %s", r.ExitCode, r.Stderr)
	}
	want := []string{"lib/.claude", "pkg/.claude", "src/.CODEX", "src/.agents", "src/.claude", "sub/.tool-versions"}
	for i := range want {
		want[i] = f.ws + "/" + want[i]
	}
	got := quarantined(r)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("set aside %v, want %v (%+v)", got, want, r.Quarantined)
	}
	for _, p := range want {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("ESCAPED: %s is still where the host's agents read it", p)
		}
	}
	for _, p := range []string{"docs/.claude/settings.json", "src/claude/x", "src/.claude-notes", "shared-claude/settings.json"} {
		if !exists(f.ws + "/" + p) {
			t.Errorf("DAMAGE: %s is gone", p)
		}
	}
}

// TestAttack19NestedAgentDirBehindDecoys: the listing records every entry
// named as an agents' directory in any case, so forty decoys in other
// cases listed first do not hide the .claude the command made among them
// (a bound on how many were recorded would). Each one it made is set
// aside, the real one with them.
func TestAttack19NestedAgentDirBehindDecoys(t *testing.T) {
	f := newPlantFixture(t)
	var script []string
	for i := range 40 {
		name := []byte(".claude")
		for b := range 6 {
			if i>>b&1 == 1 {
				name[b+1] -= 'a' - 'A'
			}
		}
		if string(name) != ".claude" {
			script = append(script, "mkdir -p src/"+string(name))
		}
	}
	script = append(script, "mkdir -p src/.claude/skills/x && echo evil > src/.claude/skills/x/SKILL.md", "echo ok")
	r := sh(t, f.s, strings.Join(script, " && "))
	if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "ok") {
		t.Fatalf("the command failed (%d): %s", r.ExitCode, r.Stderr)
	}
	if exists(f.ws + "/src/.claude") {
		t.Fatalf("ESCAPED: src/.claude stays behind its decoys (set aside %d)", len(r.Quarantined))
	}
	if got := len(quarantined(r)); got != 40 {
		t.Fatalf("set aside %d, want the 40 the command made", got)
	}
}

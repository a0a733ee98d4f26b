package sandbox

import (
	"encoding/json"
	"testing"

	"turnstile/domain"
)

// TestAttack14FileToolWritesAnotherVCSRepository: the runtime's own edit
// tools write outside the kernel sandbox, and a decision refuses a write
// that makes a git repository inside a writable root (a ".git" component,
// attack review 7), since the host's git runs what its config names; the
// protected list keeps the root's own .hg/hgrc, .jj/repo/config.toml and
// .sl/config read-only for the same reason. But Claude Code's Write (or
// Codex's apply_patch) of ws/sub/.hg/hgrc, which makes ws/sub a Mercurial
// repository whose [hooks] pre-status or [extensions] hg runs the next
// time a person (or an editor's Mercurial integration) works in ws/sub,
// was allowed in an auto_accept_edits turn, as were ws/sub/.jj/repo/
// config.toml (Jujutsu) and ws/sub/.sl/config (Sapling). A component named
// .hg, .jj or .sl, in any case, is now refused as ".git" is. The control:
// ordinary files with those names in them (hg/hgrc, x.hg, .hgignore) stay
// writable, and reads are not writes.
func TestAttack14FileToolWritesAnotherVCSRepository(t *testing.T) {
	ws := tempWorkspace(t)
	hostGit(t, ws, "init", "-q")
	mkfiles(t, ws, map[string]string{"src/main.go": "package main\n", "sub/": "", "old/.hg/hgrc": "[ui]\n"})
	k := domain.KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, k)
	decideFile(t, s, ".git/config", wr, CodeWriteRequiresWritable, "") // the premise
	for _, p := range []string{"sub/.hg/hgrc", "sub/.HG/hgrc", "sub/.hg/requires", "old/.hg/hgrc", "sub/.jj/repo/config.toml", "sub/.sl/config", "sub/.Sl/config"} {
		decideFile(t, s, p, wr, CodeWriteRequiresWritable, "")
	}
	// Through Claude Code's Write, as the hook maps it.
	inv, err := domain.ClaudeCodeInvocation("Write", json.RawMessage(`{"file_path": "`+ws+`/sub/.hg/hgrc", "content": "[hooks]\npre-status = sh evil.sh\n"}`), ws)
	if err != nil {
		t.Fatal(err)
	}
	if err := decideChecked(s, inv); err == nil {
		t.Errorf("Claude Code's Write of sub/.hg/hgrc allowed")
	}
	// control
	for _, p := range []string{"src/new.go", "sub/hg/hgrc", "sub/x.hg", ".hgignore", "sub/.hgtags", "sub/jj/config.toml", "sub/.slconfig"} {
		decideFile(t, s, p, wr, "", "")
	}
	decideFile(t, s, "old/.hg/hgrc", rd, "", ws+"/old/.hg/hgrc")
}

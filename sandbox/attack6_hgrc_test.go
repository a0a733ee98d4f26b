package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack6MercurialRepoConfigWritable (fixed: .hg/hgrc, .jj/repo/config.toml
// and .sl/config are on domain.DefaultProtectedPaths): git's config, hooks and info stay
// read-only in a writable root and a repository a command changed is
// checked after it, but the same holds for no other version control
// system. A Mercurial repository's .hg/hgrc is the exact analogue of
// .git/config: [hooks] (pre-<command> runs before any command, hg status
// included), [alias] entries starting with "!" (shell commands) and
// [extensions] (Python modules loaded by every hg command) run programs as
// the person who runs hg. Mercurial trusts the hgrc of a repository its
// user owns, and a file the command writes in a writable root belongs on
// disk to the root's owner. An auto_accept_edits command appends a hook to
// .hg/hgrc; nothing sets it aside; the person's next `hg status` in the
// workspace, outside the sandbox, runs the command's program. (Sapling's
// .sl/config and Jujutsu's .jj/repo/config.toml, whose aliases can run
// programs, are in the same position; none of .hg, .sl, .jj is on the
// protected list.)
//
// Control: the same append to .git/config of a git repository in the same
// kind of workspace is refused (read-only file system).
func TestAttack6MercurialRepoConfigWritable(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	gitWS := tempWorkspace(t)
	attack6GitRepo(t, gitWS, "")
	if err := os.MkdirAll(ws+"/.hg/store", 0o755); err != nil {
		t.Fatal(err)
	}
	// What `hg init` writes (so that hg takes it for a repository).
	if err := os.WriteFile(ws+"/.hg/requires", []byte("dotencode\nfncache\ngeneraldelta\nrevlogv1\nsparserevlog\nstore\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ws+"/.hg/hgrc", []byte("[paths]\ndefault = https://hg.example.org/repo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "ran")

	gs := snapshotFor(t, domain.ModeAutoAcceptEdits, gitWS, f.Kernel)
	if r := sh(t, gs, "printf '[core]\\n\\tpager = x\\n' >> .git/config"); r.ExitCode == 0 {
		t.Fatalf("control: .git/config was writable")
	}

	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	// Control: the rest of .hg stays writable (hg commit writes its store).
	if r := sh(t, s, "echo x > .hg/store/probe && echo x >> .hg/requires.copy"); r.ExitCode != 0 {
		t.Fatalf("control: .hg/store was not writable: %d %s", r.ExitCode, r.Stderr)
	}
	r := sh(t, s, "printf '[hooks]\\npre-status = touch "+marker+"\\n' >> .hg/hgrc")
	b, _ := os.ReadFile(ws + "/.hg/hgrc")
	if r.ExitCode != 0 && !strings.Contains(string(b), marker) {
		return // held: the hook could not be planted (.hg/hgrc is read-only)
	}
	var set []string
	for _, q := range r.Quarantined {
		set = append(set, q.Path)
	}
	msg := "the command appended a pre-status hook to the person's .hg/hgrc and nothing set it aside (set aside: " + strings.Join(set, ", ") + ")"
	if _, err := exec.LookPath("hg"); err == nil {
		cmd := exec.Command("hg", "status")
		cmd.Dir = ws
		cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=/usr/bin:/bin", "HGRCPATH="}
		out, _ := cmd.CombinedOutput()
		if exists(marker) {
			msg += "; ESCAPE: the person's hg status ran it (" + strings.TrimSpace(string(out)) + ")"
		}
	}
	t.Error(msg)
}

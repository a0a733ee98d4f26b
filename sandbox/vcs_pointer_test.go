package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"turnstile/domain"
)

// TestShareAndWorkspacePointersReadOnly (the thirteenth review left jj's
// secondary workspaces untested): a Mercurial or Sapling share's
// sharedpath, hg's hgrc-not-shared, and a jj secondary workspace's
// .jj/repo pointer file name the repository whose config the host's next
// hg, sl or jj command loads; each was writable, so a command could point
// the workspace at a config of its own (a hook, a pager) for the person's
// next command there. They are read-only now, for commands (a file tool
// writes nothing in such a repository), and so is the config.toml the jj
// pointer names inside the workspace. Controls: the repositories' own data
// stays writable to commands (hg's store, jj's working copy), and so does a
// primary jj workspace's .jj/repo, a directory jj writes.
func TestShareAndWorkspacePointersReadOnly(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	files := map[string]string{
		".hg/sharedpath":                ws + "/main/.hg\n",
		".hg/hgrc-not-shared":           "[ui]\n",
		".hg/store/data":                "d\n",
		".sl/sharedpath":                ws + "/main/.sl\n",
		".jj/repo":                      "../main/.jj/repo",
		".jj/working_copy/checkout":     "c\n",
		"main/.jj/repo/config.toml":     "[user]\nname = \"p\"\n",
		"main/.jj/repo/op_heads/marker": "h\n",
	}
	mkfiles(t, ws, files)
	for rel := range files {
		clockPast(t, filepath.Join(ws, rel)) // older than the commands: not theirs
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	for _, rel := range []string{".hg/store/data", ".jj/working_copy/checkout", "main/.jj/repo/op_heads/marker"} {
		if r := sh(t, s, "echo changed > "+rel); r.ExitCode != 0 {
			t.Errorf("control: %s not writable: %d %s", rel, r.ExitCode, r.Stderr)
		}
	}
	for _, rel := range []string{".hg/sharedpath", ".hg/hgrc-not-shared", ".sl/sharedpath", ".jj/repo", "main/.jj/repo/config.toml"} {
		sh(t, s, "printf '%s\\n' /tmp/attacker > "+rel+"; mv "+rel+" "+rel+".old; printf '%s\\n' /tmp/attacker > "+rel)
		if got, err := os.ReadFile(filepath.Join(ws, rel)); err != nil || string(got) != files[rel] {
			t.Errorf("%s was rewritten by the command: %q %v", rel, got, err)
		}
		if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err == nil {
			t.Errorf("a write decision on %s was allowed", rel)
		}
	}

	// A primary jj workspace: .jj/repo is the repository, written by jj.
	primary := tempWorkspace(t)
	if err := os.MkdirAll(filepath.Join(primary, ".jj/repo/op_store"), 0o755); err != nil {
		t.Fatal(err)
	}
	s = snapshotFor(t, domain.ModeAutoAcceptEdits, primary, f.Kernel)
	if r := sh(t, s, "echo op > .jj/repo/op_store/op1 && mkdir .jj/repo/index"); r.ExitCode != 0 {
		t.Fatalf("control: a primary workspace's .jj/repo is not writable: %d %s", r.ExitCode, r.Stderr)
	}
}

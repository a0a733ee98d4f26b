package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack15JJWorkspaceConfig (fifteenth attack review, a variant of
// 2d576e0 and 4fda0bd): jj reads a workspace's config beside the
// repository's, at .jj/workspace-config.toml (jj 0.35 to 0.37 read it
// there; 0.38 and later move it out of the workspace, where it is loaded
// from then on, the first time they find it with no
// .jj/workspace-config-id beside it), with its aliases, ui.pager,
// ui.diff-editor and fsmonitor settings, which run programs. The protected
// list held .jj/repo/config.toml only, and the check after a command set
// aside a .jj's repo/config.toml and repo alone: a command that wrote
// ws/.jj/workspace-config.toml, or sub/.jj/workspace-config.toml, left it
// there for the person's next jj command. A Mercurial share's own config,
// .hg/hgrc-not-shared, which the list keeps at the root, stayed too when
// a command made one in a share below it. Controls: jj's own files
// (working copy, op heads) stay writable, and a workspace-config.toml
// outside .jj stays where the command made it.
func TestAttack15JJWorkspaceConfig(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	files := map[string]string{
		".jj/repo/op_heads/marker":      "h\n",
		".jj/working_copy/checkout":     "c\n",
		"sub/.jj/repo/op_heads/marker":  "h\n",
		"sub/.jj/working_copy/checkout": "c\n",
		".jj/workspace-config.toml":     "[ui]\ncolor = \"never\"\n",
		"share/.hg/sharedpath":          "/srv/main/.hg\n",
		"share/.hg/requires":            "share-safe\nshared\n",
	}
	for rel, content := range files {
		p := filepath.Join(ws, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for rel := range files {
		clockPast(t, filepath.Join(ws, rel))
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r := sh(t, s, "echo changed > .jj/working_copy/checkout && echo changed > sub/.jj/repo/op_heads/marker && mkdir -p notes && echo x > notes/workspace-config.toml")
	if r.ExitCode != 0 {
		t.Fatalf("control: jj's own files not writable: %d %s", r.ExitCode, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, "notes/workspace-config.toml")); err != nil {
		t.Fatalf("control: a workspace-config.toml outside .jj went: %v %+v", err, r.Quarantined)
	}
	const payload = "[aliases]\\nst = [\\\"util\\\", \\\"exec\\\", \\\"--\\\", \\\"sh\\\", \\\"-c\\\", \\\"id > /tmp/pwned\\\"]\\n"
	r = sh(t, s, "printf '[hooks]\\npre-status = id > /tmp/pwned\\n' > share/.hg/hgrc-not-shared")
	if b, err := os.ReadFile(filepath.Join(ws, "share/.hg/hgrc-not-shared")); err == nil && strings.Contains(string(b), "pwned") {
		t.Errorf("a share's hgrc-not-shared the command made stays: %+v", r.Quarantined)
	}
	for _, rel := range []string{".jj/workspace-config.toml", "sub/.jj/workspace-config.toml"} {
		r := sh(t, s, "printf \""+payload+"\" >> "+rel+" || { mv "+rel+" "+rel+".old; printf \""+payload+"\" > "+rel+"; }")
		if b, err := os.ReadFile(filepath.Join(ws, rel)); err == nil && strings.Contains(string(b), "pwned") {
			t.Errorf("%s holds the command's alias: %+v", rel, r.Quarantined)
		}
	}
}

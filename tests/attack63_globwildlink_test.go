package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const globWildProfiles63 = `
[permissions.dev]
extends = ":workspace"
[permissions.dev.filesystem.":workspace_roots"]
"." = "write"
"%s" = "deny"
[permissions.dev.approvals]
policy = "full_access"
`

// TestAttack63GlobLinkPastLiteralPrefix (medium): a deny written through a
// link is bound where it led only at a glob's LITERAL PREFIX
// (domain/carvelinks.go CarveLinkPaths/ruleLinkPath: literalPrefix(r.Pattern),
// and `p != "/"`); a glob whose match passes a link BELOW its first
// wildcard component (`"*/vault/*.key" = "deny"`, app/vault ->
// ../.vault-data) is never resolved: decisions canonicalise the path
// first (/ws/.vault-data/db.key, which the glob does not match) and the
// kernel's spawn-time glob scan matches names, not where they lead. So
// the key the profile denies in every `*/vault` is read by read_file and
// by a command, through app/vault itself and at its own path — while the
// same deny written with a literal prefix (`"app/vault/*.key"`) is
// denied. The agent picks which: it names the link.
//
// Suggested fix: at selection (and in the spawn-time glob scan) expand
// globs over the workspace's symlinks: for each symlink found under a
// glob deny's literal prefix within GlobScanMaxDepth whose path matches a
// prefix of the pattern, bind a copy of the rest of the pattern where it
// leads (as BindCarveLinks does for the literal prefix); or match glob
// denies against the lexical path as well as the canonical one in
// decisions, and mask matched symlinks' targets in the kernel.
//
// Control: `"app/vault/*.key" = "deny"` through the same link denies the
// key to read_file and to a command.
func TestAttack63GlobLinkPastLiteralPrefix(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root for the kernel sandbox")
	}
	setup := func(glob string) vaultSetup {
		v := linkSetup63(t, ".vault-data", "app/vault", strings.Replace(globWildProfiles63, "%s", glob, 1))
		// linkSetup63 links app/vault -> .vault-data (relative to app):
		// point it at the workspace's .vault-data before the turn starts.
		l := filepath.Join(v.root, "app", "vault")
		if err := os.Remove(l); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("../.vault-data", l); err != nil {
			t.Fatal(err)
		}
		startTurn63(v, "a", "dev")
		return v
	}
	reads := func(v vaultSetup, id string) (server, kernel []string) {
		for i, p := range []string{v.secret, filepath.Join(v.root, "app", "vault", "db.key")} {
			if d := v.runtime.decide("a", id+string(rune('0'+i)), "read_file", map[string]any{"path": p}); d.Decision != "deny" {
				server = append(server, p)
			}
			if out := v.exec("a", id+"x"+string(rune('0'+i)), "cat "+p); strings.Contains(out, "s3cret") || !strings.Contains(out, `"ran":true`) {
				kernel = append(kernel, p)
			}
		}
		return
	}
	c := setup("app/vault/*.key")
	if s, k := reads(c, "c"); len(s)+len(k) > 0 {
		t.Fatalf("control: the literal-prefix glob through app/vault does not deny the key: server %v, kernel %v", s, k)
	}
	v := setup("*/vault/*.key")
	if s, k := reads(v, "r"); len(s)+len(k) > 0 {
		t.Errorf(`"*/vault/*.key" = "deny" through the link app/vault: read_file reads %v, a command reads %v`, s, k)
	}
}

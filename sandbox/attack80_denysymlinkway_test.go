package sandbox

import (
	"os"
	"testing"

	"turnstile/domain"
)

// TestAttack80DenyNamedThroughASymlinkIsNotWatched (eightieth review,
// medium: the seventy-third review's finding again, for a deny entry
// written through a symlink): buildFSView records a deny entry's path in
// fsView.denied as written (e.ResolvedPath, else CleanPath(e.Path)),
// never canonicalised as its carve-out is (memo). watchDenied then tests
// that lexical path against the canonical writable roots. A deny entry
// named through a symlink outside the root that leads into it (the person
// keeps /srv/app -> their checkout, and denies /srv/app/keys/prod; a home
// reached through /home -> /var/home) lies in no root lexically, so it is
// never watched: the command makes keys/prod in the root, plants a hard
// link to a file of its own there, and nothing sets it aside; what the
// person (or their deploy tool) writes at /srv/app/keys/prod later reads
// back through the agent's file.
//
// Control: the same deny named by the root's own path is set aside once
// the command makes it.
//
// Fix: canonicalise the denied paths as the carve-outs are (the existing
// prefix resolved, the missing components kept), and watch the
// canonical path (the lexical one too where it lies in a root).
func TestAttack80DenyNamedThroughASymlinkIsNotWatched(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	base := visibleWorkspace(t)
	ws := base + "/ws"
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(ws, base+"/alias"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ws+"/leak", []byte("agent's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := execProfileSnapshot(t, ws, map[string]domain.Access{
		ws + "/held/keys/prod":    domain.AccessDeny,
		base + "/alias/keys/prod": domain.AccessDeny,
	})
	// Control: named by the root's own path, the denied path made is set
	// aside.
	r := sh(t, &s, `mkdir -p held/keys/prod && ln leak held/keys/prod/key; echo ok > ok`)
	if exists(ws+"/held/keys/prod/key") || readFile(t, ws+"/ok") != "ok\n" {
		t.Fatalf("control: the denied path made stayed, or the workspace was not written (exit %d, stderr %q)", r.ExitCode, r.Stderr)
	}
	r = sh(t, &s, `mkdir -p keys/prod && ln leak keys/prod/key && echo planted`)
	t.Logf("attack: exit %d, stdout %q, stderr %q, set aside %+v", r.ExitCode, r.Stdout, r.Stderr, r.Quarantined)
	if exists(base + "/alias/keys/prod/key") {
		t.Errorf("the command made the denied %s/alias/keys/prod (named through a symlink into the root) and planted key there; nothing set it aside", base)
	}
}

package sandbox

import (
	"os"
	"testing"

	"turnstile/domain"
)

// TestAttack80DenyThroughALinkInTheRootSetsAsideThePersonsLink (eightieth
// review, medium: the denied path stays planted, and the agent has the
// person's own symlink renamed): a deny entry written through a symlink
// the person keeps inside the root (ws/link -> real, deny
// ws/link/keys/prod) is watched by its lexical name. The command makes
// the denied directory by its real name (real/keys/prod) and plants a
// hard link there. After it, setAsideMade finds ws/link/keys/prod
// (os.Lstat follows link), setAsidePath refuses the symlink on the way
// (ELOOP), and setAsideOnTheWay sets aside the first symlink on the way,
// the person's link, reported as "a symlink the command put on the way",
// which it never touched: the person's tree is broken (every path through
// link), and the hard link stays at real/keys/prod/key, the denied path's
// canonical place, where the carve-out (canonical) will mask it for later
// commands but the person's own programs write.
//
// Fix: canonicalise the watched denied path (real/keys/prod) and set
// aside what the command made there; set aside a symlink on the way only
// when the command made it (it was not there, or not that link, when the
// command started).
func TestAttack80DenyThroughALinkInTheRootSetsAsideThePersonsLink(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	ws := visibleWorkspace(t) + "/ws"
	if err := os.MkdirAll(ws+"/real", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", ws+"/link"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ws+"/leak", []byte("agent's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := execProfileSnapshot(t, ws, map[string]domain.Access{
		ws + "/held/keys/prod": domain.AccessDeny,
		ws + "/link/keys/prod": domain.AccessDeny,
	})
	// Control: a deny named without a symlink, made, is set aside; the
	// person's link is left alone by it.
	r := sh(t, &s, `mkdir -p held/keys/prod && ln leak held/keys/prod/key; echo ok > ok`)
	if exists(ws+"/held/keys/prod/key") || readFile(t, ws+"/ok") != "ok\n" || !exists(ws+"/link") {
		t.Fatalf("control: the denied path made stayed, the workspace was not written, or link moved (exit %d, stderr %q)", r.ExitCode, r.Stderr)
	}
	r = sh(t, &s, `mkdir -p real/keys/prod && ln leak real/keys/prod/key && echo planted`)
	t.Logf("attack: exit %d, stdout %q, stderr %q, set aside %+v", r.ExitCode, r.Stdout, r.Stderr, r.Quarantined)
	if fi, err := os.Lstat(ws + "/link"); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the person's symlink %s/link (not the command's) was set aside: %v", ws, err)
	}
	if exists(ws + "/real/keys/prod/key") {
		t.Errorf("the hard link the command planted at the denied path's real place (real/keys/prod/key) stayed")
	}
}

package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack81DenyWaySymlinkRedirectsThePersonsKey (eighty-first review,
// low-medium: the agent works in a second workspace, or anywhere a turn
// without this deny reads): a profile's deny entry inside a writable root
// whose directory is missing when a command starts (keys/prod, no keys)
// is watched, and what the command made there is set aside only when
// plantedLink finds another way in "at p or below it". plantedLink walks
// p by its name, so a symlink on p's WAY, made by the command (keys ->
// /elsewhere), is followed, never looked at: what it leads to is a plain
// directory, or nothing at all (then the path counts as not made), and the
// link stays. The person's tooling later writes keys/prod/key, which lands
// where the agent chose: in the root of another turn (the agent's other
// workspace) that has no such deny, whose commands read it. The turn's own
// next commands cannot (the deny is canonicalised at each spawn and the
// link pinned), but the secret has left the denied path for good.
//
// Control: the same link made AT the denied path (keys/prod -> elsewhere)
// is set aside, and a plain directory made there keeps the person's key
// where it lies, unread by either turn.
//
// Fix: in setAsideCreated, for a watched deny path, also look at the way
// from its root: a component the command made that is a symlink (or that
// resolves outside the root) is set aside as setAsideOnTheWay does, or
// walk plantedLink from the first missing component (watch the first
// missing directory, not the path itself, for deny entries).
func TestAttack81DenyWaySymlinkRedirectsThePersonsKey(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	base := visibleWorkspace(t)
	ws, other := base+"/ws", base+"/other"
	for _, d := range []string{ws + "/ctl", other + "/drop"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	a := execProfileSnapshot(t, ws, map[string]domain.Access{
		ws + "/keys/prod":     domain.AccessDeny,
		ws + "/ctl/keys/prod": domain.AccessDeny,
		ws + "/dir/keys/prod": domain.AccessDeny,
	})
	b := execProfileSnapshot(t, other, nil)
	person := func(p string) {
		t.Helper()
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatalf("the person's mkdir %s: %v", p, err)
		}
		if err := os.WriteFile(p+"/key", []byte("person's secret\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Control: a link at the denied path itself is refused (since review
	// 151 the way is made and the denied name held for the command) or
	// set aside.
	r := sh(t, &a, `mkdir -p ctl/keys && ln -s `+other+`/drop ctl/keys/prod; echo ran`)
	if !strings.Contains(string(r.Stdout), "ran") {
		t.Fatalf("control: the command did not run (exit %d, stderr %q)", r.ExitCode, r.Stderr)
	}
	if fi, err := os.Lstat(ws + "/ctl/keys/prod"); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		t.Fatalf("control: a symlink made at the denied path stayed (set aside %+v)", r.Quarantined)
	}
	// Control: a plain directory made there keeps the person's key where it
	// lies, masked from the turn and outside the other turn's roots.
	sh(t, &a, `mkdir -p dir/keys/prod`)
	person(ws + "/dir/keys/prod")
	for _, s := range []*domain.TurnExecutionSecuritySnapshot{&a, &b} {
		if r := sh(t, s, `cat `+ws+`/dir/keys/prod/key`); strings.Contains(string(r.Stdout), "secret") {
			t.Fatalf("control: the person's key in a plain denied directory was read: %q", r.Stdout)
		}
	}
	// The attack: the link on the way.
	r = sh(t, &a, `ln -s `+other+`/drop keys && echo linked`)
	t.Logf("attack: exit %d, stdout %q, stderr %q, set aside %+v", r.ExitCode, r.Stdout, r.Stderr, r.Quarantined)
	if string(r.Stdout) != "linked\n" {
		t.Fatalf("premise: the command did not run (exit %d, stderr %q)", r.ExitCode, r.Stderr)
	}
	if fi, err := os.Lstat(ws + "/keys"); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		t.Errorf("a symlink the command made on the way to the denied %s/keys/prod stayed", ws)
	}
	person(ws + "/keys/prod")
	r = sh(t, &b, `cat drop/prod/key`)
	t.Logf("the other turn: exit %d, stdout %q, stderr %q", r.ExitCode, r.Stdout, r.Stderr)
	if strings.Contains(string(r.Stdout), "person's secret") {
		t.Errorf("the person's key written at the denied %s/keys/prod was read by a turn rooted at %s: %q", ws, other, r.Stdout)
	}
}

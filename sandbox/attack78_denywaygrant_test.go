package sandbox

import (
	"os"
	"testing"

	"turnstile/domain"
)

// TestAttack78DenyWayWithAGrantInsideIsCreated (seventy-eighth review,
// medium: the seventy-third review's finding again, under a profile that
// also writes a path on the way): holdDenyWays (hold.go) leaves the first
// missing directory on the way to a deny entry unheld when any grant or
// pin lies at or below it (ruleWithin: "holding it would take that grant
// away"), and nothing else stands in for the hold. A profile that denies
// build/keys/prod and also lists build/out as write (a redundant write
// key inside the writable workspace, or one kept from a read-only variant
// of the profile), or any write key elsewhere under the missing build/
// (build/cache/x), puts the whole way back to what the seventy-third
// review found: the command makes build/keys/prod and plants a hard link
// to a file of the workspace at the denied name; nothing sets it aside,
// and what the person writes there later (the key) reads back through
// the agent's file.
//
// Fix: hold the first missing directory on the way below which no grant
// lies (build/keys here, whose parent build/ the command may then make),
// and only where none is left, judge it after the command: set aside
// the first directory the command created on the way to a missing deny
// entry, as setAsideMade already does for a missing read carve-out (the
// control below: a read key under the same kind of missing way is set
// aside); or hold the way and re-grant the grant inside it (a write mount
// below a read-only one), which the kernel view already does for pins.
//
// Control: with no grant on the way the denied path the command made is
// set aside too (its way, which siblings share, is not held: the fix sets
// the denied path aside after the command); a read key under a missing way
// with a grant beside it is set aside.
func TestAttack78DenyWayWithAGrantInsideIsCreated(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	base := visibleWorkspace(t)
	ws := base + "/ws"
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ws+"/leak", []byte("agent's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := execProfileSnapshot(t, ws, map[string]domain.Access{
		ws + "/held/keys/prod":  domain.AccessDeny,
		ws + "/build/keys/prod": domain.AccessDeny,
		ws + "/build/out":       domain.AccessWrite,
		ws + "/var/keys/prod":   domain.AccessDeny,
		ws + "/var/cache/x":     domain.AccessWrite,
		ws + "/docs/ro/f":       domain.AccessRead,
		ws + "/docs/rw":         domain.AccessWrite,
	})
	// Control: no grant on the way: the denied path made is set aside.
	r := sh(t, &s, `mkdir -p held/keys/prod; ln leak held/keys/prod/key; echo ok > ok`)
	if exists(ws+"/held/keys/prod/key") || readFile(t, ws+"/ok") != "ok\n" {
		t.Fatalf("control: the denied path made stayed, or the workspace was not written (exit %d, stderr %q)", r.ExitCode, r.Stderr)
	}
	// Control: a read key under a missing way with a grant beside it is
	// set aside after the command.
	sh(t, &s, `mkdir -p docs/ro && echo planted > docs/ro/f`)
	if exists(ws + "/docs/ro/f") {
		t.Fatal("control: a read key the command created under a missing way stayed")
	}
	for _, way := range []string{"build/keys/prod", "var/keys/prod"} {
		r = sh(t, &s, `mkdir -p `+way+` && ln leak `+way+`/key && echo planted`)
		t.Logf("%s: exit %d, stdout %q, stderr %q, set aside %+v", way, r.ExitCode, r.Stdout, r.Stderr, r.Quarantined)
		if exists(ws + "/" + way + "/key") {
			t.Errorf("the command made the denied %s and planted key there (a grant on the way left it unheld, and nothing set it aside)", way)
		}
	}
}

package tests

import (
	"os"
	"strings"
	"testing"
)

// TestAttack63ProfileRoundTripDropsCopy (medium: needs an admin's change
// there and back, each an honest selection of an allowed profile that
// denies the secret): decideChange carries only
// the CURRENT snapshot's copies (domain/turn/decide.go decideChange:
// carried := CarveLinksOf(&s.Snapshot)), and BindCarveLinks copies only
// carve-outs the NEW snapshot has at the same literal path. A profile in
// between that protects the secret by its own path (docs:
// `".vault-data" = "deny"`) holds no copy, so the binding of turn a's
// start is lost on the way: after turn b's command removed vault, turn a
// is changed to docs and back to dev, and dev's deny lies at the missing
// link with nothing bound where it led: the secret is read and written.
//
// Suggested fix: keep the bindings of a turn for its whole life (a
// turn-level map of every carve link ever resolved, persisted in the
// turn's state and merged at each change), not only the copies that the
// current snapshot happens to hold.
//
// Control: under dev before the round trip, and under docs, the secret is
// denied; the runtime's own change back to dev is refused as a widening
// (so the server knows dev now opens the secret, yet the admin's change
// goes through without a word).
func TestAttack63ProfileRoundTripDropsCopy(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root for the kernel sandbox")
	}
	v := vaultTurns(t)
	v.exec("b", "x0", "rm vault")
	if d := v.runtime.decide("a", "r0", "read_file", map[string]any{"path": v.secret}); d.Decision != "deny" {
		t.Fatalf("control: turn a reads the secret: %+v", d)
	}
	v.admin.JSON("POST", "/v1/turns/a/permissions", map[string]any{"permission_profile": map[string]any{"profile": "docs"}}, 200, nil)
	if d := v.runtime.decide("a", "r1", "read_file", map[string]any{"path": v.secret}); d.Decision != "deny" {
		t.Fatalf("control: turn a under docs reads the secret: %+v", d)
	}
	st, raw := v.runtime.Request("POST", "/v1/turns/a/permissions", map[string]any{"permission_profile": map[string]any{"profile": "dev"}})
	if st != 403 {
		t.Fatalf("control: the runtime changed turn a back to dev (a widening): %d %s", st, raw)
	}
	// The admin selects dev again, believing dev denies the secret.
	v.admin.JSON("POST", "/v1/turns/a/permissions", map[string]any{"permission_profile": map[string]any{"profile": "dev"}}, 200, nil)
	if d := v.runtime.decide("a", "r2", "read_file", map[string]any{"path": v.secret}); d.Decision != "deny" {
		t.Errorf("turn a, back under dev, reads the secret its start bound: %s %s", d.Decision, d.Reason)
	}
	if out := v.exec("a", "x1", "cat "+v.secret+"; echo attacker > "+v.secret); strings.Contains(out, "s3cret") {
		t.Errorf("a command of turn a, back under dev, reads the secret")
	}
	if b, _ := os.ReadFile(v.secret); string(b) != v.orig {
		t.Errorf("a command of turn a, back under dev, wrote the secret: %q", b)
	}
}

package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack63NewTurnAfterLinkRemoved (high): the fifty-seventh fix binds
// a deny written through a link (`"vault" = "deny"`, vault -> .vault-data)
// only into the snapshot of a turn that was ALREADY running when another
// turn's command removed the link. The binding lives in that one turn's
// snapshot (domain/carvelinks.go BindCarveLinks, called from
// domain/turn/decide.go decideStart with the links resolved NOW by
// engine.resolveLinks and carried only from a parent). A turn b under
// profile docs (`".vault-data" = "deny"`, pins nothing) removes vault
// between turns; the runtime then starts a NEW turn c under dev: at its
// start vault leads nowhere, nothing is carried (no parent), dev's deny
// lies at a missing path and .vault-data — the secret dev denies — is
// read and written by c's read_file, apply_patch and commands.
//
// Suggested fix: keep where a workspace's carve-outs led per workspace
// (the first snapshot that bound them, persisted with the workspace, and
// merged into every later turn's bindCarveLinks), or refuse to start a
// turn one of whose deny/read paths written through a link has become
// missing/re-pointed since a binding was recorded; or pin the link on the
// host (e.g. the server holding it immutable) rather than per command.
//
// Control: turn a, started before the removal, keeps the copy and is
// denied; turn c under dev started while vault still exists is denied.
func TestAttack63NewTurnAfterLinkRemoved(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root for the kernel sandbox")
	}
	v := vaultTurns(t)
	// Control: a new dev turn while the link exists is denied.
	startTurn63(v, "c0", "dev")
	if d := v.runtime.decide("c0", "r0", "read_file", map[string]any{"path": v.secret}); d.Decision != "deny" {
		t.Fatalf("control: a dev turn reads the secret with the link in place: %+v", d)
	}
	v.exec("b", "x0", "rm vault")
	if _, err := os.Lstat(filepath.Join(v.root, "vault")); !os.IsNotExist(err) {
		t.Fatalf("control: turn b's command did not remove vault: %v", err)
	}
	// Control: turn a (started before) keeps its copy.
	if d := v.runtime.decide("a", "r0", "read_file", map[string]any{"path": v.secret}); d.Decision != "deny" {
		t.Fatalf("control: turn a reads the secret: %+v", d)
	}
	// The attack: a new turn under dev.
	startTurn63(v, "c", "dev")
	if d := v.runtime.decide("c", "c0", "read_file", map[string]any{"path": filepath.Join(v.root, "app", "main.go")}); d.Decision != "allow" {
		t.Fatalf("control: turn c does not read the workspace: %+v", d)
	}
	if d := v.runtime.decide("c", "r1", "read_file", map[string]any{"path": v.secret}); d.Decision != "deny" {
		t.Errorf("a dev turn started after turn b removed vault reads %s: %s %s", v.secret, d.Decision, d.Reason)
	}
	if d := v.runtime.decide("c", "w1", "apply_patch", v.patch); d.Decision != "deny" {
		t.Errorf("a dev turn started after turn b removed vault patches %s: %s %s", v.secret, d.Decision, d.Reason)
	}
	if out := v.exec("c", "x1", "cat "+v.secret+"; echo attacker > "+v.secret); strings.Contains(out, "s3cret") {
		t.Errorf("a command of a dev turn started after the removal reads the secret")
	}
	if b, _ := os.ReadFile(v.secret); string(b) != v.orig {
		t.Errorf("a command of a dev turn started after the removal wrote the secret: %q", b)
	}
}

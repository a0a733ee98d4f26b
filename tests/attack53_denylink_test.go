package tests

import (
	"testing"
)

// TestAttack53DenyThroughLinkRetargeted: a profile's deny written at a
// name that is a symlink inside the writable workspace (ws/vault ->
// .vault-data, the secrets kept under another name) is canonicalised
// afresh at every decision and spawn, so it covers whatever the name leads
// to now. A command of the turn removes the link (the name is an ordinary
// entry of the writable root: no pin, no mount on it; only its target is
// masked), and from then on the deny lies at the missing ws/vault while
// the secrets' own directory is an ordinary part of the workspace: the
// turn's read_file and apply_patch and its next command read and write
// them.
//
// Why: sandbox addRule (canon.go) canonicalises a deny entry with
// memo.canonical (links followed, now), and mountPlan (mounts.go) masks
// the target and pins nothing on the way for a deny carve (opPinLink is a
// protected path's); led_to (this session's binding of a root to where it
// led when the turn started) binds roots only, not the carve-outs written
// through links inside them.
//
// Controls: before the link is removed the secret is denied to read_file
// and apply_patch and a command cannot read it; an ordinary workspace
// file is read.
//
// Severity: high (the turn reads and writes what the profile's deny
// covered when the turn started, after one command of its own).
func TestAttack53DenyThroughLinkRetargeted(t *testing.T) {
	t.Parallel()
	v := newVaultTurn(t, [2]string{"vault", ".vault-data"})
	v.controls()
	v.exec("a0", "rm vault")
	v.held("0", "a command removed the deny's link")
}

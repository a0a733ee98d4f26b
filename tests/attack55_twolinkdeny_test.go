package tests

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAttack55DenyThroughSecondLinkRetargeted: a profile's deny written at
// a symlink that leads to the secrets through a SECOND symlink (ws/vault ->
// current, ws/current -> .vault-data: the usual "current release" layout)
// pins only the first link while a command runs. The second link lies in
// the writable workspace like any file: one command removes it (or
// re-points it), from then on the deny's name leads to a missing path, and
// the secrets' own directory is an ordinary part of the workspace: the
// turn's read_file, apply_patch and its next command read and write them.
//
// Why: sandbox/rules.go protectedLinks walks only the components of the
// path as written (c.From: ws/vault) and pins those that are links; the
// links met while resolving a link's TARGET text (ws/current, or any
// directory named in it, e.g. vault -> sub/../.vault-data with sub
// replaced by a link) are not components of From and are never pinned.
// The mount chain (mounts.go mountPlan) pins the directories between the
// mask (ws/.vault-data) and the writable root, never ws/current. The deny
// is canonicalised afresh at every decision and spawn (sandbox addRule,
// the engine's checks), so it follows the re-pointed chain.
//
// Controls: before the second link is removed the secret is denied to
// read_file and apply_patch and a command cannot read it; removing the
// first link (the fifty-third review's attack) is refused; an ordinary
// workspace file is read.
//
// Severity: high (the turn reads and writes what the profile's deny
// covered when the turn started, after one command of its own).
func TestAttack55DenyThroughSecondLinkRetargeted(t *testing.T) {
	t.Parallel()
	v := newVaultTurn(t, [2]string{"vault", "current"}, [2]string{"current", ".vault-data"})
	v.controls()
	v.exec("c4", "rm vault")
	if _, err := os.Lstat(filepath.Join(v.root, "vault")); err != nil {
		t.Fatalf("control: the first link (pinned) was removed: %v", err)
	}
	// The attack: one command removes the second link.
	v.exec("a0", "rm current")
	v.held("0", "a command removed the deny's second link")
}

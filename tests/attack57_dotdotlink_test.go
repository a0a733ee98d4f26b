package tests

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAttack57DenyLinkThroughDotDotRetargeted (fifty-seventh review,
// high): a profile's deny written at a symlink whose target names a
// directory and then ".." (ws/vault -> sub/../.vault-data) is re-pointed by
// one command that replaces the plain directory sub with a link; from then
// on the deny's name leads to a missing path and the secrets' directory is
// an ordinary part of the workspace for read_file, apply_patch and the
// next command.
//
// Why: the fifty-fifth review's fix pins every SYMLINK the lookup of the
// carve-out's path passes (sandbox/rules.go protectedLinks →
// canon.go linksPassed): vault is pinned, but sub is a directory, not a
// link, so it is not reported. The mount chain (mounts.go mountPlan, "The
// chains") pins the directories between a mounted path and the writable
// root — the ancestors of the mask ws/.vault-data and of the pinned link
// ws/vault — and sub is an ancestor of neither: the lookup passes it only
// to leave it again by "..". So `mv sub sub.x; ln -s deep/x sub` succeeds
// while vault stays in place, and vault now resolves to
// ws/deep/.vault-data. The deny is canonicalised afresh at every decision
// and spawn, so it follows there.
//
// Controls: before the swap the secret is denied to read_file, apply_patch
// and a command; removing vault itself is refused (pinned); an ordinary
// workspace file is read.
func TestAttack57DenyLinkThroughDotDotRetargeted(t *testing.T) {
	t.Parallel()
	v := newVaultTurn(t, [2]string{"vault", "sub/../.vault-data"})
	makeFiles(t, "x\n", filepath.Join(v.root, "sub", "README"))
	if err := os.MkdirAll(filepath.Join(v.root, "deep", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	v.controls()
	v.exec("c4", "rm vault")
	if _, err := os.Lstat(filepath.Join(v.root, "vault")); err != nil {
		t.Fatalf("control: the deny's link (pinned) was removed: %v", err)
	}
	// The attack: one command replaces the directory the link's target
	// passes through by "..".
	v.exec("a0", "mv sub sub.x && ln -s deep/x sub")
	v.held("0", "a command replaced sub (vault -> sub/../.vault-data)")
}

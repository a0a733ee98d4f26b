package tests

import "testing"

// TestAttack33ProjectRootBelowOverlayWritesIt: the thirty-second review's
// project-root bypass, one level down. The operator's profile writes the
// workspace with node_modules as an overlay (nothing a command writes
// there reaches the host's directory, which the person's next npm run
// executes). The fix makes an overlay win a tie with a root the runtime
// names AT the overlay's path; but the runtime, holding its credential,
// names a project root BELOW it (node_modules/left-pad), inside
// allowed_roots. The ":project_roots" write rule is more specific than the
// overlay's, the entries hold a writable project root nested in the overlay,
// and the command writes the host's node_modules/left-pad/index.js.
//
// Controls: a turn without the project root writes its own copy only; the
// constraints refuse a root outside the workspace.
func TestAttack33ProjectRootBelowOverlayWritesIt(t *testing.T) {
	t.Parallel()
	projectRootInOverlay(t, "node_modules/left-pad")
}

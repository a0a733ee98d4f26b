package sandbox

import "testing"

// TestAttack207_EmptiedRoot (review 207, against b81b2c7a): a command over
// ws/sub is killed outright after planting a repository (core.fsmonitor)
// in ws/sub/evil. The person flattens the directory: `mv sub/* . && rmdir
// sub` (the same for `mv sub/evil .; rm -r sub`, or any move of what it
// holds before its removal). The root's directory is gone, so
// relocateBelow's complete search found nothing and the catch-up checked
// NOTHING ("nothing of it was left to check"), though what it held, the
// plant, stood at ws/evil. Before b81b2c7a, and again since, all of ws is
// checked from the killed start and the plant set aside.
//
// Control: the same with a marker of the earlier version (no identity):
// all of ws checked, the plant at ws/evil set aside.
func TestAttack207_EmptiedRoot(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	for _, c := range []struct {
		name      string
		oldMarker bool
	}{
		{"control-old-marker", true},
		{"flattened", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, ws := attack207Killed(t, nil, "mv sub/* . && rmdir sub", c.oldMarker)
			if exists(ws + "/evil/.git/HEAD") {
				t.Errorf("the killed command's repository, moved out of its root to ws/evil before the root was removed, was not set aside: the catch-up took the root's directory gone for all it held")
			}
		})
	}
}

package sandbox

import (
	"os"
	"testing"
)

// TestAttack4HooksPathWatchDamage (fourth attack review): the missing
// core.hooksPath watch sets aside the FIRST missing component of the path.
// A person's config core.hooksPath = node_modules/@acme/hooks/git (a
// shared-hooks package, installed by npm) in a fresh clone where
// node_modules is missing: the agent's ordinary `npm install` (here: the
// files it writes, without the hooks package) makes node_modules, and the
// check renames the whole node_modules away, though nothing the config
// names exists.
func TestAttack4HooksPathWatchDamage(t *testing.T) {
	f := newPlantFixture(t)
	hostGit(t, f.ws, "config", "core.hooksPath", "node_modules/@acme/hooks/git")
	r := sh(t, f.s, "mkdir -p node_modules/lodash && echo 'module.exports={}' > node_modules/lodash/index.js && echo ok")
	attackReport(t, "npm install", r)
	if _, err := os.Stat(f.ws + "/node_modules/lodash/index.js"); err != nil {
		t.Fatalf("DAMAGE: the agent's node_modules (no hooks in it) was set aside: %v", err)
	}
}

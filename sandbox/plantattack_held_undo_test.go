package sandbox

import (
	"testing"

	"turnstile/domain"
)

// TestAttackPlantHeldUndo (second attack review): the check skipped every
// git dir the command ran with pinned (held), taking it for one the
// command could not change. But a quarantined repository is still a
// ".git" directory: the next command's discovery (once the 2 s walk cache
// has expired) pins it like any nested repository, which keeps its config,
// hooks, info and commondir read-only but not its HEAD; renaming HEAD back
// revived it. A quarantine now sets aside the config and hooks too.
func TestAttackPlantHeldUndo(t *testing.T) {
	f := newPlantFixture(t)
	r := sh(t, f.s, agentGit+"init -q sub && "+f.fsmonitor()+" >> sub/.git/config && "+
		agentGit+"-C sub commit -q --allow-empty -m x && "+agentGit+"add sub && echo ok")
	attackReport(t, "first command", r)
	if r.ExitCode != 0 || len(r.Quarantined) != 1 {
		t.Fatalf("the first command was expected to be quarantined")
	}
	// The walk cache of the first command's discovery expires (walkTTL).
	walkCache.mu.Lock()
	walkCache.m = map[string]walkResult{}
	walkCache.mu.Unlock()
	// The quarantine set aside the config and hooks with HEAD: a HEAD
	// renamed back brings back an inert repository, and a config written
	// into it, now that discovery holds it, gets it read and quarantined
	// again.
	r = sh(t, f.s, "mv sub/.git/HEAD"+domain.UntrustedSuffix+" sub/.git/HEAD && echo ok")
	attackReport(t, "second command", r)
	if r.ExitCode != 0 || exists(f.ws+"/sub/.git/config") || !exists(f.ws+"/sub/.git/config"+domain.UntrustedSuffix) {
		t.Fatal("the HEAD was not renamed back, or the config was not set aside")
	}
	attackHostStatus(t, f, f.ws)
	walkCache.mu.Lock()
	walkCache.m = map[string]walkResult{}
	walkCache.mu.Unlock()
	r = sh(t, f.s, "cp sub/.git/config"+domain.UntrustedSuffix+" sub/.git/config && echo ok")
	attackReport(t, "third command", r)
	if r.ExitCode != 0 || len(r.Quarantined) != 1 || exists(f.ws+"/sub/.git/HEAD") {
		t.Fatalf("a config written into the revived repository was not read")
	}
	attackHostStatus(t, f, f.ws)
}

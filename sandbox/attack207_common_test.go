package sandbox

import (
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

// attack207Killed sets up what review 207's tests share: a workspace ws
// (below a visible base) with ws/sub; setup (may be nil) prepares ws
// before; a command over ws/sub is killed outright after planting a
// repository with core.fsmonitor in ws/sub/evil; oldMarker rewrites its
// below marker as an earlier version wrote it (no identity); 1.1 s later
// the person runs person in ws, and makes a repository of their own,
// ws/mine; 1.1 s later the next command over ws runs. It returns the next
// command's result, base and ws.
func attack207Killed(t *testing.T, setup func(t *testing.T, base, ws string), person string, oldMarker bool) (*Result, string, string) {
	t.Helper()
	base := visibleWorkspace(t)
	ws := base + "/ws"
	mkfiles(t, ws, map[string]string{"sub/README": "r\n", "README": "r\n", "other/README": "r\n"})
	if setup != nil {
		setup(t, base, ws)
	}
	sub := ws + "/sub"
	run := func(dir, script string) { hostSh(t, base, dir, script) }
	dir, killed := startKilled(t, sub, coarseNow())
	run(sub, "git init -q evil && printf '[core]\\n\\tfsmonitor = touch "+base+"/pwned\\n' >> evil/.git/config")
	killed()
	if oldMarker {
		m := belowMarker(dir, ws, sub)
		old, _, _ := strings.Cut(string(mustRead(t, m)), "\x00")
		writeMarker(m, []byte(old))
	}
	time.Sleep(1100 * time.Millisecond)
	run(ws, person)
	run(ws, "git init -q mine && printf '[core]\\n\\tfsmonitor = true\\n' >> mine/.git/config")
	time.Sleep(1100 * time.Millisecond)
	r := sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel), "echo next")
	if string(r.Stdout) != "next\n" {
		t.Fatalf("premise: the next command did not run: %q %q", r.Stdout, r.Stderr)
	}
	t.Logf("next command: set aside %v; limits %q", quarantined(r), r.CheckLimits)
	return r, base, ws
}

package sandbox

import (
	"testing"

	"turnstile/domain"
)

// TestAttack206SpareKeptAfterSparesOff: KeepSpareHelper(false) promises to
// end the spare this process holds, and no spare is parked once spares are
// off (refillSpare checks spare.on under its lock). But a Run that has
// taken the spare (startProcess: takeEarlyHelper) and finds that its plan
// does not fit (input on stdin, a proxy, another mode's namespaces) puts
// it back with keepSpare, which never looks at spare.on: a server whose
// shutdown (serve.go: KeepSpareHelper(false)) runs while such a Run is
// between its take and its put-back is left holding a parked root helper
// (a copy of the host's mount table, its kill group) after "off", until
// its 60 s timer or the process's exit. The steps are startProcess's own,
// in the order the race gives them.
//
// Control: with spares on, the same take and put-back parks the spare
// again (the allowed case).
func TestAttack206SpareKeptAfterSparesOff(t *testing.T) {
	f := requireKernel(t, true)
	keepSpares(t)
	ws := tempWorkspace(t)
	sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel), "true")
	e := parkedSpare(t)

	// Control: spares on, a Run takes the spare, its plan does not fit,
	// the spare goes back.
	if got := takeEarlyHelper(); got != e {
		t.Fatalf("took %p, want the spare %p", got, e)
	}
	keepSpare(e)
	if earlyHelpers.Load() != e {
		t.Fatal("control: the spare was not put back while spares are on")
	}

	// The race: a Run takes it, the server turns spares off, the Run
	// puts it back.
	if got := takeEarlyHelper(); got != e {
		t.Fatalf("took %p, want the spare %p", got, e)
	}
	KeepSpareHelper(false)
	keepSpare(e)
	if held := earlyHelpers.Swap(nil); held != nil {
		endSpare(held)
		t.Fatalf("spares are off (KeepSpareHelper(false) returned) but a spare is parked again: pid %d", held.p.cmd.Process.Pid)
	}
}

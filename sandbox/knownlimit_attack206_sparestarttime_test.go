//go:build knownlimits

// A known limit (README, turnstile doctor): a command run in a spare sees
// the spare's start time. The test fails while the limit stands.

package sandbox

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

// spareAgeScript prints the stat line of the command's pid 1 (the helper,
// become the command: its start time is the helper's) and the uptime, both
// on the boot clock.
const spareAgeScript = "cat /proc/1/stat /proc/uptime"

// commandAge is how long before the command read /proc/uptime its pid 1
// was started, from spareAgeScript's output.
func commandAge(t *testing.T, out []byte) time.Duration {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		t.Fatalf("output %q", out)
	}
	i := strings.LastIndexByte(lines[0], ')')
	f := strings.Fields(lines[0][i+1:])
	if i < 0 || len(f) < 20 {
		t.Fatalf("stat %q", lines[0])
	}
	ticks, err := strconv.ParseFloat(f[19], 64) // field 22, starttime
	if err != nil {
		t.Fatal(err)
	}
	up, err := strconv.ParseFloat(strings.Fields(lines[1])[0], 64)
	if err != nil {
		t.Fatal(err)
	}
	return time.Duration((up - ticks/100) * float64(time.Second))
}

// TestAttack206SpareStartTimeLeaksLastCommandEnd: a command run in a spare
// is the spare's process, started when the server's last restricted
// command ended, whichever turn, workspace or person ran it. The command
// reads that moment from its own /proc/1/stat (starttime) against
// /proc/uptime: another session's activity, to the clock tick, which a
// helper started for the command (started within its Run) never shows.
// Here a command in workspace 1 ends, and 2 s later a command of another
// workspace sees that its "own" process is 2 s old.
//
// Control: the first command (no spare: a helper of its own) and a command
// with spares off see a process started within their Run.
func TestAttack206SpareStartTimeLeaksLastCommandEnd(t *testing.T) {
	f := requireKernel(t, true)
	ws1, ws2 := tempWorkspace(t), tempWorkspace(t)
	s1 := snapshotFor(t, domain.ModeAutoAcceptEdits, ws1, f.Kernel)
	s2 := snapshotFor(t, domain.ModeAutoAcceptEdits, ws2, f.Kernel)
	const bound = 700 * time.Millisecond

	// Control: spares off, the helper is the command's own.
	time.Sleep(1500 * time.Millisecond)
	r := sh(t, s2, spareAgeScript)
	if age := commandAge(t, r.Stdout); age > bound {
		t.Fatalf("control: a fresh helper looks %v old", age)
	}

	keepSpares(t)
	r = sh(t, s1, spareAgeScript) // finds no spare: control again
	if age := commandAge(t, r.Stdout); age > bound {
		t.Fatalf("control: the first command's helper looks %v old", age)
	}
	e := parkedSpare(t)
	time.Sleep(2 * time.Second)
	before := earlyNow()
	r = sh(t, s2, spareAgeScript)
	if got := earlyNow().since(before); got.taken != 1 || e.p.cmd.ProcessState == nil {
		t.Fatalf("the spare was not used: %+v", got)
	}
	if age := commandAge(t, r.Stdout); age > bound {
		t.Fatalf("the command in workspace %s reads from its own /proc/1/stat that the last command (workspace %s) ended %v before it started", ws2, ws1, age.Round(10*time.Millisecond))
	}
}

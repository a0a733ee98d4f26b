package sandbox

import (
	"os"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack151_DenyUnderMissingParentReadWhileRunning (hundred-and-fifty-
// first review, medium: "deny entries neither readable nor writable"
// broken while a command runs). A profile's deny entry inside a writable
// root whose parent does not exist when the command starts
// (ws/secret/prod = deny, no ws/secret yet) is neither mounted nor held
// (review 73's fix, "hold the first missing directory on the way to a deny
// entry", was reverted, 19232d3); what is done about it happens after the
// command (a link or extra hard link planted there is set aside, a plain
// file stays and is masked at the next spawn). So the command makes the
// denied directory itself (mkdir -p secret/prod) and reads whatever a host
// tool of the person's writes there while it runs (a long test run, a
// dev server: up to the snapshot's 30 minutes): terraform, a cloud CLI,
// the person's editor saving the key the profile says no command may read.
//
// Control: the same deny whose parent exists when the command starts is
// held: the command cannot make it, and a key the host writes there while
// it runs is not read.
func TestAttack151_DenyUnderMissingParentReadWhileRunning(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	base := visibleWorkspace(t)
	ws := base + "/ws"
	if err := os.MkdirAll(ws+"/held", 0o755); err != nil {
		t.Fatal(err)
	}
	s := execProfileSnapshot(t, ws, map[string]domain.Access{
		ws + "/held/prod":   domain.AccessDeny,
		ws + "/secret/prod": domain.AccessDeny,
	})
	// The host writes the key into the denied directory a second after the
	// command started (making it where the command has not).
	run := func(dir string) *Result {
		done := make(chan struct{})
		go func() {
			defer close(done)
			time.Sleep(1500 * time.Millisecond)
			if err := os.MkdirAll(ws+"/"+dir, 0o755); err != nil {
				t.Error(err)
				return
			}
			if err := os.WriteFile(ws+"/"+dir+"/key", []byte("AKIA-HOST-SECRET\n"), 0o644); err != nil {
				t.Error(err)
			}
		}()
		r := sh(t, &s, `mkdir -p `+dir+` 2>/dev/null; for i in $(seq 60); do cat `+dir+`/key 2>/dev/null && exit 0; sleep 0.1; done; echo never read; exit 3`)
		<-done
		return r
	}
	// Control: the parent exists at the start: held.
	if r := run("held/prod"); strings.Contains(string(r.Stdout), "AKIA-HOST-SECRET") {
		t.Fatalf("control: the command read a key written into the held deny entry while it ran: %q", r.Stdout)
	} else if !strings.Contains(string(r.Stdout), "never read") {
		t.Fatalf("control: the command did not run its loop (exit %d, stdout %q, stderr %q)", r.ExitCode, r.Stdout, r.Stderr)
	}
	if r := run("secret/prod"); strings.Contains(string(r.Stdout), "AKIA-HOST-SECRET") {
		t.Errorf("the command made the denied directory %s/secret/prod (its parent missing at the start) and read the key the host wrote there while it ran: %q",
			ws, r.Stdout)
	}
}

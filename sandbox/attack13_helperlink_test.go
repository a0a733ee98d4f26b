package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack13HelperWrittenThenUnlinked (thirteenth attack review): a lean
// helper with another hard link is not used (helperFileProblem), but the
// file stays where it is and the command still runs: through the link,
// which the read-only mount of the helper's path does not guard, it writes
// its program into the helper, then removes the link. The helper has one
// link again, and the server's next start pins it and runs it for its
// fingerprint, with the server's privileges (the next turnstile sandbox's
// early entry execs it likewise). Control: once the person removed the
// link, commands run and the helper is used.
func TestAttack13HelperWrittenThenUnlinked(t *testing.T) {
	ws, outside, s, real, marker := helperInWorkspace(t)

	// A link made while no server pinned the helper.
	useHelper(t, selfHelper("test"))
	if r := sh(t, s, "ln bin/"+HelperProgram+" lnk && echo ok"); r.ExitCode != 0 {
		t.Fatalf("the link was not made: %+v %s", r, r.Stderr)
	}
	// The server starts: the helper is refused for its link.
	useHelper(t, locateHelper(real))
	if h := currentHelper(); h.lean {
		t.Fatalf("the linked helper was used: %+v", h)
	}
	r, err := run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c", "cat fake > lnk && rm lnk && echo written"}}, nil)
	attackReport(t, "write through the link, then remove it", r)
	// The server's next start pins the helper and runs it for its
	// fingerprint.
	useHelper(t, locateHelper(real))
	h := currentHelper()
	if exists(marker) {
		b, _ := os.ReadFile(marker)
		t.Fatalf("ESCAPE: the next start ran the command's program as the helper (marker: %q; helper %+v)", b, h)
	}
	if err == nil || !strings.Contains(err.Error(), "hard links") {
		t.Fatalf("the command was not refused for the helper's link: %v %+v", err, r)
	}

	// Control: the person removes the link; commands run, and the helper
	// is used and enforces.
	if err := os.Remove(filepath.Join(ws, "lnk")); err != nil {
		t.Fatal(err)
	}
	useHelper(t, locateHelper(real))
	if h := currentHelper(); !h.lean || !h.verified {
		t.Fatalf("control: the helper with one link was not used: %+v", h)
	}
	r = sh(t, s, "echo in > in.txt; echo x > "+outside+"/x; echo done")
	if r.ExitCode != 0 || !exists(ws+"/in.txt") || exists(outside+"/x") || exists(marker) {
		t.Fatalf("control: %+v %s", r, r.Stderr)
	}
}

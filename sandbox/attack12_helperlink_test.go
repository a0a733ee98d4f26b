package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"turnstile/domain"
)

// TestAttack12HelperWrittenThroughALink (twelfth attack review): the lean
// helper is pinned by descriptor when the server starts, and where it lies
// in a restricted command's writable root (the README builds it into bin/
// of the clone, often a turn's workspace) its path is kept read-only for
// every command. A read-only mount guards a path, not the file: a hard link
// to the helper made before (the agent's own build in bin/, linked while no
// server pinned it) stayed writable, a command wrote its program into the
// helper through it, and the next spawn ran that program as the helper,
// with the server's privileges, before any mask, Landlock rule or
// capability drop. Control: the helper (no other link) is used and
// enforces, and writing it through its own path is refused.
func TestAttack12HelperWrittenThroughALink(t *testing.T) {
	ws, outside, s, real, marker := helperInWorkspace(t)

	// Control: the helper alone is accepted, enforces, and stays read-only.
	useHelper(t, locateHelper(real))
	if h := currentHelper(); !h.lean || !h.verified {
		t.Fatalf("control: the built helper was not accepted: %+v", h)
	}
	r := sh(t, s, "cat fake > bin/"+HelperProgram+"; echo x > "+outside+"/x; echo in > in.txt")
	if !exists(ws+"/in.txt") || exists(outside+"/x") || exists(marker) {
		t.Fatalf("control: the lean helper did not enforce, or was written: %+v %s", r, r.Stderr)
	}
	if got, err := runFingerprint(currentHelper().path); err != nil || got != fingerprint() {
		t.Fatalf("control: the helper was written through its own path: %q, %v", got, err)
	}

	// A link made while no server pinned it (this command runs with the
	// test binary as its helper).
	useHelper(t, selfHelper("test"))
	if r := sh(t, s, "ln bin/"+HelperProgram+" lnk && echo ok"); r.ExitCode != 0 {
		t.Fatalf("the link was not made: %+v %s", r, r.Stderr)
	}
	// The server starts: it pins the helper.
	useHelper(t, locateHelper(real))
	currentHelper()
	// Refused since the thirteenth review (TestAttack13HelperWrittenThenUnlinked).
	r, err := run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c", "cat fake > lnk 2>/dev/null; echo written"}}, nil)
	t.Logf("write through the link: %v", err)
	attackReport(t, "write through the link", r)
	r, err = run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c", "echo x > " + outside + "/x"}}, nil)
	t.Logf("next command: %v", err)
	attackReport(t, "next command", r)
	if exists(marker) || exists(outside+"/x") {
		b, _ := os.ReadFile(marker)
		t.Fatalf("ESCAPE: the next spawn ran the command's program as the helper (marker: %q)", b)
	}
}

// helperInWorkspace builds the lean helper into bin/ of a fresh workspace
// (as the README builds it into a clone) and puts a fake helper, which
// writes marker when it runs, at ws/fake for a command to copy; s is an
// auto_accept_edits snapshot of the workspace, outside another directory.
func helperInWorkspace(t *testing.T) (ws, outside string, s *domain.TurnExecutionSecuritySnapshot, real, marker string) {
	t.Helper()
	f := requireKernel(t, true)
	ws, outside = tempWorkspace(t), tempWorkspace(t)
	s = snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	bin := filepath.Join(ws, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	real = buildHelper(t, moduleRoot(t), bin)
	marker = filepath.Join(outside, "ran")
	fake := fakeHelper(t, t.TempDir(), marker)
	if err := os.Rename(fake, filepath.Join(ws, "fake")); err != nil {
		t.Fatal(err)
	}
	return ws, outside, s, real, marker
}

package tests

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAttack12OwnFileWrittenThroughALink (twelfth attack review): a file
// the server reads when it starts (--profiles here) that lies in a
// restricted turn's workspace is kept read-only for the turn's commands,
// by a mount of its path; a read-only mount guards a path, not the file. A
// hard link the agent made to it while it was still its to write (drafting
// the profile file with the person, before the server was started with it)
// stayed writable: a command wrote a wider profile for itself through the
// link, which the server loads at its next start; an apply_patch decision
// on the link (the runtime's edit tools write outside the sandbox) was
// allowed like one on any workspace file. Controls: a patch of another
// workspace file is allowed, and once the other link is gone the same
// command runs.
func TestAttack12OwnFileWrittenThroughALink(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	cfg := filepath.Join(ws, "etc", "profiles.toml")
	if err := os.Mkdir(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(servedProfiles), 0o644); err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(ws, "keep")
	if err := os.Link(cfg, keep); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", cfg)
	s.startTurn("own-link", "ws", "auto_accept_edits", ws)
	run := s.execApproved("own-link", "w0", map[string]any{"argv": []string{"sh", "-c", "printf '\\n# the agent was here\\n' >> keep; echo y > other"}})
	if b, err := os.ReadFile(cfg); err != nil || string(b) != servedProfiles {
		t.Fatalf("ESCAPE: the server's profile file was rewritten through a hard link: %v %q (%+v)", err, b, run.Result)
	}
	// The runtime's own edit tools write outside the sandbox: a write
	// decision on the link is one on the server's configuration.
	patch := func(p string) map[string]any {
		return map[string]any{"patch": "*** Begin Patch\n*** Update File: " + p + "\n@@\n-a\n+b\n*** End Patch\n"}
	}
	if d := s.decide("own-link", "p0", "apply_patch", patch(keep)); d.Decision != "deny" {
		t.Errorf("ESCAPE: an apply_patch of a hard link to the server's profile file was not denied: %+v", d)
	}
	if d := s.decide("own-link", "p1", "apply_patch", patch(filepath.Join(ws, "other"))); d.Decision != "allow" {
		t.Errorf("control: apply_patch of another workspace file: %+v", d)
	}
	if err := os.Remove(keep); err != nil {
		t.Fatal(err)
	}
	run = s.execApproved("own-link", "w1", map[string]any{"argv": []string{"sh", "-c", "echo y > other && cat other"}})
	if !run.Ran || run.Result == nil || run.Result.ExitCode != 0 {
		t.Fatalf("control: a command in the workspace without the link: %+v %+v", run, run.Result)
	}
}

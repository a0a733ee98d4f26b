package sandbox

import (
	"os"
	"testing"

	"turnstile/domain"
)

// TestAttack78DenyWayBlocksItsSiblings (seventy-eighth review, FALSE DENY,
// medium for honest work): the seventy-third review's fix (holdDenyWays,
// hold.go) holds the first missing directory on the way to a deny entry
// read-only, so a profile that denies one name under a directory a build
// makes (ws/build/credentials.json, ws/dist/.env, ws/out/secret) keeps
// the agent from ever making that directory: "mkdir build && cc -o
// build/app" fails with EROFS, and write_file build/app.txt is refused by
// the decision path, though nothing denies build/app. Before the fix the
// directory and its other entries were writable and only the denied name
// was held once its directory existed.
//
// Fix: hold the way only for the command's duration and, after it, set
// aside (or hold at the next spawn) just the denied name; e.g. create the
// missing directories as the server (as makeHold makes names) so that the
// deny name itself can be held, or set aside after the command the denied
// name (and what lies under it) when the command made its way, as
// setAsideMade does for a missing read carve-out, rather than refusing the
// whole way.
//
// Control: with the deny's directory present, the sibling is written and the
// denied name is not.
func TestAttack78DenyWayBlocksItsSiblings(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	base := visibleWorkspace(t)
	ws := base + "/ws"
	if err := os.MkdirAll(ws+"/present", 0o755); err != nil {
		t.Fatal(err)
	}
	s := execProfileSnapshot(t, ws, map[string]domain.Access{
		ws + "/present/credentials.json": domain.AccessDeny,
		ws + "/build/credentials.json":   domain.AccessDeny,
	})
	// Control: the directory exists: the sibling is written, the denied
	// name is not.
	r := sh(t, &s, `echo app > present/app; echo leaked > present/credentials.json`)
	if readFile(t, ws+"/present/app") != "app\n" || exists(ws+"/present/credentials.json") && readFile(t, ws+"/present/credentials.json") != "" {
		t.Fatalf("control: sibling not written or denied name written (exit %d, stderr %q)", r.ExitCode, r.Stderr)
	}
	if err := writeDecision(&s, ws+"/present/app2"); err != nil {
		t.Fatalf("control: write_file of a sibling in an existing directory refused: %v", err)
	}
	// Honest work: the build directory and an entry nothing denies.
	r = sh(t, &s, `mkdir -p build && echo app > build/app`)
	t.Logf("mkdir build: exit %d, stderr %q", r.ExitCode, r.Stderr)
	if !exists(ws + "/build/app") {
		t.Errorf("a command cannot make ws/build (only ws/build/credentials.json is denied): %q", r.Stderr)
	}
	if err := writeDecision(&s, ws+"/build/app.txt"); err != nil {
		t.Errorf("write_file build/app.txt refused (only build/credentials.json is denied): %v", err)
	}
}

// writeDecision is the decision path's answer to a file tool's write of p.
func writeDecision(s *domain.TurnExecutionSecuritySnapshot, p string) error {
	_, err := DecisionChecker{}.ResolveFile(s, p, domain.AccessWrite, false)
	return err
}

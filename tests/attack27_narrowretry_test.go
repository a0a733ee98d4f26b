package tests

import (
	"encoding/json"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
)

// attack27Profiles: "sup" asks before every write in the workspace
// (supervised's table, the workspace writable to the decision); "supenv"
// is "sup" with **/*.env denied: the narrowing an operator makes when a
// .env write worries them.
const attack27Profiles = `
[permissions.sup]
extends = ":read-only"
[permissions.sup.filesystem.":workspace_roots"]
"." = "write"
[permissions.sup.approvals]
policy = "supervised"

[permissions.supenv]
extends = "sup"
[permissions.supenv.filesystem]
"**/*.env" = "deny"

[permissions.supnet]
extends = "sup"
[permissions.supnet.network]
enabled = true
[permissions.supnet.network.domains]
"*" = "allow"

[permissions.supnetdeny]
extends = "supnet"
[permissions.supnetdeny.network.domains]
"*" = "allow"
"evil.example" = "deny"
`

// TestAttack27NarrowedApprovalStillAllowed: README, "The runtime loop" and
// "An approval is bound to its snapshot": a runtime that asks again about a
// call it has not reported as run is decided again under the snapshot in
// force, "so that a narrowing since the allow (or the approval) holds it
// back". The agent asks to write web/.env; a person allows it once; the
// operator then narrows the turn to a profile that denies **/*.env (same
// approval table). When the runtime sends the same call again (step 3 of
// the loop, Act), the resource check now refuses the path, and the engine
// (checkResources) hands a retried call whose check refuses to Decide
// unclassified: Decide classifies it lexically, finds the same scope hash,
// and revoked() only compares the policy table and the mode, so the answer
// is allow, user_approved, for a write the snapshot in force denies.
func TestAttack27NarrowedApprovalStillAllowed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "profiles.toml")
	if err := os.WriteFile(file, []byte(attack27Profiles), 0o644); err != nil {
		t.Fatal(err)
	}
	dns := dnsServer(t, map[string][]netip.Addr{"evil.example": {netip.MustParseAddr("93.184.216.34")}})
	s := StartServer(t, "", "--profiles", file, "--dns-server", dns)
	root := workspace(t)
	os.MkdirAll(filepath.Join(root, "web"), 0o755)
	os.WriteFile(filepath.Join(root, "web", ".env"), []byte("E=1\n"), 0o600)

	if status, body := s.Do("POST", "/v1/turns", map[string]any{"turn_id": "n27", "workspace_id": "ws", "thread_id": "th",
		"workspace_root": root, "permission_profile": map[string]any{"profile": "sup"}}); status != http.StatusCreated {
		t.Fatalf("start: %d %s", status, body)
	}
	envWrite := map[string]any{"patch": "*** Begin Patch\n*** Update File: web/.env\n@@\n-E=1\n+E=2\n*** End Patch\n"}
	okWrite := map[string]any{"patch": "*** Begin Patch\n*** Update File: a.txt\n@@\n-hello\n+bye\n*** End Patch\n"}

	// The agent asks for both writes; a person allows both once.
	for _, c := range []struct {
		id   string
		args map[string]any
	}{{"env-1", envWrite}, {"ok-1", okWrite}} {
		d := s.decide("n27", c.id, "apply_patch", c.args)
		if d.Decision != "ask" || d.Request == nil {
			t.Fatalf("%s under sup: %+v, want ask", c.id, d)
		}
		s.respond(d.Request.RequestID, "allow_once")
	}

	// The operator narrows the turn: .env files are now denied.
	var ch struct{ Position string }
	s.JSON("POST", "/v1/turns/n27/permissions", map[string]any{"permission_profile": map[string]any{"profile": "supenv"}}, http.StatusOK, &ch)

	// Control: a new call for the same file is denied by the snapshot in
	// force, and the approved write of a.txt, which the narrowing leaves
	// as it was, is still allowed when the runtime asks again.
	if d := s.decide("n27", "env-2", "apply_patch", envWrite); d.Decision != "deny" {
		t.Fatalf("control: a new write of web/.env under supenv: %+v, want deny", d)
	}
	if d := s.decide("n27", "ok-1", "apply_patch", okWrite); d.Decision != "allow" || d.Reason != "user_approved" {
		t.Fatalf("control: the approved a.txt write asked again: %+v, want allow user_approved", d)
	}

	// The attack: the runtime asks again about the approved .env write,
	// which it has not run (the loop's step 3).
	d := s.decide("n27", "env-1", "apply_patch", envWrite)
	if d.Decision != "deny" {
		t.Errorf("an approved web/.env write asked again after the turn was narrowed to deny **/*.env: %s %s (decided_by %q); want deny: the snapshot in force denies it", d.Decision, d.Reason, d.DecidedBy)
	}

	// The same hole without a profile: README, "Paths are resolved as the
	// kernel will resolve them": "A retried tool_call_id is resolved again:
	// if a link now leads elsewhere, the retry is a 409." A supervised
	// write of out/x.txt (a real directory) is allowed once; then out is
	// replaced by a symlink to a directory outside the workspace (a command
	// of another of the agent's turns can do it). Asked again, the call is
	// refused by the resource check (outside the roots), and so classified
	// lexically: same path, same hash, allow.
	root2 := workspace(t)
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(root2, "out"), 0o755)
	s.startTurn("n27b", "ws", "supervised", root2)
	w := map[string]any{"patch": "*** Begin Patch\n*** Add File: out/x.txt\n+x\n*** End Patch\n"}
	d = s.decide("n27b", "link-1", "apply_patch", w)
	if d.Decision != "ask" || d.Request == nil {
		t.Fatalf("supervised write of out/x.txt: %+v, want ask", d)
	}
	s.respond(d.Request.RequestID, "allow_once")
	if err := os.Remove(filepath.Join(root2, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root2, "out")); err != nil {
		t.Fatal(err)
	}
	if d := s.decide("n27b", "link-2", "apply_patch", w); d.Decision != "deny" {
		t.Fatalf("control: a new write through the swapped link: %+v, want deny", d)
	}
	status, body := s.Request("POST", "/v1/turns/n27b/decisions", map[string]any{"tool_call_id": "link-1", "tool_name": "apply_patch", "arguments": w})
	if status == http.StatusOK {
		var d decisionAnswer
		if err := json.Unmarshal(body, &d); err != nil {
			t.Fatal(err)
		}
		if d.Decision == "allow" {
			t.Errorf("the approved write of out/x.txt asked again after out became a link out of the workspace: allow %s; want a 409 tool_call_reused or a deny (the write now lands in %s)", d.Reason, outside)
		}
	}

	// And for the network: a fetch of evil.example allowed once, then the
	// operator denies that domain (same approval table). A retried call
	// skips the URL check altogether (checkResources runs it only for a
	// call not decided yet), and revoked() does not look at the network
	// rules: allow.
	if status, body := s.Do("POST", "/v1/turns", map[string]any{"turn_id": "n27c", "workspace_id": "ws", "thread_id": "th",
		"workspace_root": root, "permission_profile": map[string]any{"profile": "supnet"}}); status != http.StatusCreated {
		t.Fatalf("start supnet: %d %s", status, body)
	}
	fetch := map[string]any{"url": "https://evil.example/upload"}
	d = s.decide("n27c", "net-1", "web_fetch", fetch)
	if d.Decision != "ask" || d.Request == nil {
		t.Fatalf("fetch under supnet: %+v, want ask", d)
	}
	s.respond(d.Request.RequestID, "allow_once")
	s.JSON("POST", "/v1/turns/n27c/permissions", map[string]any{"permission_profile": map[string]any{"profile": "supnetdeny"}}, http.StatusOK, nil)
	if d := s.decide("n27c", "net-2", "web_fetch", fetch); d.Decision != "deny" {
		t.Fatalf("control: a new fetch of evil.example under supnetdeny: %+v, want deny", d)
	}
	if d := s.decide("n27c", "net-1", "web_fetch", fetch); d.Decision != "deny" {
		t.Errorf("an approved fetch of evil.example asked again after the operator denied that domain: %s %s; want deny", d.Decision, d.Reason)
	}
}

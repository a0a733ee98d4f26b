package tests

import (
	"encoding/json"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// attack29TableProfiles: profiles whose rules close the network and keep
// the workspace read-only, with an approval table that decides without a
// question (a reviewer run unattended: "read, never write, no network,
// do not ask me"); "closed" asks as supervised does, the control.
const attack29TableProfiles = `
[permissions.unattended]
extends = ":read-only"
[permissions.unattended.network]
enabled = false
[permissions.unattended.approvals]
policy = "full_access"

[permissions.closed]
extends = ":read-only"
[permissions.closed.network]
enabled = false
[permissions.closed.approvals]
policy = "supervised"
`

// TestAttack29DisabledNetworkAllowedByTable: the decision-time resource
// checks judge a call against Snapshot.Approvable(), the snapshot "as it
// stands for a call a person may still approve": a disabled network is
// enabled and a read-only workspace made writable, so that what a
// restricted mode asks about is not refused before a person is asked
// ("disabled until granted"). But the relaxation is applied whatever the
// policy table then says, and a profile's approval table may allow without
// asking: under a profile with `network.enabled = false`, extending
// :read-only, with `approvals.policy = "full_access"`, a runtime's
// web_fetch of a public host, and an apply_patch that writes into the
// read-only workspace, are allowed at once, no person involved. The turn's
// snapshot says network "disabled" and the workspace root "read", GET
// /explain answers network_disabled and write_requires_writable_root for
// the very same URL and file, and the model's permissions prompt says the
// same: the agent holds more than every view of the turn shows (REFERENCE
// §10: "the UI must never show a narrower profile than the agent holds";
// "enabled turns outbound access on"). The runtime performs both itself,
// outside the kernel sandbox, as does Claude Code: through the hook, a
// project given this profile has its WebFetch and Write allowed.
//
// Fixed would look like: the "until granted" relaxation applies only to a
// call the policy table asks about (a person then grants it); a call the
// table allows or denies is judged against the snapshot as it stands
// (network_disabled, write_requires_writable_root), as /explain judges it.
//
// Severity: high (a profile's network-off and read-only rules do not hold
// for the runtime's own tools whenever its approval table allows them; the
// configuration is the natural one for an unattended reviewer).
//
// Controls: /explain refuses the URL and the write; under the same rules
// with the supervised table the same calls ask (a person grants them).
func TestAttack29DisabledNetworkAllowedByTable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "profiles.toml")
	if err := os.WriteFile(file, []byte(attack29TableProfiles), 0o644); err != nil {
		t.Fatal(err)
	}
	dns := dnsServer(t, map[string][]netip.Addr{"pypi.org": {netip.MustParseAddr("151.101.0.223")},
		"go.dev": {netip.MustParseAddr("216.239.32.21")}})
	ws := workspace(t)
	ccProject(t, ws)
	cc := filepath.Join(dir, "claude-code.json")
	raw, _ := json.Marshal(map[string]any{"projects": []any{map[string]any{"root": ws, "workspace_id": "ws", "profile": "unattended"}}})
	if err := os.WriteFile(cc, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", file, "--dns-server", dns, "--claude-code-config", cc)
	target := filepath.Join(ws, "planted.txt")
	for _, p := range []string{"unattended", "closed"} {
		if st, body := startProfileTurn(s, p, ws, map[string]any{"profile": p}); st != http.StatusCreated {
			t.Fatalf("start %s: %d %s", p, st, body)
		}
		var explain struct {
			Network struct {
				Allowed bool
				Refusal string
			}
			Write struct {
				Allowed bool
				Refusal string
			}
		}
		s.JSON("GET", "/v1/turns/"+p+"/explain?url=https://pypi.org/simple/", nil, http.StatusOK, &explain)
		if explain.Network.Allowed || explain.Network.Refusal != "network_disabled" {
			t.Fatalf("control: %s: explain of the URL: %+v, want network_disabled", p, explain.Network)
		}
		s.JSON("GET", "/v1/turns/"+p+"/explain?path="+target, nil, http.StatusOK, &explain)
		if explain.Write.Allowed {
			t.Fatalf("control: %s: explain of a write in the read-only workspace: %+v, want refused", p, explain.Write)
		}
	}
	if d := s.decide("closed", "fetch", "web_fetch", map[string]any{"url": "https://pypi.org/simple/"}); d.Decision != "ask" {
		t.Fatalf("control: web_fetch under the supervised table: %+v, want ask (disabled until granted)", d)
	}
	if d := s.decide("closed", "write", "apply_patch", patch(target)); d.Decision != "ask" {
		t.Fatalf("control: apply_patch under the supervised table: %+v, want ask", d)
	}

	if d := s.decide("unattended", "fetch", "web_fetch", map[string]any{"url": "https://pypi.org/simple/"}); d.Decision == "allow" {
		t.Errorf("web_fetch under a profile whose network is disabled (explain: network_disabled): allow %s, no person asked; want deny network_disabled", d.Reason)
	}
	if d := s.decide("unattended", "write", "apply_patch", patch(target)); d.Decision == "allow" {
		t.Errorf("apply_patch into the profile's read-only workspace (explain: refused): allow %s, no person asked; want deny write_requires_writable_root", d.Reason)
	}
	// Claude Code, through the hook, in a project given the profile.
	for _, c := range []struct{ name, what string }{{"pre_webfetch", "WebFetch https://go.dev/…"}, {"pre_write", "Write " + ws + "/src/new.go"}} {
		out := s.hookHTTP(ccPayload(t, c.name, "sess-29-table", ws))
		if strings.Contains(out, `"permissionDecision":"allow"`) {
			t.Errorf("Claude Code %s in a project whose profile disables the network and keeps the workspace read-only: %s", c.what, strings.TrimSpace(out))
		}
	}
}

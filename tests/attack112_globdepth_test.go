package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack112_RuntimeShallowsGlobScan: a profile's glob deny rules
// ("**/secret.txt" = "deny") are held on commands by masking, at spawn,
// the matches found up to glob_scan_max_depth levels below each granted
// root. domain.Widens never compares Filesystem.GlobScanMaxDepth (nor
// does SandboxNarrows): a profile that differs from the turn's only in a
// shallower scan has the same rules (their origin is the parent that
// wrote them), entries, network and process, so a runtime credential,
// which may only narrow its turns, moves its turn from "dev" (depth 8) to
// "dev-shallow" (depth 1): accepted, and its next command reads a secret
// three levels down that the turn's own profile denies.
//
// Controls: under "dev" the same command cannot read the file (masked);
// the runtime's change to "dev-net" (the network on, an ordinary
// widening) is refused 403.
func TestAttack112_RuntimeShallowsGlobScan(t *testing.T) {
	t.Parallel()
	root := workspace(t)
	deep := filepath.Join(root, "a", "b", "secret.txt")
	makeFiles(t, "TOPSECRET-112\n", deep)
	profiles := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.dev]
extends = ":workspace"
[permissions.dev.filesystem]
"**/secret.txt" = "deny"
[permissions.dev.approvals]
policy = "full_access"

[permissions.dev-shallow]
extends = "dev"
glob_scan_max_depth = 1

[permissions.dev-net]
extends = "dev"
[permissions.dev-net.network]
enabled = true
`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", profiles)
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "g112", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]any{"profile": "dev"}, "workspace_root": root}, http.StatusCreated, nil)
	read := func(call string) (bool, string) {
		st, raw := runtime.Request("POST", "/v1/turns/g112/exec", map[string]any{"tool_call_id": call, "cwd": root, "timeout_ms": 20000,
			"argv": []string{"cat", "a/b/secret.txt"}})
		var d decisionAnswer
		json.Unmarshal(raw, &d)
		t.Logf("%s: %d %.400s", call, st, raw)
		return d.Ran && d.Result != nil && strings.Contains(d.Result.Stdout, "TOPSECRET-112"), string(raw)
	}
	// Control: the turn's profile holds the deny on the command.
	if got, raw := read("c1"); got {
		t.Fatalf("control: under dev the command read the denied file: %.300s", raw)
	}
	// Control: an ordinary widening by the runtime is refused.
	if st, raw := runtime.Request("POST", "/v1/turns/g112/permissions", map[string]any{"permission_profile": map[string]any{"profile": "dev-net"}}); st != http.StatusForbidden {
		t.Fatalf("control: the runtime's change to dev-net: %d %.300s, want 403", st, raw)
	}
	// The attack.
	st, raw := runtime.Request("POST", "/v1/turns/g112/permissions", map[string]any{"permission_profile": map[string]any{"profile": "dev-shallow"}})
	t.Logf("runtime's change to dev-shallow: %d %.300s", st, raw)
	if st == http.StatusOK {
		got, _ := read("c2")
		t.Errorf("the runtime credential moved its turn from dev (glob denies masked 8 levels down) to dev-shallow (1 level): 200, not refused as a widening; its next command read a/b/secret.txt, which **/secret.txt denies: %v", got)
	} else if st != http.StatusForbidden {
		t.Errorf("the runtime's change to dev-shallow: %d, want 403", st)
	}
}

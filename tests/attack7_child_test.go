package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack7ChildTurnDropsLimitedNetwork: a permission profile's `limited`
// network (README: GET, HEAD and OPTIONS only; CONNECT refused, since the
// method inside TLS cannot be seen) is the snapshot's
// network.allowed_methods. Intersecting two network policies
// (domain.IntersectNetwork, used for every child turn and for a parent's
// narrowing carried to its children) builds a new NetworkPolicy without
// AllowedMethods, so a child turn of a limited turn may use every method.
// The runtime starts child turns on its own (POST /v1/turns with
// parent_turn_id: no approval), so an agent whose turn may only read the
// web starts a child and POSTs (and, through the egress proxy, opens TLS
// tunnels carrying any method) to the allowed domains: a child wider than
// its parent (REFERENCE §6: a child's profile is requested ∩ cap ∩ parent).
//
// Control: the parent refuses the POST (method_not_allowed) and allows the
// GET; the child allows the GET too.
func TestAttack7ChildTurnDropsLimitedNetwork(t *testing.T) {
	t.Parallel()
	profiles := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`[permissions.web]
extends = ":workspace"

[permissions.web.network]
enabled = true
mode = "limited"

[permissions.web.network.domains]
"example.com" = "allow"

[permissions.web.approvals]
policy = "full_access"
`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", profiles)
	root := workspace(t)
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	var parent, child struct {
		SecuritySnapshot struct {
			Network struct {
				AllowedMethods []string `json:"allowed_methods"`
			} `json:"network"`
		} `json:"security_snapshot"`
	}
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "lp", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]any{"profile": "web"}, "workspace_root": root}, http.StatusCreated, &parent)
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "lc", "workspace_id": "ws", "thread_id": "th",
		"parent_turn_id": "lp"}, http.StatusCreated, &child)

	fetch := func(turnID, call, method string) decisionAnswer {
		return runtime.decide(turnID, call, "web_fetch", map[string]any{"url": "https://example.com/upload", "method": method})
	}
	if d := fetch("lp", "g", "GET"); d.Decision != "allow" {
		t.Fatalf("control: the parent's GET: %+v", d)
	}
	if d := fetch("lp", "p", "POST"); d.Decision != "deny" || d.Refusal != "method_not_allowed" {
		t.Fatalf("control: the parent's POST: %+v", d)
	}
	if d := fetch("lc", "g", "GET"); d.Decision != "allow" {
		t.Fatalf("control: the child's GET: %+v", d)
	}
	if d := fetch("lc", "p", "POST"); d.Decision != "deny" {
		t.Errorf("a child of a turn limited to %v POSTs: %s (%s); its network allows methods %v (REFERENCE §6: never broader than its parent)",
			parent.SecuritySnapshot.Network.AllowedMethods, d.Decision, d.Reason, child.SecuritySnapshot.Network.AllowedMethods)
	}
}

// TestAttack7ChildTurnLosesGlobMasks: a profile's glob deny rule
// ("**/*.env" = "deny") is enforced on commands by masking, at spawn, the
// matches found up to the snapshot's glob_scan_max_depth below each root
// (sandbox: only when the depth is > 0). A child turn's filesystem is the
// intersection of its own and its parent's (domain.IntersectFilesystem),
// which builds a new FilesystemPolicy without GlobScanMaxDepth; the child
// keeps the parent's rules (so its decisions still deny the file) but its
// commands get no glob masks at all, and its snapshot claims enforcement
// "active" without the parent's glob degradation. The runtime starts the
// child itself (no approval) and its command reads the secrets the
// parent's rule hides.
//
// Control: the parent's command is refused the file (masked); the child's
// read_file decision denies it.
func TestAttack7ChildTurnLosesGlobMasks(t *testing.T) {
	t.Parallel()
	profiles := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`[permissions.dev]
extends = ":workspace"

[permissions.dev.filesystem]
"**/*.env" = "deny"

[permissions.dev.approvals]
policy = "full_access"
`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", profiles)
	root := workspace(t)
	if err := os.MkdirAll(filepath.Join(root, "app"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "app", "prod.env"), []byte("API_KEY=a7-topsecret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "gp", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]any{"profile": "dev"}, "workspace_root": root}, http.StatusCreated, nil)
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "gc", "workspace_id": "ws", "thread_id": "th",
		"parent_turn_id": "gp"}, http.StatusCreated, nil)

	cat := func(turnID string) decisionAnswer {
		var out decisionAnswer
		runtime.JSON("POST", "/v1/turns/"+turnID+"/exec", map[string]any{"tool_call_id": "cat", "cmd": "cat app/prod.env"}, http.StatusOK, &out)
		return out
	}
	if d := cat("gp"); !d.Ran || d.Result == nil || d.Result.ExitCode == 0 || strings.Contains(d.Result.Stdout, "a7-topsecret") {
		t.Fatalf("control: the parent's command read the masked file: %+v", d)
	}
	if d := runtime.decide("gc", "r", "read_file", map[string]any{"path": "app/prod.env"}); d.Decision != "deny" {
		t.Fatalf("control: the child's read_file decision: %+v", d)
	}
	if d := cat("gc"); d.Result != nil && strings.Contains(d.Result.Stdout, "a7-topsecret") {
		t.Errorf("the child turn's command read app/prod.env, which the parent's \"**/*.env\" = deny masks: %q", d.Result.Stdout)
	}
}

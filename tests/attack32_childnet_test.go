package tests

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// attack32CIProfile: a profile that confines the filesystem to the
// workspace, decides without a question (the full_access table), and gives
// commands a network "limited" to GET, HEAD and OPTIONS. The egress proxy
// carries a command's connections only under an allow-list without "*",
// so the kernel cannot hold a limited network alone to its methods, nor
// refuse loopback, private and metadata addresses: the turn's snapshot is
// unavailable and its commands are refused (README, "Permission
// profiles": "such a profile's commands are refused while its decisions
// apply").
const attack32CIProfile = `
[permissions.ci]
extends = ":workspace"
[permissions.ci.network]
enabled = true
mode = "limited"
[permissions.ci.approvals]
policy = "full_access"
`

// TestAttack32ChildTurnRunsWhatItsParentCannot: a child turn "is bounded
// by its parent" (README), and any runtime credential starts one (POST
// /v1/turns with parent_turn_id, no approval). domain.ResolveChildSnapshot
// intersects the child's mode (the parent's table, full_access) with the
// parent's bounds and then recomputes the enforcement with
// ComputeEnforcement alone: the profile's degradations (profileDegradations:
// a limited network, domain rules or loopback refusals the kernel cannot
// hold; a unix-socket allow-list) are gone, and the child's network is
// "enabled" with the parent's method list, which the sandbox does not
// restrict at all (prepareSandbox: needNet is Mode != enabled). So the
// agent, whose own turn may run no command, starts a child and its
// commands reach any host with any method: here a POST to a service on
// the loopback, which the parent's decisions refuse twice over (POST under
// limited, loopback not allowed).
//
// The operator's constraints allow the profile "ci" alone, so the agent
// cannot start a wider turn instead.
//
// Controls: a full_access turn is refused by the constraints; the
// parent's command is refused (the sandbox is unavailable); the child's
// own web_fetch decision of the same POST is denied.
func TestAttack32ChildTurnRunsWhatItsParentCannot(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.Path+" "+string(b))
		mu.Unlock()
		io.WriteString(w, "seen\n")
	}))
	defer svc.Close()
	seen := func(what string) bool {
		mu.Lock()
		defer mu.Unlock()
		for _, g := range got {
			if strings.HasPrefix(g, what) {
				return true
			}
		}
		return false
	}

	profiles := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(profiles, []byte(attack32CIProfile), 0o600); err != nil {
		t.Fatal(err)
	}
	// The operator allows this profile alone: no turn may be started
	// in another (README: "Where the agent must stay within a mode, start
	// the server with --constraints naming what may be selected").
	cons := filepath.Join(filepath.Dir(profiles), "constraints.toml")
	if err := os.WriteFile(cons, []byte("allowed_profiles = [\"ci\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", profiles, "--constraints", cons)
	root := workspace(t)
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	type snap struct {
		SecuritySnapshot struct {
			Network     json.RawMessage `json:"network"`
			Enforcement json.RawMessage `json:"enforcement"`
		} `json:"security_snapshot"`
	}
	var parent, child snap
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "ci", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]any{"profile": "ci"}, "workspace_root": root}, http.StatusCreated, &parent)
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "ci-child", "workspace_id": "ws", "thread_id": "th",
		"parent_turn_id": "ci"}, http.StatusCreated, &child)
	t.Logf("parent: network %s enforcement %s", parent.SecuritySnapshot.Network, parent.SecuritySnapshot.Enforcement)
	t.Logf("child: network %s enforcement %s", child.SecuritySnapshot.Network, child.SecuritySnapshot.Enforcement)

	run := func(turnID, call string, argv ...string) (int, decisionAnswer, string) {
		st, raw := runtime.Request("POST", "/v1/turns/"+turnID+"/exec", map[string]any{"tool_call_id": call, "argv": argv, "timeout_ms": 20000})
		var d decisionAnswer
		json.Unmarshal(raw, &d)
		return st, d, string(raw)
	}

	// Control: the constraints refuse a wider turn (full_access).
	if st, raw := runtime.Request("POST", "/v1/turns", map[string]any{"turn_id": "fa", "workspace_id": "ws", "thread_id": "th2",
		"permission_profile": map[string]any{"mode": "full_access"}, "workspace_root": root}); st != http.StatusBadRequest {
		t.Fatalf("control: a full_access turn under allowed_profiles = [\"ci\"]: %d %s", st, raw)
	}

	// Control: the parent's command is refused, its snapshot unavailable.
	if st, d, raw := run("ci", "post", "curl", "-sS", "--max-time", "10", "-X", "POST", "--data", "from-parent", svc.URL+"/parent"); d.Ran || seen("POST /parent") {
		t.Fatalf("control: the parent's command ran: %d %s", st, raw)
	} else {
		t.Logf("parent's command: %d %s", st, raw)
	}

	// Control: the child's decisions refuse the POST to the loopback.
	if d := runtime.decide("ci-child", "wf", "web_fetch", map[string]any{"url": svc.URL + "/child", "method": "POST"}); d.Decision != "deny" {
		t.Fatalf("control: the child's web_fetch POST to the loopback: %+v, want deny", d)
	} else {
		t.Logf("child's web_fetch POST: %s %s", d.Decision, d.Refusal)
	}

	// The attack: the child's command POSTs to the loopback service.
	st, d, raw := run("ci-child", "post", "curl", "-sS", "--max-time", "10", "-X", "POST", "--data", "exfiltrated", svc.URL+"/child")
	t.Logf("child's command: %d %s", st, raw)
	if d.Ran && seen("POST /child exfiltrated") {
		t.Errorf("the child of a turn whose commands are refused (a limited network the kernel cannot hold) ran a command that POSTed to a loopback service: the child's snapshot dropped its parent's degradations and restricts no network")
	}
}

// TestAttack32ChildTurnOpensEveryUnixSocket: the same dropped degradation
// for a unix-socket allow-list (README's example: the person's podman
// socket alone). The kernel allows unix sockets all or none, so the
// parent's commands are refused. Its child's network allows unix sockets
// (full_access's true AND the parent's true) with an active enforcement:
// the child's command connects to any socket a host service listens on
// (here one in the workspace that the allow-list does not name; a docker
// or containerd socket the same).
//
// Controls: the parent's command is refused; a command of a turn whose
// profile is the same without the socket list runs and cannot connect.
func TestAttack32ChildTurnOpensEveryUnixSocket(t *testing.T) {
	t.Parallel()
	root := workspace(t)
	os.Chmod(root, 0o777)
	sock := filepath.Join(root, "svc.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(sock, 0o777)
	var mu sync.Mutex
	var got []string
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.Path)
		mu.Unlock()
		io.WriteString(w, "socket-seen\n")
	})}
	go srv.Serve(l)
	defer srv.Close()

	profiles := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.podman]
extends = ":workspace"
[permissions.podman.network.unix_sockets]
"/run/user/1000/podman/podman.sock" = "allow"
[permissions.podman.approvals]
policy = "full_access"

[permissions.plain]
extends = ":workspace"
[permissions.plain.approvals]
policy = "full_access"
`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", profiles)
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "pod", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]any{"profile": "podman"}, "workspace_root": root}, http.StatusCreated, nil)
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "pod-child", "workspace_id": "ws", "thread_id": "th",
		"parent_turn_id": "pod"}, http.StatusCreated, nil)
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "plain", "workspace_id": "ws", "thread_id": "th2",
		"permission_profile": map[string]any{"profile": "plain"}, "workspace_root": root}, http.StatusCreated, nil)
	run := func(turnID, path string) (decisionAnswer, string) {
		st, raw := runtime.Request("POST", "/v1/turns/"+turnID+"/exec", map[string]any{"tool_call_id": "sock", "cwd": root, "timeout_ms": 20000,
			"argv": []string{"curl", "-sS", "--max-time", "10", "--unix-socket", sock, "http://localhost" + path}})
		var d decisionAnswer
		json.Unmarshal(raw, &d)
		t.Logf("%s: %d %s", turnID, st, raw)
		return d, string(raw)
	}
	seen := func(what string) bool {
		mu.Lock()
		defer mu.Unlock()
		for _, g := range got {
			if g == what {
				return true
			}
		}
		return false
	}
	if d, raw := run("pod", "/parent"); d.Ran || seen("GET /parent") {
		t.Fatalf("control: the parent's command ran: %s", raw)
	}
	if d, raw := run("plain", "/plain"); !d.Ran || seen("GET /plain") {
		t.Fatalf("control: a command without unix sockets reached the socket (or did not run): %s", raw)
	}
	if d, _ := run("pod-child", "/child"); d.Ran && seen("GET /child") {
		t.Errorf("the child of a turn whose commands are refused (a unix-socket allow-list naming another socket) connected to %s", sock)
	}
}

package tests

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestAttack33ChildKeepsSocketsAfterParentNarrowed: the fix of the
// thirty-second review keeps a parent's profile degradations in a child's
// snapshot (ResolveChildSnapshot, NarrowToParent). But a parent narrowed
// after its child started reaches the child through ChangeProfile
// FromParent, which records NarrowToParent's snapshot only when it narrows
// the child's policies (Widens, which never looks at the enforcement). A
// profile whose unix-socket allow-list the kernel cannot hold has the same
// policies as one allowing every socket (AllowUnixSockets is a bool; the
// list is only a degradation): the operator narrows the parent from "dev"
// (every socket) to "podman" (one socket), the parent's commands are
// refused, and a child the agent started before keeps an active
// enforcement and opens any host socket.
//
// Controls: the narrowed parent's commands are refused; a child started
// after the narrowing is refused; before the narrowing the early child
// reaches the socket (what the narrowing must take away).
func TestAttack33ChildKeepsSocketsAfterParentNarrowed(t *testing.T) {
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
	got := map[string]bool{}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got[r.Method+" "+r.URL.Path] = true
		mu.Unlock()
		io.WriteString(w, "socket-seen\n")
	})}
	go srv.Serve(l)
	defer srv.Close()

	profiles := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.dev]
extends = ":workspace"
[permissions.dev.network.unix_sockets]
"/" = "allow"
[permissions.dev.approvals]
policy = "full_access"

[permissions.podman]
extends = ":workspace"
[permissions.podman.network.unix_sockets]
"/run/user/1000/podman/podman.sock" = "allow"
[permissions.podman.approvals]
policy = "full_access"
`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", profiles)
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "p", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]any{"profile": "dev"}, "workspace_root": root}, http.StatusCreated, nil)
	// The agent starts a child early.
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "p-early", "workspace_id": "ws", "thread_id": "th",
		"parent_turn_id": "p"}, http.StatusCreated, nil)
	run := func(turnID, path string) decisionAnswer {
		st, raw := runtime.Request("POST", "/v1/turns/"+turnID+"/exec", map[string]any{"tool_call_id": "sock" + path[1:], "cwd": root, "timeout_ms": 20000,
			"argv": []string{"curl", "-sS", "--max-time", "10", "--unix-socket", sock, "http://localhost" + path}})
		var d decisionAnswer
		json.Unmarshal(raw, &d)
		t.Logf("%s %s: %d %s", turnID, path, st, raw)
		return d
	}
	seen := func(what string) bool {
		mu.Lock()
		defer mu.Unlock()
		return got[what]
	}
	// Control: before the narrowing the child reaches the socket.
	if d := run("p-early", "/before"); !d.Ran || !seen("GET /before") {
		t.Fatalf("control: the early child did not reach the socket before the narrowing: %+v", d)
	}

	// The operator narrows the parent to the podman socket alone.
	st, raw := s.Request("POST", "/v1/turns/p/permissions", map[string]any{"permission_profile": map[string]any{"profile": "podman"}})
	if st != http.StatusOK {
		t.Fatalf("narrowing the parent: %d %s", st, raw)
	}
	// Control: the parent's commands are now refused.
	if d := run("p", "/parent"); d.Ran || seen("GET /parent") {
		t.Fatalf("control: the narrowed parent's command ran: %+v", d)
	}
	// Control: a child started now is refused.
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "p-late", "workspace_id": "ws", "thread_id": "th",
		"parent_turn_id": "p"}, http.StatusCreated, nil)
	if d := run("p-late", "/late"); d.Ran || seen("GET /late") {
		t.Fatalf("control: a child started after the narrowing ran: %+v", d)
	}
	// The attack: the early child.
	var early struct {
		Snapshot struct {
			Enforcement struct {
				Status string `json:"status"`
			} `json:"enforcement"`
		} `json:"security_snapshot"`
	}
	if st, b := runtime.Request("GET", "/v1/turns/p-early", nil); st == http.StatusOK {
		json.Unmarshal(b, &early)
	}
	if d := run("p-early", "/after"); d.Ran && seen("GET /after") {
		t.Errorf("a child started before its parent was narrowed to a unix-socket allow-list (the parent's commands now refused) still connects to any socket (%s); its enforcement: %q", sock, early.Snapshot.Enforcement.Status)
	}
}

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

// attack112SocketProfiles writes two operator profiles that differ only in
// the host's unix sockets: "dev" (none) and "dev-sockets" (every socket,
// "/", the one list the kernel holds), both with the network off, and a
// third, "dev-net", that turns the network on (an ordinary widening).
func attack112SocketProfiles(t *testing.T) string {
	t.Helper()
	profiles := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.dev]
extends = ":workspace"
[permissions.dev.approvals]
policy = "full_access"

[permissions.dev-sockets]
extends = "dev"
[permissions.dev-sockets.network.unix_sockets]
"/" = "allow"

[permissions.dev-net]
extends = "dev"
[permissions.dev-net.network]
enabled = true
`), 0o600); err != nil {
		t.Fatal(err)
	}
	return profiles
}

// attack112SocketServer serves HTTP on a unix socket in dir and reports
// which paths it was asked for.
func attack112SocketServer(t *testing.T, dir string) (sock string, seen func(string) bool) {
	t.Helper()
	sock = filepath.Join(dir, "svc.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(sock, 0o777)
	var mu sync.Mutex
	got := map[string]bool{}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got[r.URL.Path] = true
		mu.Unlock()
		io.WriteString(w, "host-socket-reached\n")
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return sock, func(p string) bool {
		mu.Lock()
		defer mu.Unlock()
		return got[p]
	}
}

// TestAttack112_RuntimeWidensUnixSockets: a runtime may only narrow its
// turns' permissions ("widening is the admin's": domain.Widens, checked in
// decideChange for every principal without turn.widen_profile). Widens
// compares networks with networkNarrows seen backwards, which returns "no
// narrowing" as soon as the (new) network is disabled ("nothing to take
// away") and so never compares AllowUnixSockets of two disabled networks.
// A profile that opens every host unix socket (docker.sock, the session
// bus, an ssh agent, a database's socket) with the network off is then not
// "wider" than the same profile without sockets.
//
// The attack: the operator (admin) narrows the agent's turn from
// "dev-sockets" to "dev" to take the host's sockets away from its
// commands. The agent, holding the runtime credential, changes the turn
// back to "dev-sockets": accepted (200), and its next /exec connects to a
// host unix socket again.
//
// Controls: after the admin's narrowing the turn's command cannot reach the
// socket (so the reach after is the runtime's change); the runtime's change
// to "dev-net" (network on, an ordinary widening) is refused 403.
func TestAttack112_RuntimeWidensUnixSockets(t *testing.T) {
	t.Parallel()
	root := workspace(t)
	os.Chmod(root, 0o777)
	sock, seen := attack112SocketServer(t, root)
	s := StartServer(t, "", "--profiles", attack112SocketProfiles(t))
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "t112", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]any{"profile": "dev-sockets"}, "workspace_root": root}, http.StatusCreated, nil)

	run := func(call, path string) decisionAnswer {
		st, raw := runtime.Request("POST", "/v1/turns/t112/exec", map[string]any{"tool_call_id": call, "cwd": root, "timeout_ms": 20000,
			"argv": []string{"curl", "-sS", "--max-time", "10", "--unix-socket", sock, "http://localhost" + path}})
		var d decisionAnswer
		json.Unmarshal(raw, &d)
		t.Logf("%s %s: %d %.400s", call, path, st, raw)
		return d
	}
	// Sanity: under dev-sockets the command reaches the socket.
	if d := run("c1", "/before"); !d.Ran || !seen("/before") {
		t.Fatalf("setup: under dev-sockets the command did not reach the socket: %+v", d)
	}
	// The admin narrows the turn to dev: no host sockets.
	if st, raw := s.Request("POST", "/v1/turns/t112/permissions", map[string]any{"permission_profile": map[string]any{"profile": "dev"}}); st != http.StatusOK {
		t.Fatalf("setup: the admin's narrowing to dev: %d %s", st, raw)
	}
	// Control: the narrowing holds for the turn's next command.
	if d := run("c2", "/narrowed"); seen("/narrowed") {
		t.Fatalf("control: after the admin's narrowing the command still reached the socket: %+v", d)
	}
	// Control: an ordinary widening by the runtime is refused.
	st, raw := runtime.Request("POST", "/v1/turns/t112/permissions", map[string]any{"permission_profile": map[string]any{"profile": "dev-net"}})
	if st != http.StatusForbidden {
		t.Fatalf("control: the runtime's widening to dev-net: %d %s, want 403", st, raw)
	}
	t.Logf("control: runtime's change to dev-net: %d %s", st, raw)

	// The attack: the runtime changes the turn back to dev-sockets.
	st, raw = runtime.Request("POST", "/v1/turns/t112/permissions", map[string]any{"permission_profile": map[string]any{"profile": "dev-sockets"}})
	t.Logf("runtime's change to dev-sockets: %d %.300s", st, raw)
	if st == http.StatusOK {
		d := run("c3", "/rewidened")
		t.Errorf("the runtime credential widened its turn from dev (no host sockets, the admin's narrowing) to dev-sockets (every host unix socket): 200; its next command reached %s: %v (ran %v)",
			sock, seen("/rewidened"), d.Ran)
	} else if st != http.StatusForbidden {
		t.Errorf("the runtime's change to dev-sockets: %d %s, want 403", st, raw)
	}
}

// TestAttack112_ChildKeepsSocketsAfterNarrow: the same blind spot on the
// way down. A parent narrowed from "dev-sockets" to "dev" (the admin takes
// the host's unix sockets away) reaches its children through ChangeProfile
// FromParent, which records NarrowToParent's snapshot only when Widens
// says the child's old snapshot was wider; with both networks disabled it
// never compares AllowUnixSockets, so a child the agent started before the
// narrowing keeps every host socket while its parent has none.
//
// Controls: before the narrowing the child reaches the socket; after it,
// the parent's own command does not; a child started after it does not.
func TestAttack112_ChildKeepsSocketsAfterNarrow(t *testing.T) {
	t.Parallel()
	root := workspace(t)
	os.Chmod(root, 0o777)
	sock, seen := attack112SocketServer(t, root)
	s := StartServer(t, "", "--profiles", attack112SocketProfiles(t))
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "p112", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]any{"profile": "dev-sockets"}, "workspace_root": root}, http.StatusCreated, nil)
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "p112-early", "workspace_id": "ws", "thread_id": "th",
		"parent_turn_id": "p112"}, http.StatusCreated, nil)
	run := func(turnID, call, path string) decisionAnswer {
		st, raw := runtime.Request("POST", "/v1/turns/"+turnID+"/exec", map[string]any{"tool_call_id": call, "cwd": root, "timeout_ms": 20000,
			"argv": []string{"curl", "-sS", "--max-time", "10", "--unix-socket", sock, "http://localhost" + path}})
		var d decisionAnswer
		json.Unmarshal(raw, &d)
		t.Logf("%s %s: %d %.400s", turnID, path, st, raw)
		return d
	}
	// Control: before the narrowing the child reaches the socket.
	if d := run("p112-early", "c1", "/before"); !d.Ran || !seen("/before") {
		t.Fatalf("control: the child did not reach the socket before the narrowing: %+v", d)
	}
	// The admin narrows the parent to dev.
	if st, raw := s.Request("POST", "/v1/turns/p112/permissions", map[string]any{"permission_profile": map[string]any{"profile": "dev"}}); st != http.StatusOK {
		t.Fatalf("setup: the admin's narrowing: %d %.300s", st, raw)
	}
	// Control: the parent's own command no longer reaches it.
	if run("p112", "c2", "/parent"); seen("/parent") {
		t.Fatalf("control: the narrowed parent's command reached the socket")
	}
	// Control: a child started after the narrowing does not reach it.
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "p112-late", "workspace_id": "ws", "thread_id": "th",
		"parent_turn_id": "p112"}, http.StatusCreated, nil)
	if run("p112-late", "c3", "/late"); seen("/late") {
		t.Fatalf("control: a child started after the narrowing reached the socket")
	}
	// The attack: the child started before.
	if d := run("p112-early", "c4", "/after"); seen("/after") {
		t.Errorf("a child started before its parent was narrowed from dev-sockets to dev (no host sockets) still connects to a host unix socket (%s; ran %v)", sock, d.Ran)
	}
}

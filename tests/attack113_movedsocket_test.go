package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack113_OpenFilesNoNetworkMovedSocket (hundred-and-thirteenth
// review, end to end): an operator profile whose filesystem is ":root" =
// "write" with no network table (network disabled, no unix sockets) runs
// its commands in a network namespace of their own, with the host's
// listening pathname sockets masked (README network row). The masks are
// made where each listener is bound, and a listener that is no longer there
// is looked for by a walk of the snapshot's writable roots only; this
// snapshot has none in prepareSpec (its filesystem is not restricted),
// while the whole tree is the command's (uid 0 under a root server). The
// agent's first command renames the directory above a host service's
// socket; its second connects to the socket at its new name and talks to
// the host service with the network disabled.
//
// Control: the socket at its bound name is refused to the same turn.
func TestAttack113_OpenFilesNoNetworkMovedSocket(t *testing.T) {
	dir := t.TempDir()
	profiles := filepath.Join(dir, "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.opennonet]
[permissions.opennonet.filesystem]
":root" = "write"
[permissions.opennonet.approvals]
policy = "full_access"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(workspace(t), "svcroot")
	if err := os.MkdirAll(filepath.Join(base, "svc"), 0o755); err != nil {
		t.Fatal(err)
	}
	sock, seen := attack112SocketServer(t, filepath.Join(base, "svc"))
	moved := filepath.Join(base, "svc2", filepath.Base(sock))

	s := StartServer(t, "", "--profiles", profiles)
	agent := roAs(s, s.credential("agent", "runtime"))
	ws := workspace(t)
	agent.JSON("POST", "/v1/turns", map[string]any{"turn_id": "t113", "workspace_id": "ws", "thread_id": "th",
		"workspace_root": ws, "cwd": ws, "permission_profile": map[string]any{"profile": "opennonet"}}, http.StatusCreated, nil)
	exec := func(call string, argv ...string) decisionAnswer {
		st, raw := agent.Request("POST", "/v1/turns/t113/exec", map[string]any{"tool_call_id": call, "cwd": ws, "timeout_ms": 20000, "argv": argv})
		var d decisionAnswer
		json.Unmarshal(raw, &d)
		t.Logf("%s: %d %.500s", call, st, raw)
		return d
	}
	// Control: the socket where it was bound is masked.
	if d := exec("c1", "curl", "-sS", "--max-time", "10", "--unix-socket", sock, "http://localhost/bound"); !d.Ran || seen("/bound") {
		t.Fatalf("control: a command with the network disabled reached the host socket at its bound name (ran %v)", d.Ran)
	}
	// The agent renames the directory above it.
	// (Adjusted with the fix: the socket's directories are pinned in such
	// a view, so the rename is refused, the secure outcome.)
	if d := exec("c2", "mv", filepath.Join(base, "svc"), filepath.Join(base, "svc2")); !d.Ran || d.Result == nil || d.Result.ExitCode != 0 {
		if d.Result == nil || !strings.Contains(d.Result.Stderr, "busy") {
			t.Fatalf("premise: the rename did not run, and not as pinned: %+v", d)
		}
		if _, err := os.Stat(sock); err != nil {
			t.Fatalf("the refused rename moved the socket: %v", err)
		}
		return
	}
	d := exec("c3", "curl", "-sS", "--max-time", "10", "--unix-socket", moved, "http://localhost/moved")
	if seen("/moved") {
		t.Errorf("a command of a profile with the network disabled (\":root\" = \"write\", no network table) reached a host service's unix socket an earlier command moved (%s -> %s; ran %v)", sock, moved, d.Ran)
	}
}

package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack130_DataDirStoreLinkedIntoRoot (hundred-and-thirtieth review,
// medium, layout-dependent: the agent reads and rewrites the event
// store; same root cause as TestAttack130_DataDirTokenLinkedIntoRoot, a
// separate way in: a fix for the token alone leaves it). The embedded log
// store lives at DATA/events; an operator who keeps the events on another
// disk links it (DATA/events -> /srv/big/turnstile-events). `serve`
// denies the data directory and where the data directory itself leads,
// not where a link inside it leads (secretPaths; storePaths names no file
// for the embedded store). A command of a turn whose writable root holds
// the link's target reads every workspace's events there (another
// workspace's turn ids, tool calls, approvals) and may write them: the
// store the server replays at its next start. A full_access command,
// whose one confinement is the gateway's secrets, reads it by its real
// path from any root (no root need hold it).
//
// Controls (labelled): the same commands (the writable root's and
// full_access's) cannot read DATA/events through the data directory's own
// path (the data directory is masked).
func TestAttack130_DataDirStoreLinkedIntoRoot(t *testing.T) {
	if os.Getenv("TURNSTILE_TOKEN") != "" {
		t.Skip("TURNSTILE_TOKEN is set")
	}
	profiles := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.sbx]
[permissions.sbx.filesystem]
":minimal" = "read"
":workspace_roots" = "write"
[permissions.sbx.approvals]
policy = "full_access"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := workspace(t)
	store := filepath.Join(ws, "disk", "turnstile-events")
	if err := os.MkdirAll(store, 0o700); err != nil {
		t.Fatal(err)
	}
	// The data directory inside the root too, for the control.
	data := filepath.Join(ws, "state")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(store, filepath.Join(data, "events")); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, data, "--profiles", profiles)
	// Another workspace's turn, whose id the agent should not learn.
	const secretTurn = "other-ws-secret-turn-a130"
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": secretTurn, "workspace_id": "other", "thread_id": "th-o", "workspace_root": workspace(t)}, http.StatusCreated, nil)
	agent := roAs(s, s.credential("agent", "runtime"))
	agent.JSON("POST", "/v1/turns", map[string]any{"turn_id": "a130ls", "workspace_id": "ws", "thread_id": "th-a",
		"workspace_root": ws, "cwd": ws, "permission_profile": map[string]any{"profile": "sbx"}}, http.StatusCreated, nil)
	run := func(id string, argv ...string) string {
		status, d := agent.exec("a130ls", "", map[string]any{"tool_call_id": id, "argv": argv, "cwd": ws})
		if status != http.StatusOK || !d.Ran || d.Result == nil {
			t.Fatalf("premise: the command did not run: %d %+v", status, d)
		}
		t.Logf("%v: exit %d stdout %.300q stderr %.300q", argv, d.Result.ExitCode, d.Result.Stdout, d.Result.Stderr)
		return d.Result.Stdout
	}
	// CONTROL: through the data directory's path, masked.
	if out := run("ctl", "/bin/grep", "-rl", secretTurn, "state/"); strings.Contains(out, "state/") {
		t.Fatalf("control: the store was read through the data directory")
	}
	// ATTACK: where DATA/events leads.
	out := run("atk", "/bin/grep", "-rl", secretTurn, "disk/turnstile-events/")
	wrote := run("atk-w", "/bin/sh", "-c", "ls disk/turnstile-events/ && : > disk/turnstile-events/agent-was-here && echo wrote")
	// ATTACK (full_access, whose one confinement is the gateway's
	// secrets): the store where the link leads, from a turn rooted
	// elsewhere; the data directory itself is masked there (control).
	agent.JSON("POST", "/v1/turns", map[string]any{"turn_id": "a130ls-fa", "workspace_id": "ws", "thread_id": "th-fa",
		"workspace_root": workspace(t), "permission_profile": map[string]any{"mode": "full_access"}}, http.StatusCreated, nil)
	fa := func(id string, argv ...string) string {
		status, d := agent.exec("a130ls-fa", "", map[string]any{"tool_call_id": id, "argv": argv})
		if status != http.StatusOK || !d.Ran || d.Result == nil {
			t.Fatalf("premise: the full_access command did not run: %d %+v", status, d)
		}
		t.Logf("full_access %v: exit %d stdout %.300q stderr %.300q", argv, d.Result.ExitCode, d.Result.Stdout, d.Result.Stderr)
		return d.Result.Stdout
	}
	if out := fa("fa-ctl", "/bin/grep", "-rl", secretTurn, data+"/"); strings.Contains(out, data) {
		t.Fatalf("control: a full_access command read the store through the data directory")
	}
	if out := fa("fa-atk", "/bin/grep", "-rl", secretTurn, store+"/"); strings.Contains(out, store) {
		t.Errorf("a full_access command read the server's event store at %s, where DATA/events leads (found %q): full_access hides the data directory only", store, out)
	}
	if strings.Contains(out, "turnstile-events") || strings.Contains(wrote, "wrote") {
		t.Errorf("a command of the agent's turn found another workspace's turn %q in the server's event store at %s (DATA/events leads there) (found: %q) and could write there (%q)", secretTurn, store, out, wrote)
	}
}

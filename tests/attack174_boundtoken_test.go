package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestAttack174_FullAccessReadsTokenBoundIntoDataDir (review 174, high:
// the agent reads the admin token and answers its own approval request).
//
// The same hole as TestAttack174_FullAccessReadsEventLogThroughNestedMount,
// for the admin token itself. An operator who keeps the admin token
// elsewhere and binds it into the data directory (systemd's
// `BindReadOnlyPaths=/etc/turnstile/admin-token:/var/lib/turnstile/token`,
// a bind mount in fstab) runs a server whose DATA/token is a mount of that
// file. The full_access helper masks DATA (a tmpfs over it) and every other
// mount of DATA's filesystem that shows DATA (aliasTargets); the file bound
// onto DATA/token is shown at its own path too, which lies outside DATA,
// and that path is not masked. README, the gateway's secrets row: "the
// data directory and token files are masked ... at every path their
// filesystem is mounted at".
//
// Controls: the runtime credential cannot answer its own request (403);
// the token at DATA/token is masked from the same command; a file beside
// the bound token is read (the directory is reachable).
//
// Fix direction: as for the nested mount: every mount inside a secret is a
// secret of its own (its source masked wherever its filesystem shows it);
// or the server refuses a data directory holding a mount point, and names
// the token by --token-file instead.
func TestAttack174_FullAccessReadsTokenBoundIntoDataDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (the bind mount; full_access as root over the host's files)")
	}
	if os.Getenv("TURNSTILE_TOKEN") != "" {
		t.Skip("TURNSTILE_TOKEN is set: the server would take it")
	}
	const token = "bound-admin-token-a174-0123456789abcdef"
	base := t.TempDir()
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	secrets := filepath.Join(base, "etc-turnstile")
	if err := os.Mkdir(secrets, 0o700); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(secrets, "admin-token")
	if err := os.WriteFile(src, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const beside = "beside-the-token-a174\n"
	if err := os.WriteFile(filepath.Join(secrets, "beside.txt"), []byte(beside), 0o600); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(base, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(data, "token")
	if err := os.WriteFile(dst, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount(src, dst, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("bind mount: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dst, syscall.MNT_DETACH) })

	s := startServer(t, &Server{Data: data})
	if strings.TrimSpace(s.Token) != token {
		t.Fatalf("premise: the harness read %q from %s", s.Token, dst)
	}
	if st, _ := s.Do("GET", "/v1/credentials", nil); st != http.StatusOK {
		t.Fatalf("premise: the server does not take the bound token as its admin token: %d", st)
	}
	agent := roAs(s, s.credential("agent174t", "runtime"))

	// The agent's request, waiting for a person in a supervised turn.
	agent.JSON("POST", "/v1/turns", map[string]any{"turn_id": "a174t-sup", "workspace_id": "ws", "thread_id": "th-sup",
		"workspace_root": workspace(t), "permission_profile": map[string]any{"mode": "supervised"}}, http.StatusCreated, nil)
	status, asked := agent.exec("a174t-sup", "", map[string]any{"tool_call_id": "want", "argv": []string{"/bin/true"}})
	if status != http.StatusAccepted || asked.Request == nil {
		t.Fatalf("premise: the supervised exec did not ask: %d %+v", status, asked)
	}
	reqID := asked.Request.RequestID
	// CONTROL: the runtime credential cannot answer it.
	if st, raw := agent.Request("POST", "/v1/approvals/"+reqID+"/respond", map[string]any{"resolution": "allow_for_turn"}); st != http.StatusForbidden {
		t.Fatalf("control: the runtime credential's answer: %d %s, want 403", st, raw)
	}

	root := workspace(t)
	agent.JSON("POST", "/v1/turns", map[string]any{"turn_id": "a174t-fa", "workspace_id": "ws", "thread_id": "th-fa",
		"workspace_root": root, "cwd": root, "permission_profile": map[string]any{"mode": "full_access"}}, http.StatusCreated, nil)
	run := func(id, script string) string {
		t.Helper()
		status, d := agent.exec("a174t-fa", "", map[string]any{"tool_call_id": id, "argv": []string{"/bin/sh", "-c", script}, "cwd": root})
		if status != http.StatusOK || !d.Ran || d.Result == nil {
			t.Fatalf("premise: the full_access command %s did not run: %d %+v", id, status, d)
		}
		t.Logf("%s: exit %d stdout %q stderr %q", id, d.Result.ExitCode, d.Result.Stdout, d.Result.Stderr)
		return d.Result.Stdout
	}
	// CONTROL: the token at DATA/token is masked.
	if out := run("own-path", "cat "+dst+" 2>&1"); strings.Contains(out, token) {
		t.Fatalf("control: the full_access command read %s", dst)
	}
	// CONTROL: the bound file's directory is reachable.
	if out := run("beside", "cat "+filepath.Join(secrets, "beside.txt")); out != beside {
		t.Fatalf("control: the full_access command did not read %s: %q", filepath.Join(secrets, "beside.txt"), out)
	}
	// The runtime's own file tool (Claude Code reads as the person, who
	// may be the server's user): a read of the bound file's source is
	// denied as the data directory is; control: the file beside it is
	// allowed (a read root).
	agent.JSON("POST", "/v1/turns", map[string]any{"turn_id": "a174t-rd", "workspace_id": "ws", "thread_id": "th-rd",
		"workspace_root": root, "cwd": root, "project_roots": []string{secrets}, "permission_profile": map[string]any{"mode": "auto_accept_edits"}}, http.StatusCreated, nil)
	if d := agent.decide("a174t-rd", "beside", "read_file", map[string]any{"path": filepath.Join(secrets, "beside.txt")}); d.Decision != "allow" {
		t.Fatalf("control: a read of the file beside the bound token: %+v", d)
	}
	if d := agent.decide("a174t-rd", "bound", "read_file", map[string]any{"path": src}); d.Decision != "deny" {
		t.Errorf("a read decision of %s, the file bound onto %s, is %s: the server's token is read by the runtime's file tool", src, dst, d.Decision)
	}
	// ATTACK: the token where the bound file lies.
	stolen := strings.TrimSpace(run("bound", "cat "+src+" 2>&1"))
	if stolen != token {
		return // masked: the fix
	}
	t.Errorf("a full_access command read the server's admin token at %s, the file bound onto %s", src, dst)
	st, raw := roAs(s, stolen).Request("POST", "/v1/approvals/"+reqID+"/respond", map[string]any{"resolution": "allow_for_turn"})
	t.Errorf("the agent answered its own request %s with the stolen token: %d %s", reqID, st, raw)
}

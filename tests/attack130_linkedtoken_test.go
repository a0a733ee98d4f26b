package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack130_DataDirTokenLinkedIntoRoot (hundred-and-thirtieth review,
// medium where the person keeps the token elsewhere: the agent reads the
// admin token). `serve` denies every turn its data directory and an
// explicit --token-file, each also where it leads (secretPaths:
// EvalSymlinks of each). The default token, DATA/token, is used through a
// symlink (loadToken: os.Stat and os.ReadFile follow it; checkOwners
// accepts it, the target being the server's own, 0600), but only the data
// directory is denied: where DATA/token leads (a secrets directory in the
// home, a dotfiles repository) is neither masked nor refused. A command
// of a turn rooted there that may write it (a profile with
// ":workspace_roots" = "write" whose commands run without asking)
// prints the admin token.
//
// A full_access command, whose one confinement is the gateway's secrets,
// reads it by its real path from any root.
//
// Controls (labelled): the same file named with --token-file is masked:
// the same commands (the writable root's, full_access's) cannot read it.
func TestAttack130_DataDirTokenLinkedIntoRoot(t *testing.T) {
	if os.Getenv("TURNSTILE_TOKEN") != "" {
		t.Skip("TURNSTILE_TOKEN is set: the servers would take it")
	}
	const token = "linked-admin-token-a130-0123456789abcdef"
	setup := func() (ws, secret string) {
		ws = workspace(t)
		secret = filepath.Join(ws, "secrets", "turnstile-token")
		if err := os.MkdirAll(filepath.Dir(secret), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(secret, []byte(token+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return ws, secret
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
	readToken := func(s *Server, id, ws string) string {
		agent := roAs(s, s.credential("agent-"+id, "runtime"))
		agent.JSON("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id,
			"workspace_root": ws, "cwd": ws, "permission_profile": map[string]any{"profile": "sbx"}}, http.StatusCreated, nil)
		status, d := agent.exec(id, "", map[string]any{"tool_call_id": "cat", "argv": []string{"/bin/cat", "secrets/turnstile-token"}, "cwd": ws})
		if status != http.StatusOK || !d.Ran || d.Result == nil {
			t.Fatalf("premise: turn %s did not run the command: %d %+v", id, status, d)
		}
		t.Logf("%s: exit %d stdout %q stderr %q", id, d.Result.ExitCode, d.Result.Stdout, d.Result.Stderr)
		return d.Result.Stdout
	}

	// CONTROL: the token named with --token-file is masked.
	ws, secret := setup()
	c := startServer(t, &Server{Data: t.TempDir(), Args: []string{"--token-file", secret, "--profiles", profiles}, Token: token})
	if out := readToken(c, "a130lt-c", ws); strings.Contains(out, token) {
		t.Fatalf("control: the --token-file was read by the command")
	}
	// CONTROL: and by a full_access command.
	ca := roAs(c, c.credential("agent-fa-c", "runtime"))
	ca.JSON("POST", "/v1/turns", map[string]any{"turn_id": "a130lt-fa-c", "workspace_id": "ws", "thread_id": "th-fa-c",
		"workspace_root": workspace(t), "permission_profile": map[string]any{"mode": "full_access"}}, http.StatusCreated, nil)
	if status, d := ca.exec("a130lt-fa-c", "", map[string]any{"tool_call_id": "cat", "argv": []string{"/bin/cat", secret}}); status != http.StatusOK || !d.Ran || d.Result == nil {
		t.Fatalf("control: the full_access command did not run: %d %+v", status, d)
	} else if t.Logf("control full_access: exit %d stdout %q stderr %q", d.Result.ExitCode, d.Result.Stdout, d.Result.Stderr); strings.Contains(d.Result.Stdout, token) {
		t.Fatalf("control: a full_access command read the --token-file")
	}

	// ATTACK: the same file as DATA/token, a symlink.
	ws, secret = setup()
	data := t.TempDir()
	if err := os.Symlink(secret, filepath.Join(data, "token")); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, data, "--profiles", profiles)
	if s.Token != token {
		t.Fatalf("premise: the server's token is %q, not the linked file's", s.Token)
	}
	// ATTACK (full_access, whose one promise is the gateway's secrets):
	// the same file, read by its real path from a turn rooted elsewhere.
	agent := roAs(s, s.credential("agent-fa", "runtime"))
	agent.JSON("POST", "/v1/turns", map[string]any{"turn_id": "a130lt-fa", "workspace_id": "ws", "thread_id": "th-fa",
		"workspace_root": workspace(t), "permission_profile": map[string]any{"mode": "full_access"}}, http.StatusCreated, nil)
	if status, d := agent.exec("a130lt-fa", "", map[string]any{"tool_call_id": "cat", "argv": []string{"/bin/cat", secret}}); status == http.StatusOK && d.Ran && d.Result != nil {
		t.Logf("full_access: exit %d stdout %q stderr %q", d.Result.ExitCode, d.Result.Stdout, d.Result.Stderr)
		if strings.Contains(d.Result.Stdout, token) {
			t.Errorf("a full_access command read the server's admin token at %s, where DATA/token leads: full_access hides the data directory only", secret)
		}
	} else {
		t.Logf("full_access exec: %d %+v", status, d)
	}
	if out := readToken(s, "a130lt", ws); strings.Contains(out, token) {
		t.Errorf("a command of a turn with a writable root read the server's admin token at %s, where the data directory's token link leads (DATA/token -> %s): only the data directory is denied", secret, secret)
	}
}

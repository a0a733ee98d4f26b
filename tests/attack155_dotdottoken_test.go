package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack155_TokenFileDotDotAfterLinkNotDenied (review 155, high where
// the token file is named so: the agent reads the admin token and
// approves itself). serve's secretPaths (cmd/turnstile/serve.go) denies
// every turn the --token-file "as an absolute path and where it leads":
// filepath.Abs(p), then EvalSymlinks of that. Abs cleans the path
// lexically, so a ".." after a symlink ("/etc/ts/../token", or a relative
// "../token" from a cwd reached through a link: os.Getwd returns $PWD)
// names another file than the one the server read: loadToken opens the
// path as written and the kernel takes ".." from where the link led.
// The snapshot denies the lexical name (which does not exist) and not the
// real token file, which a full_access command (whose one confinement is
// the gateway's secrets) and a command of a turn rooted there both read.
// checkOwners has the same lexical walk and skips the missing name.
//
// Control: the same file named by its real path is masked from the same
// commands.
func TestAttack155_TokenFileDotDotAfterLinkNotDenied(t *testing.T) {
	if os.Getenv("TURNSTILE_TOKEN") != "" {
		t.Skip("TURNSTILE_TOKEN is set: the servers would take it")
	}
	const token = "dotdot-admin-token-a155-0123456789abcdef"
	setup := func() (ws, secret string) {
		ws = workspace(t)
		secret = filepath.Join(ws, "secrets", "turnstile-token")
		if err := os.MkdirAll(filepath.Join(ws, "secrets", "current"), 0o700); err != nil {
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
	readRoot := func(s *Server, id, ws string) string {
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
	readFull := func(s *Server, id, secret string) string {
		agent := roAs(s, s.credential("agent-"+id, "runtime"))
		agent.JSON("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id,
			"workspace_root": workspace(t), "permission_profile": map[string]any{"mode": "full_access"}}, http.StatusCreated, nil)
		status, d := agent.exec(id, "", map[string]any{"tool_call_id": "cat", "argv": []string{"/bin/cat", secret}})
		if status != http.StatusOK || !d.Ran || d.Result == nil {
			t.Fatalf("premise: turn %s did not run the command: %d %+v", id, status, d)
		}
		t.Logf("%s: exit %d stdout %q stderr %q", id, d.Result.ExitCode, d.Result.Stdout, d.Result.Stderr)
		return d.Result.Stdout
	}

	// CONTROL: the token file named by its real path is masked.
	ws, secret := setup()
	c := startServer(t, &Server{Data: t.TempDir(), Args: []string{"--token-file", secret, "--profiles", profiles}, Token: token})
	if out := readRoot(c, "a155dd-c", ws); strings.Contains(out, token) {
		t.Fatalf("control: the --token-file was read by a command of a turn rooted there")
	}
	if out := readFull(c, "a155dd-fa-c", secret); strings.Contains(out, token) {
		t.Fatalf("control: a full_access command read the --token-file")
	}

	// ATTACK: the same kind of file, named through a link and "..":
	// etc/ts -> WS/secrets/current, --token-file etc/ts/../turnstile-token
	// (the kernel: WS/secrets/turnstile-token; Abs: etc/turnstile-token).
	ws, secret = setup()
	etc := t.TempDir()
	if err := os.Symlink(filepath.Join(ws, "secrets", "current"), filepath.Join(etc, "ts")); err != nil {
		t.Fatal(err)
	}
	named := filepath.Join(etc, "ts") + "/../turnstile-token"
	if b, err := os.ReadFile(named); err != nil || strings.TrimSpace(string(b)) != token {
		t.Fatalf("premise: %s is not the token file: %q %v", named, b, err)
	}
	s := startServer(t, &Server{Data: t.TempDir(), Args: []string{"--token-file", named, "--profiles", profiles}, Token: token})
	if st, _ := s.Do("GET", "/v1/credentials", nil); st != http.StatusOK {
		t.Fatalf("premise: the server does not take the token of %s as its admin token: %d", named, st)
	}
	if out := readFull(s, "a155dd-fa", secret); strings.Contains(out, token) {
		t.Errorf("a full_access command read the server's admin token at %s (--token-file %s): only the lexical name %s is denied",
			secret, named, filepath.Join(etc, "turnstile-token"))
	}
	if out := readRoot(s, "a155dd", ws); strings.Contains(out, token) {
		t.Errorf("a command of a turn rooted at %s read the server's admin token (--token-file %s)", ws, named)
	}
}

package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack156_FullAccessReadsTokenFileInDevShmAndApprovesItself (review
// 156, High): `serve --token-file /dev/shm/…/token` (a token kept on tmpfs,
// never on a disk) is read by a full_access command of the agent's own
// turn, and the agent, holding a runtime credential that may not answer
// approvals (403), answers its own pending request of a supervised turn
// with the stolen admin token.
//
// README, the gateway's secrets row ("full_access included"): "the data
// directory and token files are masked (an empty read-only tmpfs or file)
// at every path their filesystem is mounted at". The full_access view
// (sandbox/fullaccess.go buildFullAccessView) clones the host's /dev/shm
// for its new /dev (cloneDevNodes, called from mountsAndDevNodes) before
// maskSecrets runs, and mounts that unmasked clone at /dev/shm: the mask
// lies on the host's mount underneath it.
//
// Fix: clone /dev/shm after maskSecrets (the recursive clone then carries
// the masks and pins), or run the masking pass again once the new /dev is
// in place.
//
// Controls: the same token file in an ordinary directory is masked from
// the same command; the runtime credential's own answer is refused 403.
func TestAttack156_FullAccessReadsTokenFileInDevShmAndApprovesItself(t *testing.T) {
	if os.Getenv("TURNSTILE_TOKEN") != "" {
		t.Skip("TURNSTILE_TOKEN is set: the servers would take it")
	}
	if fi, err := os.Stat("/dev/shm"); err != nil || !fi.IsDir() {
		t.Skipf("no /dev/shm here: %v", err)
	}
	const token = "devshm-admin-token-a156-0123456789abcdef"
	tokenIn := func(dir string) string {
		p := filepath.Join(dir, "turnstile-token")
		if err := os.WriteFile(p, []byte(token+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	readFull := func(s *Server, agent *Server, id, secret string) string {
		agent.JSON("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id,
			"workspace_root": workspace(t), "permission_profile": map[string]any{"mode": "full_access"}}, http.StatusCreated, nil)
		status, d := agent.exec(id, "", map[string]any{"tool_call_id": "cat", "argv": []string{"/bin/cat", secret}})
		if status != http.StatusOK || !d.Ran || d.Result == nil {
			t.Fatalf("premise: turn %s did not run the command: %d %+v", id, status, d)
		}
		t.Logf("%s: exit %d stdout %q stderr %q", id, d.Result.ExitCode, d.Result.Stdout, d.Result.Stderr)
		return d.Result.Stdout
	}

	// CONTROL: the token file in an ordinary directory is masked.
	ctlDir := t.TempDir()
	if err := os.Chmod(ctlDir, 0o700); err != nil {
		t.Fatal(err)
	}
	ctlSecret := tokenIn(ctlDir)
	c := startServer(t, &Server{Data: t.TempDir(), Args: []string{"--token-file", ctlSecret}, Token: token})
	if st, _ := c.Do("GET", "/v1/credentials", nil); st != http.StatusOK {
		t.Fatalf("premise: the control server does not take %s as its admin token: %d", ctlSecret, st)
	}
	if out := readFull(c, roAs(c, c.credential("agent-c", "runtime")), "a156shm-c", ctlSecret); strings.Contains(out, token) {
		t.Fatalf("control: a full_access command read the --token-file %s", ctlSecret)
	}

	// ATTACK: the same file under /dev/shm.
	dir, err := os.MkdirTemp("/dev/shm", "turnstile-a156-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	secret := tokenIn(dir)
	s := startServer(t, &Server{Data: t.TempDir(), Args: []string{"--token-file", secret}, Token: token})
	if st, _ := s.Do("GET", "/v1/credentials", nil); st != http.StatusOK {
		t.Fatalf("premise: the server does not take the token of %s as its admin token: %d", secret, st)
	}
	agent := roAs(s, s.credential("agent", "runtime"))

	// The agent's request, waiting for a person in a supervised turn.
	agent.JSON("POST", "/v1/turns", map[string]any{"turn_id": "a156shm-sup", "workspace_id": "ws", "thread_id": "th-sup",
		"workspace_root": workspace(t), "permission_profile": map[string]any{"mode": "supervised"}}, http.StatusCreated, nil)
	status, asked := agent.exec("a156shm-sup", "", map[string]any{"tool_call_id": "want", "argv": []string{"/bin/true"}})
	if status != http.StatusAccepted || asked.Request == nil {
		t.Fatalf("premise: the supervised exec did not ask: %d %+v", status, asked)
	}
	reqID := asked.Request.RequestID
	// Control: the runtime credential cannot answer it.
	if st, raw := agent.Request("POST", "/v1/approvals/"+reqID+"/respond", map[string]any{"resolution": "allow_for_turn"}); st != http.StatusForbidden {
		t.Fatalf("control: the runtime credential's answer: %d %s, want 403", st, raw)
	}

	stolen := strings.TrimSpace(readFull(s, agent, "a156shm-fa", secret))
	if !strings.Contains(stolen, token) {
		return // masked: the fix
	}
	t.Errorf("a full_access command read the server's admin token from --token-file %s (under /dev/shm)", secret)
	st, raw := roAs(s, stolen).Request("POST", "/v1/approvals/"+reqID+"/respond", map[string]any{"resolution": "allow_for_turn"})
	t.Errorf("the agent answered its own request %s with the stolen token: %d %s", reqID, st, raw)
}

// TestAttack156_RootWriteProfileReadsTokenFileInDevShm: the same hole
// without the full_access mode. A profile that grants "/" for writing (or
// leaves the filesystem unrestricted while the network is not) gets the
// full_access view (README, processes row: "its view gets what a
// full_access command's gets, the gateway's secrets masked"), built by the
// same buildFullAccessView, and its command reads the --token-file under
// /dev/shm too. Control: a profile that grants "/" for reading only (the
// restricted view) finds the file masked.
func TestAttack156_RootWriteProfileReadsTokenFileInDevShm(t *testing.T) {
	if os.Getenv("TURNSTILE_TOKEN") != "" {
		t.Skip("TURNSTILE_TOKEN is set: the servers would take it")
	}
	if fi, err := os.Stat("/dev/shm"); err != nil || !fi.IsDir() {
		t.Skipf("no /dev/shm here: %v", err)
	}
	const token = "devshm-admin-token-a156w-0123456789abcdef"
	dir, err := os.MkdirTemp("/dev/shm", "turnstile-a156w-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(dir, "turnstile-token")
	if err := os.WriteFile(secret, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	profiles := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.rootw]
[permissions.rootw.filesystem]
":root" = "write"
[permissions.rootw.approvals]
policy = "full_access"

[permissions.rootr]
[permissions.rootr.filesystem]
":root" = "read"
":workspace_roots" = "write"
[permissions.rootr.approvals]
policy = "full_access"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, &Server{Data: t.TempDir(), Args: []string{"--token-file", secret, "--profiles", profiles}, Token: token})
	if st, _ := s.Do("GET", "/v1/credentials", nil); st != http.StatusOK {
		t.Fatalf("premise: the server does not take the token of %s as its admin token: %d", secret, st)
	}
	agent := roAs(s, s.credential("agent", "runtime"))
	read := func(id, profile string) string {
		ws := workspace(t)
		agent.JSON("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id,
			"workspace_root": ws, "cwd": ws, "permission_profile": map[string]any{"profile": profile}}, http.StatusCreated, nil)
		status, d := agent.exec(id, "", map[string]any{"tool_call_id": "cat", "argv": []string{"/bin/cat", secret}, "cwd": ws})
		if status != http.StatusOK || !d.Ran || d.Result == nil {
			t.Fatalf("premise: turn %s did not run the command: %d %+v", id, status, d)
		}
		t.Logf("%s (%s): exit %d stdout %q stderr %q", id, profile, d.Result.ExitCode, d.Result.Stdout, d.Result.Stderr)
		return d.Result.Stdout
	}
	if out := read("a156w-r", "rootr"); strings.Contains(out, token) {
		t.Fatalf("control: a command of the read-only root profile read the --token-file %s", secret)
	}
	if out := read("a156w-w", "rootw"); strings.Contains(out, token) {
		t.Errorf("a command of a profile granting / for writing read the server's admin token from --token-file %s (under /dev/shm)", secret)
	}
}

package tests

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestAttack97_SandboxCLISecrets (ninety-seventh review, low): the README's
// sandbox table is for the commands of POST /v1/turns/{id}/exec, `turnstile
// exec` and `turnstile sandbox` alike, and its last row ("the gateway's
// secrets, full_access included") says the data directory and token files
// are masked; "full_access confines nothing but the gateway's own secrets".
// `turnstile sandbox` masks none: its snapshot (sandbox/cli.go planAndRun)
// is resolved without the Sensitive paths `serve` computes (secretPaths), so
// the data directory of the server on this machine — the very one the
// CLI's own client commands read the admin token from by default (dataDir:
// $STATE_DIRECTORY, else $XDG_STATE_HOME/turnstile, else
// ~/.local/state/turnstile) — lies open to a full_access command (and, for
// a caller that is not root, to a restricted one whose root holds it). The
// same command through the server's /exec of a full_access turn finds the
// token masked (the control).
//
// What the agent gains: a command it runs through `turnstile sandbox` (a
// runtime that sandboxes commands with it, beside a server of the same
// user on its default data directory) prints the admin token; with it the
// agent answers its own pending approval request (allow_once, resolved_by
// the admin), which its runtime credential is refused (403, the control).
func TestAttack97_SandboxCLISecrets(t *testing.T) {
	state := t.TempDir()
	data := filepath.Join(state, "turnstile") // the default data directory under XDG_STATE_HOME
	s := StartServer(t, data)
	tokenFile := filepath.Join(data, "token")
	b, err := os.ReadFile(tokenFile)
	if err != nil || s.Token == "" || strings.TrimSpace(string(b)) != s.Token {
		t.Fatalf("premise: the admin token is not in %s (%v)", tokenFile, err)
	}
	agent := roAs(s, s.credential("agent", "runtime"))
	ws := workspace(t)

	// Control 1: the server's /exec masks the data directory, in
	// full_access (root elsewhere) and in supervised over a root that
	// holds it (the admin allows that command: it runs, and sees no token).
	for _, c := range []struct{ id, mode, root string }{{"fa", "full_access", ws}, {"sv", "supervised", state}} {
		agent.JSON("POST", "/v1/turns", map[string]any{"turn_id": c.id, "workspace_id": "ws", "thread_id": "th", "workspace_root": c.root,
			"permission_profile": map[string]any{"mode": c.mode}}, http.StatusCreated, nil)
		call := map[string]any{"tool_call_id": "cat", "argv": []string{"/bin/cat", tokenFile}, "cwd": c.root}
		var d decisionAnswer
		if c.mode == "supervised" {
			agent.JSON("POST", "/v1/turns/sv/exec", call, http.StatusAccepted, &d)
			if d.Request == nil {
				t.Fatalf("premise: supervised exec opened no request: %+v", d)
			}
			s.respond(d.Request.RequestID, "allow_once")
		}
		agent.JSON("POST", "/v1/turns/"+c.id+"/exec", call, http.StatusOK, &d)
		if !d.Ran || d.Result == nil || strings.Contains(d.Result.Stdout, s.Token) {
			t.Fatalf("control: the server's %s /exec printed the admin token (or did not run): %+v", c.mode, d.Result)
		}
	}
	// Control 2: `turnstile sandbox` full_access runs, and reads a file
	// beside the data directory (nothing else is confined there).
	env := append(cleanEnv(), "XDG_STATE_HOME="+state, "HOME="+state)
	if err := os.WriteFile(filepath.Join(state, "beside"), []byte("beside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := runCLIEnv(t, env, "sandbox", "--mode", "full_access", "--root", ws, "--", "/bin/cat", filepath.Join(state, "beside")); code != 0 || out != "beside\n" {
		t.Fatalf("control: turnstile sandbox full_access: %d %q %s", code, out, errOut)
	}
	// Control 3: the runtime credential cannot answer its own request.
	var ask decisionAnswer
	agent.JSON("POST", "/v1/turns/sv/exec", map[string]any{"tool_call_id": "mine", "argv": []string{"/bin/true"}, "cwd": state}, http.StatusAccepted, &ask)
	if ask.Request == nil {
		t.Fatalf("premise: supervised exec_command did not ask: %+v", ask)
	}
	if st, body := agent.Request("POST", "/v1/approvals/"+ask.Request.RequestID+"/respond", map[string]any{"resolution": "allow_once"}); st != http.StatusForbidden {
		t.Fatalf("control: the runtime answered its own request: %d %s", st, body)
	}

	// Attack: the same reads through `turnstile sandbox`.
	leaked := ""
	for _, c := range []struct{ mode, root string }{{"full_access", ws}} {
		out, errOut, code := runCLIEnv(t, env, "sandbox", "--mode", c.mode, "--root", c.root, "--", "/bin/cat", tokenFile)
		if strings.Contains(out, s.Token) {
			leaked = strings.TrimSpace(out)
			t.Errorf("turnstile sandbox --mode %s --root %s printed the server's admin token from %s (exit %d %s)", c.mode, c.root, tokenFile, code, errOut)
		}
	}
	if leaked == "" {
		return
	}
	admin := roAs(s, leaked)
	var res struct {
		Resolution string `json:"resolution"`
	}
	admin.JSON("POST", "/v1/approvals/"+ask.Request.RequestID+"/respond", map[string]any{"resolution": "allow_once"}, http.StatusOK, &res)
	t.Errorf("with the token the agent answered its own request %s: %s", ask.Request.RequestID, res.Resolution)
}

// TestAttack97_SandboxCLISecretsSupervised (same root cause, the user's own
// layout): a person who runs `turnstile serve` as themselves keeps its admin
// token in the default data directory, ~/.local/state/turnstile/token. A
// supervised `turnstile sandbox` of that user over their home (a runtime
// that sandboxes the agent's commands with it) reads the token: the CLI's
// snapshot carries the built-in sensitive paths (~/.ssh is masked: the
// control) but not the gateway's data directory, which every snapshot of
// `serve` denies. Run as uid 65534 with a home under /home, as the
// sensitive-path patterns want.
func TestAttack97_SandboxCLISecretsSupervised(t *testing.T) {
	home, err := os.MkdirTemp("/home", "turnstile-a97-")
	if err != nil {
		t.Skipf("cannot make a home under /home: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	const token, key = "tok-a97-0123456789abcdef", "ssh-a97-private-key"
	for _, f := range []struct{ path, body string }{
		{".local/state/turnstile/token", token},
		{".ssh/id_ed25519", key},
		{"ws/a.txt", "hello"},
	} {
		p := filepath.Join(home, f.path)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.body+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := filepath.Walk(home, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, 65534, 65534)
	}); err != nil {
		t.Fatal(err)
	}
	copies := readableCopies(t, bin)
	run := func(file string) (string, string, int) {
		cmd := exec.Command(copies[0], "sandbox", "--mode", "supervised", "--root", home, "--", "/bin/cat", filepath.Join(home, file))
		cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
		cmd.Dir = home
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return o.String(), e.String(), code
	}
	// Controls: the root is readable; a credential store in it is masked.
	if out, errOut, code := run("ws/a.txt"); code != 0 || out != "hello\n" {
		t.Fatalf("control: a file of the root: %d %q %s", code, out, errOut)
	}
	if out, _, _ := run(".ssh/id_ed25519"); strings.Contains(out, key) {
		t.Fatalf("control: ~/.ssh was read under turnstile sandbox: %q", out)
	}
	// Attack: the admin token of the user's server.
	if out, errOut, code := run(".local/state/turnstile/token"); strings.Contains(out, token) {
		t.Errorf("a supervised turnstile sandbox over the home printed the server's admin token (exit %d %s)", code, errOut)
	}
}

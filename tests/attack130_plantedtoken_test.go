package tests

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack130_PlantedServerToken (hundred-and-thirtieth review, medium:
// the agent chooses the admin token of the person's next server).
// `turnstile sandbox` denies its commands the default data directory
// (~/.local/state/turnstile: where `serve` keeps its admin token and store
// by default) only once it holds a server's data (cliGatewaySecrets:
// HoldsServerData). Before the person's first `turnstile serve`, a command
// of an auto_accept_edits `turnstile sandbox` over the home (a root the
// README supports) creates ~/.local/state/turnstile/token (0600, in a 0700
// directory, owned on the host by the home's owner through the idmap)
// holding a token the agent chose. Nothing sets it aside: it is no
// sensitive path, no protected name, and the check after the command does
// not watch it. The next `turnstile serve` on its default data directory
// reads that file as its admin token (loadToken: an existing token is
// used; checkOwners and the mode checks pass): the agent, which knows it,
// holds the admin role (creates credentials, answers its own approvals).
//
// Controls (labelled): the same command, where the directory already holds
// a server's data (an events store, no token yet), cannot write the token
// (the directory is denied); a server started on a data directory with no
// planted token makes its own, which is not the agent's.
func TestAttack130_PlantedServerToken(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (the sandbox's idmapped home)")
	}
	if os.Getenv("TURNSTILE_TOKEN") != "" {
		t.Skip("TURNSTILE_TOKEN is set: the servers would take it")
	}
	const planted = "agent-chosen-admin-token-a130-0123456789"
	plant := func(home string) (string, int) {
		cmd := exec.Command(bin, "sandbox", "--mode", "auto_accept_edits", "--root", home, "--", "/bin/sh", "-c",
			`umask 077; mkdir -p .local/state/turnstile && printf '%s\n' `+planted+` > .local/state/turnstile/token; echo exit=$?`)
		cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
		cmd.Dir = home
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return o.String() + e.String(), code
	}
	newHome := func() string {
		home, err := os.MkdirTemp("/home", "turnstile-a130-")
		if err != nil {
			t.Skipf("cannot make a home under /home: %v", err)
		}
		t.Cleanup(func() { os.RemoveAll(home) })
		// A lived-in home: ~/.local/share and ~/.local/state exist
		// (shells' and desktop programs' state), no server ran yet.
		for _, d := range []string{".local/share", ".local/state"} {
			if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		return home
	}

	// CONTROL: a data directory that already holds a server's data is
	// denied to the command: the token cannot be written there.
	ctlHome := newHome()
	ctlData := filepath.Join(ctlHome, ".local/state/turnstile")
	if err := os.MkdirAll(filepath.Join(ctlData, "events"), 0o700); err != nil {
		t.Fatal(err)
	}
	out, code := plant(ctlHome)
	t.Logf("control plant: exit %d: %s", code, out)
	if b, err := os.ReadFile(filepath.Join(ctlData, "token")); err == nil && strings.Contains(string(b), planted) {
		t.Fatalf("control: the command wrote the token into a data directory that holds a server's events")
	}

	// CONTROL: a fresh server makes its own token.
	fresh := StartServer(t, "")
	if fresh.Token == planted || fresh.Token == "" {
		t.Fatalf("control: a fresh server's token is %q", fresh.Token)
	}

	// ATTACK.
	home := newHome()
	data := filepath.Join(home, ".local/state/turnstile")
	out, code = plant(home)
	t.Logf("attack plant: exit %d: %s", code, out)
	// (Fixed: the check after the command sets aside a token the command
	// made where a server would trust it, so that the next server makes
	// its own; with the attack working the planted file stays and the
	// server below adopts it.)
	if b, err := os.ReadFile(filepath.Join(data, "token")); err == nil && strings.Contains(string(b), planted) {
		t.Logf("the planted token is still in %s after the command", data)
	} else if !strings.Contains(out, "set aside") {
		t.Fatalf("premise: the command did not plant the token (%v %q), and nothing was set aside: %s", err, b, out)
	}
	// The person's next server on its default data directory.
	s := StartServer(t, data)
	status, raw := roAs(s, planted).Request("POST", "/v1/credentials", map[string]any{"name": "agent-made", "role": "admin"})
	t.Logf("POST /v1/credentials with the planted token: %d %s", status, raw)
	if status == http.StatusCreated {
		t.Errorf("a command of turnstile sandbox over the home planted %s; the next server on that data directory took it as its admin token, and the agent that chose it created an admin credential with it", filepath.Join(data, "token"))
	}
}

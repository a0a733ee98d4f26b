package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAttack137_SandboxCLIHashedCheckpoint (hundred-and-thirty-seventh
// review): `turnstile sandbox` denies its commands the user's default data
// directory's secrets (cliGatewaySecrets: DataDirSecrets, which since the
// hundred-and-thirty-fifth review lists a store-named
// <hex>.readmodels.checkpoint and .archive there), except in full_access,
// where a directory without a server's mark (token, events, events.db) is
// given nothing at all ("nothing to hide"). A server run on the default
// data directory with --token-file and --store log:DIR holds no mark there,
// only its read models' checkpoint and archive named after the store:
// every workspace's turns. A full_access `turnstile sandbox` command (a
// runtime that sandboxes the agent's commands with the CLI) reads them.
//
// Control ("control"): the same read from `turnstile sandbox --mode
// auto_accept_edits` (the root elsewhere) is denied.
func TestAttack137_SandboxCLIHashedCheckpoint(t *testing.T) {
	if os.Getenv("TURNSTILE_TOKEN") != "" {
		t.Skip("TURNSTILE_TOKEN is set: the servers would take it")
	}
	const token = "explicit-admin-token-a137c-0123456789abcdef"
	state := t.TempDir()
	env := []string{"XDG_STATE_HOME=" + state, "STATE_DIRECTORY="}
	def := filepath.Join(state, "turnstile")
	if err := os.MkdirAll(def, 0o700); err != nil {
		t.Fatal(err)
	}
	tf := filepath.Join(t.TempDir(), "admin-token")
	if err := os.WriteFile(tf, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"--token-file", tf, "--checkpoint-interval", "1s", "--store", "log:" + filepath.Join(t.TempDir(), "events")}
	a := startServer(t, &Server{Data: def, Args: args, Token: token, Env: env})
	other := workspace(t)
	const marker = "victim-turn-a137c-marker"
	a.startTurn(marker, "ws-other", "auto_accept_edits", other)
	a.JSON("POST", "/v1/turns/"+marker+"/complete", nil, http.StatusOK, nil)
	// Premise: read from outside, the checkpoint names the other
	// workspace's turn once written (the deadline is a hang guard).
	var cp string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		ms, _ := filepath.Glob(filepath.Join(def, "*readmodels.checkpoint"))
		for _, m := range ms {
			if b, err := os.ReadFile(m); err == nil && strings.Contains(string(b), marker) {
				cp = m
			}
		}
		if cp != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("premise: the checkpoint read from outside never named the other turn")
		}
	}
	t.Logf("server's checkpoint: %s", cp)
	cenv := append(cleanEnv(), "XDG_STATE_HOME="+state, "STATE_DIRECTORY=", "HOME="+state)
	ws := workspace(t)
	for _, c := range []struct{ name, mode string }{{"control", "auto_accept_edits"}, {"full-access", "full_access"}} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := runCLIEnv(t, cenv, "sandbox", "--mode", c.mode, "--root", ws, "--", "/bin/sh", "-c", "cat "+cp+"; echo end")
			t.Logf("exit %d stdout %q stderr %q", code, out, errOut)
			if !strings.Contains(out, "end") {
				t.Fatalf("premise: the command did not run: %d %q %s", code, out, errOut)
			}
			if strings.Contains(out, marker) {
				t.Errorf("turnstile sandbox --mode %s read the server's read-model checkpoint %s in the user's default data directory (every workspace's turns): %q", c.mode, cp, out)
			}
		})
	}
}

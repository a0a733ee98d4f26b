package tests

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestAttack12TrustedFilesOfAnotherUser: the server refused a token file
// or data directory that group or others may read or write, but not one
// another user owns. With the server run as root or a service user, as the
// README says, and the admin token file, the Claude Code configuration or
// the profiles kept in the Claude Code user's home (mode 0600, its own),
// that user's agent, whose Bash runs as that user outside the sandbox,
// rewrote them: its own admin token, or a full_access mode, at the next
// start (a store there: an admin credential of its own, appended with a
// chain hash anyone can compute). A file the server trusts, and each directory above it, must be
// the server's user's or root's (and not writable by group or others, but
// for a sticky directory). The control: the same files owned by root start
// the server, and the other user cannot write them.
func TestAttack12TrustedFilesOfAnotherUser(t *testing.T) {
	env, top, writeAs, serve := ownerRig(t, ">")
	home := filepath.Join(top, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	tok := filepath.Join(home, "admin.token")
	cc := filepath.Join(home, "claude-code.json")
	if err := os.WriteFile(tok, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cc, []byte(`{"projects": [{"root": "/srv/app", "workspace_id": "app", "mode": "supervised"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}

	// Control: root's files, in root's directory.
	p := startWithEnv(t, env, "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--token-file", tok, "--claude-code-config", cc)
	if got := ready(t, p.url, token); got != http.StatusOK {
		t.Fatalf("control: root's token file: %d", got)
	}
	if writeAs(agentUID, tok) {
		t.Fatal("control: the other user wrote root's token file")
	}

	// The Claude Code user's own files, in its home.
	for _, path := range []string{home, tok, cc} {
		if err := os.Chown(path, agentUID, agentUID); err != nil {
			t.Fatal(err)
		}
	}
	if !writeAs(agentUID, tok) {
		t.Fatal("the other user cannot write its own file")
	}
	store := filepath.Join(home, "events")
	if err := os.Mkdir(store, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(store, agentUID, agentUID); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--token-file", tok}, {"--claude-code-config", cc}, {"--store", "log:" + store}} {
		if out, started := serve(args...); started || !strings.Contains(out, "owned by uid 65534") {
			t.Errorf("serve %s with a file uid %d owns and writes (its agent chose the admin token, or the modes): started %v\n%s", args[0], agentUID, started, out)
		}
	}
	// A root-owned file in the other user's directory: it renames another
	// over it.
	if err := os.WriteFile(filepath.Join(home, "root.token"), []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, started := serve("--token-file", filepath.Join(home, "root.token")); started || !strings.Contains(out, "owned by uid 65534") {
		t.Errorf("serve with root's token file in a directory uid %d owns: started %v\n%s", agentUID, started, out)
	}
}

// The ownership tests' other user (the Claude Code user) and the admin
// token they start servers with.
const (
	agentUID = 65534
	token    = "a-long-enough-token-0123456789"
)

// ownerRig is what the ownership tests share. It needs root (to hand files
// to agentUID; failed under CI=true, skipped otherwise) and gives the
// servers' environment, a directory top that agentUID can reach (it and
// its parent 0755), writeAs (whether a uid may write a file, its shell
// redirection redirect, ">" to replace or ">>" to append) and serve
// (starts the server for at most a few seconds: its output, and whether it
// listened).
func ownerRig(t *testing.T, redirect string) (env []string, top string, writeAs func(uid uint32, path string) bool, serve func(args ...string) (string, bool)) {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true: this test needs root to hand files to another user")
		}
		t.Skip("needs root to hand files to another user")
	}
	t.Parallel()
	env = envWithout("TURNSTILE_TOKEN")
	writeAs = func(uid uint32, path string) bool {
		cmd := exec.Command("/bin/sh", "-c", `printf 'agent-chosen-admin-token-000000\n' `+redirect+` "$1"`, "sh", path)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
		return cmd.Run() == nil
	}
	serve = func(args ...string) (string, bool) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append([]string{"serve", "--listen", "127.0.0.1:0", "--data", t.TempDir()}, args...)...)
		cmd.Env = env
		out, _ := cmd.CombinedOutput()
		return string(out), strings.Contains(string(out), "listening on")
	}
	top = t.TempDir()
	for _, d := range []string{filepath.Dir(top), top} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return env, top, writeAs, serve
}

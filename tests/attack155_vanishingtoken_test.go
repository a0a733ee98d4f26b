package tests

import (
	"bufio"
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

// TestAttack155_TokenFileGoneBeforeOwnerCheck (review 155, medium like
// reviews 12 and 151: the other user, the Claude Code user whose agent's
// Bash runs as itself, chooses the admin token of the server's start).
// serve reads --token-file (loadToken) BEFORE checkOwners looks at it, and
// checkOwners skips a path that does not exist (linkChain's ErrNotExist:
// "left to their loaders"), the whole chain with it. The other user makes
// its token file a FIFO in its own directory: the server's read blocks on
// it until that user has removed the name, then gets the token written
// into the pipe; the owner check finds no file and checks nothing, and the
// server starts with the other user's admin token. (Any other way to have
// the name gone between the read and the check does the same; the FIFO
// makes it certain.)
//
// The refusal expected: a token the server read from a file in another
// user's directory is refused (check before reading, or refuse a path
// that vanished, or check the opened file and the directories it was
// reached through). Controls: a regular token file of the other user's,
// in its directory, is refused; root's token file in root's directory
// starts the server with its token.
func TestAttack155_TokenFileGoneBeforeOwnerCheck(t *testing.T) {
	env, top, _, serve := ownerRig(t, ">")
	home := filepath.Join(top, "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(home, agentUID, agentUID); err != nil {
		t.Fatal(err)
	}
	const agentToken = "agent-chosen-admin-token-a155-0123456789"

	// start runs serve with args; it returns the server's URL ("" when it
	// did not listen) and its output, and stops it at the test's end.
	start := func(args ...string) (string, func() string) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		cmd := exec.CommandContext(ctx, bin, append([]string{"serve", "--listen", "127.0.0.1:0", "--data", t.TempDir()}, args...)...)
		cmd.Env = env
		var logs lockedBuffer
		cmd.Stderr = &logs
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		t.Cleanup(func() { cancel(); <-done })
		addr := make(chan string, 1)
		go func() {
			defer close(done)
			sc := bufio.NewScanner(stdout)
			sent := false
			for sc.Scan() {
				logs.Write([]byte(sc.Text() + "\n"))
				if _, rest, ok := strings.Cut(sc.Text(), "listening on "); ok && !sent {
					addr <- strings.TrimSpace(rest)
					sent = true
				}
			}
			if !sent {
				addr <- ""
			}
			cmd.Wait()
		}()
		select {
		case u := <-addr:
			return u, logs.String
		case <-time.After(30 * time.Second):
			return "", logs.String
		}
	}

	// CONTROL: root's token file in root's directory starts the server,
	// which takes its token.
	rootTok := filepath.Join(top, "root.token")
	if err := os.WriteFile(rootTok, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if u, out := start("--token-file", rootTok); u == "" {
		t.Fatalf("control: root's token file did not start the server:\n%s", out())
	} else if got := ready(t, u, token); got != http.StatusOK {
		t.Fatalf("control: root's token is not the admin token: %d", got)
	}

	// CONTROL: the other user's regular token file, in its directory, is
	// refused.
	tok := filepath.Join(home, "admin.token")
	asAgent := func(script string, args ...string) *exec.Cmd {
		cmd := exec.Command("/bin/sh", append([]string{"-c", script, "sh"}, args...)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: agentUID, Gid: agentUID}}
		return cmd
	}
	if out, err := asAgent(`umask 077; printf '%s\n' "$2" > "$1"`, tok, agentToken).CombinedOutput(); err != nil {
		t.Fatalf("premise: the other user cannot write in its directory: %v %s", err, out)
	}
	if out, started := serve("--token-file", tok); started || !strings.Contains(out, "owned by uid 65534") {
		t.Fatalf("control: the other user's token file in its directory was not refused: started %v\n%s", started, out)
	}
	if err := os.Remove(tok); err != nil {
		t.Fatal(err)
	}

	// ATTACK: the same name, a FIFO the other user removes while the
	// server reads it.
	agent := asAgent(`mkfifo -m 600 "$1" && exec 3>"$1" && rm -f "$1" && printf '%s\n' "$2" >&3`, tok, agentToken)
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	agentDone := make(chan error, 1)
	go func() { agentDone <- agent.Wait() }()
	t.Cleanup(func() { agent.Process.Kill(); <-agentDone })
	for i := 0; ; i++ {
		if fi, err := os.Lstat(tok); err == nil && fi.Mode()&os.ModeNamedPipe != 0 {
			break
		}
		if i > 500 {
			t.Fatal("premise: the other user's FIFO did not appear")
		}
		time.Sleep(10 * time.Millisecond)
	}
	u, out := start("--token-file", tok)
	if u == "" {
		t.Logf("serve refused:\n%s", out())
		return
	}
	if got := ready(t, u, agentToken); got == http.StatusOK {
		t.Errorf("serve --token-file %s (a name in uid %d's directory) started with the token that user wrote, its admin token (readyz %d):\n%s",
			tok, agentUID, got, out())
	} else {
		t.Logf("started, but the agent's token is refused: %d", got)
	}
}

package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAttack137_DefaultDataDirLateCheckpoint (hundred-and-thirty-seventh
// review): the fix of the hundred-and-thirty-fifth review
// (TestAttack135_DefaultDataDirHashedCheckpoint) denies a second server's
// commands the <hex>.readmodels.checkpoint and .archive it finds in the
// user's default data directory, but it looks once, when that server
// starts (serve's secretPaths: DataDirSecrets lists the directory then). A
// server started while the default data directory exists without a mark
// or a checkpoint (an earlier server's there ran with --token-file and its
// store elsewhere and has not written one yet, or was started on a new
// --store) is denied only the plain names. The first server, started
// after it on the default data directory with --token-file and --store
// log:DIR, writes its checkpoint and archive there under the store's hash;
// a full_access command of the second server reads them: every
// workspace's turns.
//
// Control ("control"): the same two servers started the other way round
// (the checkpoint already there when the second one starts): the command
// reads neither file.
func TestAttack137_DefaultDataDirLateCheckpoint(t *testing.T) {
	if os.Getenv("TURNSTILE_TOKEN") != "" {
		t.Skip("TURNSTILE_TOKEN is set: the servers would take it")
	}
	const token = "explicit-admin-token-a137-0123456789abcdef"
	for _, c := range []struct {
		name        string
		secondFirst bool
	}{{"control", false}, {"second-server-first", true}} {
		t.Run(c.name, func(t *testing.T) {
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
			var b *Server
			startSecond := func() {
				b = startServer(t, &Server{Data: t.TempDir(), Token: token, Args: []string{"--token-file", tf}, Env: env})
			}
			if c.secondFirst {
				startSecond()
			}
			args := []string{"--token-file", tf, "--checkpoint-interval", "1s", "--store", "log:" + filepath.Join(t.TempDir(), "events")}
			a := startServer(t, &Server{Data: def, Args: args, Token: token, Env: env})
			other := workspace(t)
			const marker = "victim-turn-a137-marker"
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
			t.Logf("first server's checkpoint: %s", cp)
			if !c.secondFirst {
				startSecond()
			}
			root := workspace(t)
			b.startTurn("fa-a137", "ws", "full_access", root)
			script := "for f in " + cp + " " + def + "/*readmodels.archive; do if grep -q " + marker + " \"$f\" 2>/dev/null; then echo \"READ $f\"; fi; done; ls -la " + def + "; echo end"
			_, d := b.exec("fa-a137", "", map[string]any{"tool_call_id": "c1", "argv": []string{"sh", "-c", script}, "cwd": root})
			if d.Result == nil {
				t.Fatalf("exec: %+v", d)
			}
			t.Logf("exit %d stdout %q stderr %q", d.Result.ExitCode, d.Result.Stdout, d.Result.Stderr)
			if !strings.Contains(d.Result.Stdout, "end") {
				t.Fatalf("premise: the command did not run: %+v", d.Result)
			}
			if strings.Contains(d.Result.Stdout, "READ ") {
				t.Errorf("a full_access command of a second server read the first server's turns in the user's default data directory (%s): the second server, started before that server wrote its checkpoint named after the store, never denies it (the names are listed once, at its start): %q", def, d.Result.Stdout)
			}
		})
	}
}

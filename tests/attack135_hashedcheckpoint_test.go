package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAttack135_DefaultDataDirHashedCheckpoint (hundred-and-thirty-fifth
// review): a server started on the user's default data directory
// ($XDG_STATE_HOME/turnstile) with --token-file and its store elsewhere
// (--store log:DIR) never holds a mark there (token, events, events.db), and
// keeps its read models' checkpoint and archive of old turns named after
// the store: <hex>.readmodels.checkpoint and <hex>.readmodels.archive
// (cmd/turnstile checkpointPath). Another server of the same user (its own
// --data) denies its commands only DataDirSecrets(default): for a default
// data directory without a mark, the names token, events, events.db,
// readmodels.checkpoint and readmodels.archive (sandbox/datadir.go's
// trustedNames), not the hashed ones. A full_access command of the second
// server reads the first server's checkpoint and archive: every workspace's
// turns.
//
// Control ("control"): the first server with its store in the data
// directory (no --store): the command reads neither file.
func TestAttack135_DefaultDataDirHashedCheckpoint(t *testing.T) {
	if os.Getenv("TURNSTILE_TOKEN") != "" {
		t.Skip("TURNSTILE_TOKEN is set: the servers would take it")
	}
	const token = "explicit-admin-token-a135-0123456789abcdef"
	for _, c := range []struct {
		name     string
		logStore bool
	}{{"control", false}, {"hashed-checkpoint", true}} {
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
			args := []string{"--token-file", tf, "--checkpoint-interval", "1s"}
			if c.logStore {
				args = append(args, "--store", "log:"+filepath.Join(t.TempDir(), "events"))
			}
			a := startServer(t, &Server{Data: def, Args: args, Token: token, Env: env})
			other := workspace(t)
			const marker = "victim-turn-a135-marker"
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
			// A second server of the same user, its own data directory.
			b := startServer(t, &Server{Data: t.TempDir(), Token: token, Args: []string{"--token-file", tf}, Env: env})
			root := workspace(t)
			b.startTurn("fa-a135", "ws", "full_access", root)
			script := "for f in " + cp + " " + def + "/*readmodels.archive; do if grep -q " + marker + " \"$f\" 2>/dev/null; then echo \"READ $f\"; fi; done; ls -la " + def + "; echo end"
			_, d := b.exec("fa-a135", "", map[string]any{"tool_call_id": "c1", "argv": []string{"sh", "-c", script}, "cwd": root})
			if d.Result == nil {
				t.Fatalf("exec: %+v", d)
			}
			t.Logf("exit %d stdout %q stderr %q", d.Result.ExitCode, d.Result.Stdout, d.Result.Stderr)
			if !strings.Contains(d.Result.Stdout, "end") {
				t.Fatalf("premise: the command did not run: %+v", d.Result)
			}
			if strings.Contains(d.Result.Stdout, "READ ") {
				t.Errorf("a full_access command of a second server read the first server's turns in the user's default data directory (%s): its checkpoint/archive named after the store (<hex>.readmodels.*) is not among the names watched there: %q", def, d.Result.Stdout)
			}
		})
	}
}

package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAttack138_LateCheckpointFileRead (hundred-and-thirty-eighth review):
// review 137 (TestAttack137_DefaultDataDirLateCheckpoint) had a server add
// the user's default data directory's secrets as they are at each spawn
// (runner.otherData), so that a checkpoint another server writes there
// after this one started, named after its store (<hex>.readmodels.checkpoint),
// is denied to its commands. Only its commands: every decision on a file
// tool (read_file, a Claude Code Read) is made against the turn's snapshot,
// whose service secrets are the engine's Sensitive list, computed once at
// the server's start (serve's secretPaths). A read_file of the other
// server's checkpoint, every workspace's turns, is allowed, and the agent
// runtime reads it: in a full_access turn, and in an auto_accept_edits turn
// over the home holding the default data directory (whose commands are
// denied the whole directory by then).
//
// Controls ("control", "control-auto-accept-home"): the second server
// started after the checkpoint was written: the same read_file is denied.
func TestAttack138_LateCheckpointFileRead(t *testing.T) {
	if os.Getenv("TURNSTILE_TOKEN") != "" {
		t.Skip("TURNSTILE_TOKEN is set: the servers would take it")
	}
	const token = "explicit-admin-token-a138-0123456789abcdef"
	for _, c := range []struct {
		name        string
		secondFirst bool
		mode        string // the agent's turn; auto_accept_edits over the home holding the data directory
	}{{"control", false, "full_access"}, {"second-server-first", true, "full_access"},
		{"control-auto-accept-home", false, "auto_accept_edits"}, {"second-server-first-auto-accept-home", true, "auto_accept_edits"}} {
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
			const marker = "victim-turn-a138-marker"
			a.startTurn(marker, "ws-other", "auto_accept_edits", other)
			a.JSON("POST", "/v1/turns/"+marker+"/complete", nil, http.StatusOK, nil)
			// Premise: the checkpoint names the other workspace's turn once
			// written (the deadline is a hang guard).
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
					t.Fatal("premise: the checkpoint never named the other turn")
				}
			}
			if !c.secondFirst {
				startSecond()
			}
			root := workspace(t)
			if c.mode == "auto_accept_edits" {
				root = state // the home, say, holding the default data directory
			}
			b.startTurn("fa-a138", "ws", c.mode, root)
			d := b.decide("fa-a138", "r1", "read_file", map[string]any{"path": cp})
			t.Logf("read_file %s: %s %s %s", cp, d.Decision, d.Reason, d.Refusal)
			if d.Decision == "allow" {
				t.Errorf("a %s turn of a second server may read_file the first server's checkpoint in the user's default data directory (%s): its file decisions use the service secrets listed at the server's start, not as the directory is now", c.mode, cp)
			}
		})
	}
}

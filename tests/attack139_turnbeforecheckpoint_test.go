package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAttack139_TurnStartedBeforeOtherCheckpoint: review 138's fix
// (SensitiveNow) reads the user's default data directory's secrets as each
// turn starts, so that a checkpoint another server writes there after this
// server started is denied to the file decisions of turns started after
// it. A turn started before it keeps the list of its start: the agent
// starts its turn on server B first; server A, whose data directory is
// the default one (its store elsewhere), then writes its read-model
// checkpoint (<hex>.readmodels.checkpoint, every workspace's turns); the
// agent's read_file of it, in the same turn, is allowed, and the agent
// runtime reads it.
//
// Fixed: the decision checker asks for that directory's secrets as they
// are at each file decision (sandbox.DecisionChecker.Fresh).
//
// Control ("control"): the same turn started after the checkpoint was
// written (review 138's case): denied. And in both, a read of a file of
// the turn's own workspace is allowed.
func TestAttack139_TurnStartedBeforeOtherCheckpoint(t *testing.T) {
	if os.Getenv("TURNSTILE_TOKEN") != "" {
		t.Skip("TURNSTILE_TOKEN is set: the servers would take it")
	}
	const token = "explicit-admin-token-a139-0123456789abcdef"
	for _, c := range []struct {
		name      string
		turnFirst bool
	}{{"control", false}, {"turn-started-first", true}} {
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
			b := startServer(t, &Server{Data: t.TempDir(), Token: token, Args: []string{"--token-file", tf}, Env: env})
			root := workspace(t)
			if c.turnFirst {
				b.startTurn("fa-a139", "ws", "full_access", root)
			}
			args := []string{"--token-file", tf, "--checkpoint-interval", "1s", "--store", "log:" + filepath.Join(t.TempDir(), "events")}
			a := startServer(t, &Server{Data: def, Args: args, Token: token, Env: env})
			other := workspace(t)
			const marker = "victim-turn-a139-marker"
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
			if !c.turnFirst {
				b.startTurn("fa-a139", "ws", "full_access", root)
			}
			d := b.decide("fa-a139", "r1", "read_file", map[string]any{"path": cp})
			t.Logf("read_file %s: %s %s %s", cp, d.Decision, d.Reason, d.Refusal)
			own := filepath.Join(root, "notes.txt")
			if err := os.WriteFile(own, []byte("n\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if d := b.decide("fa-a139", "r2", "read_file", map[string]any{"path": own}); d.Decision != "allow" {
				t.Errorf("control: a read of the workspace's own file: %s %s %s", d.Decision, d.Reason, d.Refusal)
			}
			if d.Decision == "allow" {
				t.Errorf("ESCAPED: a turn of server B started before server A wrote its checkpoint in the user's default data directory may read_file it (%s): its snapshot keeps the secrets as they were at its start", cp)
			}
		})
	}
}

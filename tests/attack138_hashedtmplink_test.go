package tests

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAttack138_HashedCheckpointTmpLink (hundred-and-thirty-eighth review):
// a command over a root holding the user's default data directory
// ($XDG_STATE_HOME/turnstile, here without a server's data yet) is denied
// there, as DataDirSecrets gives them, the marks (token, events, events.db)
// and the read models' plain checkpoint and archive with the forms a
// server writes them in: readmodels.checkpoint.tmp among them, because "the
// next server there writes it through a link a command left (O_TRUNC, not
// O_NOFOLLOW), then renames the link over the checkpoint". One named after
// a store (<hex>.readmodels.checkpoint.tmp, the temporary file of a server
// run there with --store) is not listed: "where one is, the directory holds
// a server's data". It does from the next spawn on, but the one the command
// made is neither denied to it nor set aside after it. The agent's command
// links <hex>.readmodels.checkpoint.tmp (hex: sha256 of the --store value,
// which the person's scripts name) to a file of its workspace; the person
// starts a server on the default data directory over that store; its first
// checkpoint (every turn of every workspace the store holds) is written
// through the link into the agent's file. While the link (renamed over the
// checkpoint's name) stands, the spawn's link scan denies the file; the
// server's next checkpoint replaces the link, and the agent reads it.
//
// Control ("control"): the same link under the plain name
// (readmodels.checkpoint.tmp) is set aside after the command.
func TestAttack138_HashedCheckpointTmpLink(t *testing.T) {
	if os.Getenv("TURNSTILE_TOKEN") != "" {
		t.Skip("TURNSTILE_TOKEN is set: the servers would take it")
	}
	const token = "explicit-admin-token-a138h-0123456789abcdef"
	const marker = "victim-turn-a138h-marker"
	for _, c := range []struct {
		name   string
		hashed bool
	}{{"control", false}, {"hashed-tmp-link", true}} {
		t.Run(c.name, func(t *testing.T) {
			root := workspace(t) // the agent's workspace: the person's home, say
			env := []string{"XDG_STATE_HOME=" + root, "STATE_DIRECTORY="}
			def := filepath.Join(root, "turnstile")
			if err := os.MkdirAll(def, 0o700); err != nil {
				t.Fatal(err)
			}
			tf := filepath.Join(t.TempDir(), "admin-token")
			if err := os.WriteFile(tf, []byte(token+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			store := "log:" + filepath.Join(t.TempDir(), "events")
			sum := sha256.Sum256([]byte(store))
			hashed := hex.EncodeToString(sum[:6]) + ".readmodels.checkpoint.tmp"

			// The store holds another workspace's turn (the person's server,
			// run so far with another data directory).
			a0 := startServer(t, &Server{Data: t.TempDir(), Token: token, Args: []string{"--token-file", tf, "--store", store}, Env: env})
			other := workspace(t)
			a0.startTurn(marker, "ws-other", "auto_accept_edits", other)
			a0.JSON("POST", "/v1/turns/"+marker+"/complete", nil, http.StatusOK, nil)
			if err := a0.Stop(); err != nil {
				t.Logf("stopping the first server: %v", err)
			}

			// The agent's server and turn, over the root holding def.
			b := startServer(t, &Server{Data: t.TempDir(), Token: token, Args: []string{"--token-file", tf}, Env: env})
			b.startTurn("ag-a138h", "ws", "auto_accept_edits", root)
			name := "readmodels.checkpoint.tmp"
			if c.hashed {
				name = hashed
			}
			d := b.execApproved("ag-a138h", "c1", map[string]any{"cmd": ": > loot && ln -s " + root + "/loot turnstile/" + name + " && echo PLANTED", "cwd": root})
			if d.Result == nil {
				t.Fatalf("premise: the plant did not run: %+v", d)
			}
			t.Logf("plant: exit %d %q %q quarantined %+v", d.Result.ExitCode, d.Result.Stdout, d.Result.Stderr, d.Result.Quarantined)
			if !strings.Contains(d.Result.Stdout, "PLANTED") {
				t.Fatalf("premise: the command could not make the link: %q", d.Result.Stderr)
			}
			fi, err := os.Lstat(filepath.Join(def, name))
			kept := err == nil && fi.Mode()&os.ModeSymlink != 0
			if !c.hashed {
				if kept {
					t.Fatalf("control: the link at the plain name was kept")
				}
				return
			}
			if !kept {
				return // set aside: the attack does not work
			}
			// The person starts the server on the default data directory
			// over that store; its first checkpoint follows the rebuild
			// (the deadline is a hang guard).
			a := startServer(t, &Server{Data: def, Token: token, Args: []string{"--token-file", tf, "--checkpoint-interval", "1s", "--store", store}, Env: env})
			cpPath := filepath.Join(def, strings.TrimSuffix(hashed, ".tmp"))
			// Since the fix (writeTemp removes what has the name and makes
			// the file anew) the first checkpoint is a file of its own:
			// then nothing reached ./loot.
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				fi, err := os.Lstat(cpPath)
				if err == nil && fi.Mode()&os.ModeSymlink != 0 {
					break // the first checkpoint, written through the link, renamed over its name
				}
				if err == nil && fi.Mode().IsRegular() {
					if b, _ := os.ReadFile(filepath.Join(root, "loot")); strings.Contains(string(b), marker) {
						t.Errorf("the server's first checkpoint reached ./loot through the link at %s", hashed)
					}
					return
				}
				if time.Now().After(deadline) {
					t.Fatal("premise: the server never wrote its first checkpoint")
				}
			}
			// The person's work goes on: the next checkpoint is a file of
			// its own, renamed over the link (which the spawn's link scan
			// followed to ./loot, denying it meanwhile).
			a.startTurn("later-a138h", "ws-later", "auto_accept_edits", workspace(t))
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				if fi, err := os.Lstat(cpPath); err == nil && fi.Mode().IsRegular() {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("premise: the server never wrote its next checkpoint")
				}
			}
			d = b.execApproved("ag-a138h", "c2", map[string]any{"cmd": "grep -q " + marker + " loot && echo READ; echo end", "cwd": root})
			if d.Result == nil {
				t.Fatalf("premise: the read did not run: %+v", d)
			}
			t.Logf("read: %q %q", d.Result.Stdout, d.Result.Stderr)
			if !strings.Contains(d.Result.Stdout, "end") {
				t.Fatalf("premise: the read did not run: %q", d.Result.Stderr)
			}
			if strings.Contains(d.Result.Stdout, "READ") {
				t.Errorf("the agent read the person's server's checkpoint (every workspace's turns) from its own workspace: its command linked %s in the default data directory to ./loot, which was kept, and the server wrote through it: %q", hashed, d.Result.Stdout)
			}
		})
	}
}

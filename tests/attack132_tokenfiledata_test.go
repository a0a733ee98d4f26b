package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAttack132_TokenFileDataDirUnmasked (hundred-and-thirty-second
// review, high: every workspace's turns read, and the read models'
// checkpoint writable, by a full_access command). ea71dfa made serve's
// secretPaths take the data directory from sandbox.DataDirSecrets, which
// gives the directory itself only when it already holds "token", "events"
// or "events.db" (HoldsServerData), and else just those three names.
// secretPaths runs before the store is opened: a server started with
// --token-file (TURNSTILE_TOKEN, too) on a fresh data directory makes no
// DATA/token, and DATA/events only after, so the list never names the data
// directory. Its read-model checkpoint (readmodels.checkpoint) and archive
// of old turns (readmodels.archive) are then masked by nothing: a
// full_access command reads other workspaces' turns there (and may rewrite
// the checkpoint the next start restores). The same holds forever for a
// data directory whose store is elsewhere (--store log:DIR, bolt:PATH, a
// remote store: "token-file-log-store", every start). Before ea71dfa the
// data directory was always denied.
//
// Control ("control"): the same server with its token made in the data
// directory (no --token-file): the command reads neither file.
func TestAttack132_TokenFileDataDirUnmasked(t *testing.T) {
	if os.Getenv("TURNSTILE_TOKEN") != "" {
		t.Skip("TURNSTILE_TOKEN is set: the servers would take it")
	}
	const token = "explicit-admin-token-a132-0123456789abcdef"
	for _, c := range []struct {
		name      string
		tokenFile bool
		logStore  bool // the store elsewhere (--store log:DIR): every start
	}{{"control", false, false}, {"token-file", true, false}, {"token-file-log-store", true, true}} {
		t.Run(c.name, func(t *testing.T) {
			data := t.TempDir()
			var s *Server
			if c.tokenFile {
				tf := filepath.Join(t.TempDir(), "admin-token")
				if err := os.WriteFile(tf, []byte(token+"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				args := []string{"--token-file", tf, "--checkpoint-interval", "1s"}
				if c.logStore {
					args = append(args, "--store", "log:"+filepath.Join(t.TempDir(), "events"))
				}
				s = startServer(t, &Server{Data: data, Args: args, Token: token})
			} else {
				s = StartServer(t, data, "--checkpoint-interval", "1s")
			}
			other := workspace(t)
			const marker = "victim-turn-a132-marker"
			s.startTurn(marker, "ws-other", "auto_accept_edits", other)
			s.JSON("POST", "/v1/turns/"+marker+"/complete", nil, http.StatusOK, nil)
			// Premise: read from outside, the checkpoint names the other
			// workspace's turn once written (the deadline is a hang guard).
			// (readmodels.checkpoint; with --store, <hash>.readmodels.checkpoint.)
			var cp string
			for deadline := time.Now().Add(30 * time.Second); cp == ""; time.Sleep(20 * time.Millisecond) {
				ms, _ := filepath.Glob(filepath.Join(data, "*readmodels.checkpoint"))
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
			root := workspace(t)
			s.startTurn("fa-a132", "ws", "full_access", root)
			script := "for f in " + cp + " " + data + "/*readmodels.archive; do if grep -q " + marker + " \"$f\" 2>/dev/null; then echo \"READ $f\"; fi; done; ls -la " + data + "; echo end"
			_, d := s.exec("fa-a132", "", map[string]any{"tool_call_id": "c1", "argv": []string{"sh", "-c", script}, "cwd": root})
			if d.Result == nil {
				t.Fatalf("exec: %+v", d)
			}
			t.Logf("exit %d stdout %q stderr %q", d.Result.ExitCode, d.Result.Stdout, d.Result.Stderr)
			if !strings.Contains(d.Result.Stdout, "end") {
				t.Fatalf("premise: the command did not run: %+v", d.Result)
			}
			if strings.Contains(d.Result.Stdout, "READ ") {
				t.Errorf("a full_access command read another workspace's turn in the server's data directory (%s): with the token elsewhere, the data directory is no longer denied", data)
			}
		})
	}
}

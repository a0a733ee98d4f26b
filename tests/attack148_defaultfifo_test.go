package tests

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestAttack148_DefaultDataDirFIFO (hundred-and-forty-eighth review,
// medium to high: one command of the agent's hangs the gateway for
// everyone; where Claude Code's http hook is installed, a gateway that no
// longer answers lets every tool call run unchecked, README "Claude Code as
// a client").
//
// A server whose --data is not the user's default data directory watches
// the default one as it is at every turn start (serve's sensitiveNow), file
// decision (freshSecrets) and spawn (runner.otherData), through
// sandbox.DataDirSecrets → HoldsServerData, which opens the directory with
// os.Open: a blocking open(2), which on a FIFO waits for a writer. Where the
// default directory does not exist yet (a server always run with --data),
// a full_access command is not denied it (nothing there to mask: only what
// exists is masked) and makes a FIFO at its name. From then on every turn
// start, every spawn (under the roots' lock: the other commands over the
// same roots wait behind it) and every decision that asks for the secrets
// as they are now hangs, for every credential, until someone opens the
// FIFO for writing.
//
// Control: the same turn start, before the FIFO, answers at once; the FIFO
// is made by the full_access command (PLANTED) as the premise.
func TestAttack148_DefaultDataDirFIFO(t *testing.T) {
	if os.Getenv("TURNSTILE_TOKEN") != "" {
		t.Skip("TURNSTILE_TOKEN is set: the server would take it")
	}
	state := t.TempDir()
	def := filepath.Join(state, "turnstile")
	s := startServer(t, &Server{Data: t.TempDir(), Env: []string{"XDG_STATE_HOME=" + state, "STATE_DIRECTORY="}})
	// Whatever happens, let anything waiting on the FIFO go at the end.
	t.Cleanup(func() {
		if fi, err := os.Lstat(def); err == nil && fi.Mode()&os.ModeNamedPipe != 0 {
			if f, err := os.OpenFile(def, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				time.Sleep(100 * time.Millisecond)
				f.Close()
			}
		}
	})
	quick := &http.Client{Timeout: 10 * time.Second}
	start := func(id string) (int, string) {
		body, _ := json.Marshal(map[string]any{"turn_id": id, "workspace_id": "ws-" + id, "thread_id": "th-" + id,
			"workspace_root": workspace(t), "permission_profile": map[string]any{"mode": "auto_accept_edits"}})
		req, _ := http.NewRequest("POST", s.URL+"/v1/turns", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+s.Token)
		req.Header.Set("Content-Type", "application/json")
		t0 := time.Now()
		resp, err := quick.Do(req)
		if err != nil {
			return 0, err.Error() + " after " + time.Since(t0).Round(time.Millisecond).String()
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return resp.StatusCode, b.String()
	}
	// Control: a turn starts at once.
	if st, body := start("ctl-a148"); st != http.StatusCreated {
		t.Fatalf("control: turn start: %d %s", st, body)
	}
	root := workspace(t)
	s.startTurn("fa-a148f", "ws", "full_access", root)
	_, d := s.exec("fa-a148f", "", map[string]any{"tool_call_id": "c1", "argv": []string{"sh", "-c", "mkfifo " + def + " && echo PLANTED"}, "cwd": root})
	if d.Result == nil || !strings.Contains(d.Result.Stdout, "PLANTED") {
		t.Fatalf("premise: the full_access command did not make the FIFO: %+v %+v", d, d.Result)
	}
	if fi, err := os.Lstat(def); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("premise: no FIFO at %s: %v", def, err)
	}
	st, body := start("after-a148")
	if st != http.StatusCreated {
		t.Errorf("after a full_access command made a FIFO at the user's default data directory (%s), another workspace's turn start did not answer: %d %s (HoldsServerData opens it with a blocking open(2), at every turn start, spawn and fresh-secrets decision)", def, st, body)
	}
}

// TestAttack148_DefaultDataDirFIFORestricted: the same FIFO made by a
// command of an auto_accept_edits turn whose workspace is the home the
// default data directory lies in (a root the README supports), where
// ~/.local/state does not exist yet: the deny entry of the missing default
// directory is held only where its parent exists, so the command makes the
// parent and the FIFO. The check after the command sets it aside, but a
// blocked open(2) stays blocked on the FIFO's inode under its new name: a
// turn start (or spawn, or decision) made while the command runs never
// answers, and what it holds stays held (a spawn holds its roots' lock).
//
// Control: the same turn start answers at once before the command.
func TestAttack148_DefaultDataDirFIFORestricted(t *testing.T) {
	if os.Getenv("TURNSTILE_TOKEN") != "" {
		t.Skip("TURNSTILE_TOKEN is set: the server would take it")
	}
	home := workspace(t)
	// A home with ~/.local (pip, ~/.local/bin) and no ~/.local/state yet.
	if err := os.MkdirAll(filepath.Join(home, ".local", "share"), 0o755); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(home, ".local", "state")
	def := filepath.Join(state, "turnstile")
	s := startServer(t, &Server{Data: t.TempDir(), Env: []string{"XDG_STATE_HOME=" + state, "STATE_DIRECTORY="}})
	t.Cleanup(func() {
		// Let the blocked opens go: the FIFO, where the check left it.
		for _, p := range []string{def, def + ".turnstile-untrusted"} {
			if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				time.Sleep(100 * time.Millisecond)
				f.Close()
			}
		}
	})
	quick := &http.Client{Timeout: 8 * time.Second}
	start := func(id string) (int, string) {
		body, _ := json.Marshal(map[string]any{"turn_id": id, "workspace_id": "ws-" + id, "thread_id": "th-" + id,
			"workspace_root": workspace(t), "permission_profile": map[string]any{"mode": "auto_accept_edits"}})
		req, _ := http.NewRequest("POST", s.URL+"/v1/turns", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+s.Token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := quick.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return resp.StatusCode, b.String()
	}
	if st, body := start("ctl-a148r"); st != http.StatusCreated {
		t.Fatalf("control: turn start: %d %s", st, body)
	}
	s.startTurn("ae-a148f", "ws", "auto_accept_edits", home)
	body := map[string]any{"tool_call_id": "c1", "cmd": "mkdir -p .local/state && mkfifo .local/state/turnstile && echo PLANTED && sleep 4", "cwd": home}
	if st, first := s.exec("ae-a148f", "", body); st != http.StatusAccepted || first.Request == nil {
		t.Fatalf("exec: %d %+v, want 202 ask", st, first)
	} else {
		s.respond(first.Request.RequestID, "allow_once")
	}
	ch := execInBackground(s, "ae-a148f", body)
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if fi, err := os.Lstat(def); err == nil && fi.Mode()&os.ModeNamedPipe != 0 {
			break
		}
	}
	if fi, err := os.Lstat(def); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("premise: the command made no FIFO at %s: %v", def, err)
	}
	st, got := start("during-a148r")
	d := <-ch
	if d.Result == nil || !strings.Contains(d.Result.Stdout, "PLANTED") {
		t.Fatalf("premise: the command did not run: %+v", d)
	}
	t.Logf("command: exit %d %q quarantined %+v", d.Result.ExitCode, d.Result.Stdout, d.Result.Quarantined)
	if st != http.StatusCreated {
		t.Errorf("while an auto_accept_edits command's FIFO stood at the user's default data directory (%s), a turn start did not answer: %d %s (it stays blocked on the FIFO set aside)", def, st, got)
	}
}

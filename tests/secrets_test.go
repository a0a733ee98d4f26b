package tests

// The gateway's own secrets: where the data directory lives, which tokens
// are accepted, and that no turn can read or write them.

import (
	"bufio"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// roServeOutput starts `turnstile serve` with env in dir, returns the
// lines it printed up to and including the kernel line, and stops it.
func roServeOutput(t *testing.T, env []string, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	cmd.Env, cmd.Dir = env, dir
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var logs lockedBuffer
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	lines := make(chan string)
	go func() {
		defer close(lines)
		var b strings.Builder
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			b.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), "kernel:") {
				break
			}
		}
		lines <- b.String()
	}()
	select {
	case out := <-lines:
		if out == "" {
			t.Fatalf("serve printed nothing: %s", logs.String())
		}
		return out
	case <-time.After(30 * time.Second): // a hang guard
		t.Fatalf("serve did not start: %s", logs.String())
	}
	return ""
}

// TestDataDirectoryDefault: the data directory is systemd's
// $STATE_DIRECTORY, else $XDG_STATE_HOME/turnstile, else
// ~/.local/state/turnstile — never the working directory — printed at
// start; --data overrides.
func TestDataDirectoryDefault(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	home, xdg, sd, cwd, flag := filepath.Join(tmp, "home"), filepath.Join(tmp, "xdg"), filepath.Join(tmp, "sd"), filepath.Join(tmp, "cwd"), filepath.Join(tmp, "flag")
	for _, d := range []string{home, cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	base := append(envWithout("TURNSTILE_TOKEN", "HOME", "XDG_STATE_HOME", "STATE_DIRECTORY"), "HOME="+home)
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"home", base, nil, filepath.Join(home, ".local", "state", "turnstile")},
		{"xdg", append(base, "XDG_STATE_HOME="+xdg), nil, filepath.Join(xdg, "turnstile")},
		{"systemd", append(base, "XDG_STATE_HOME="+xdg, "STATE_DIRECTORY="+sd), nil, sd},
		{"flag", append(base, "XDG_STATE_HOME="+xdg, "STATE_DIRECTORY="+sd), []string{"--data", flag}, flag},
	} {
		out := roServeOutput(t, tc.env, cwd, tc.args...)
		if !strings.Contains(out, "data: "+tc.want+" ") {
			t.Fatalf("%s: serve printed\n%s\nwant data: %s", tc.name, out, tc.want)
		}
		if st, err := os.Stat(filepath.Join(tc.want, "token")); err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("%s: no 0600 token in %s (%v)", tc.name, tc.want, err)
		}
	}
	if entries, _ := os.ReadDir(cwd); len(entries) != 0 {
		t.Fatalf("serve wrote into the working directory: %v", entries)
	}
	// The command line finds the same default: token list reaches the
	// server with the token in $XDG_STATE_HOME/turnstile.
	env := append(base, "XDG_STATE_HOME="+filepath.Join(tmp, "xdg2"))
	p := startWithEnv(t, env, "--listen", "127.0.0.1:0")
	if out, errOut, code := runCLIEnv(t, env, "token", "list", "--server", p.url); code != 0 || !strings.Contains(out, "NAME") {
		t.Fatalf("token list with the default data directory: %d %s %s", code, out, errOut)
	}
}

// TestTokenSourcesRefused: a token shorter than 16 characters is refused
// from TURNSTILE_TOKEN, --token-file and <data>/token; a token file others
// may read is refused with the chmod that fixes it; the same files at mode
// 0600 are accepted (control).
func TestTokenSourcesRefused(t *testing.T) {
	t.Parallel()
	env := envWithout("TURNSTILE_TOKEN")
	serve := func(env []string, args ...string) (string, int) {
		out, errOut, code := runCLIEnv(t, env, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
		if strings.Contains(out, "listening") {
			t.Fatalf("serve %v started", args)
		}
		return errOut, code
	}
	if msg, code := serve(append(env, "TURNSTILE_TOKEN=short-token"), "--data", t.TempDir()); code == 0 || !strings.Contains(msg, "TURNSTILE_TOKEN") || !strings.Contains(msg, "at least 16") {
		t.Fatalf("short TURNSTILE_TOKEN: %d %s", code, msg)
	}
	file := filepath.Join(t.TempDir(), "tok")
	if err := os.WriteFile(file, []byte("fifteen-chars-x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if msg, code := serve(env, "--data", t.TempDir(), "--token-file", file); code == 0 || !strings.Contains(msg, "at least 16") {
		t.Fatalf("short --token-file: %d %s", code, msg)
	}
	data := t.TempDir()
	if err := os.WriteFile(filepath.Join(data, "token"), []byte("short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if msg, code := serve(env, "--data", data); code == 0 || !strings.Contains(msg, "at least 16") {
		t.Fatalf("short <data>/token: %d %s", code, msg)
	}
	// Group or other permission bits.
	long := "a-long-enough-token-0123456789"
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604, 0o620} {
		if err := os.WriteFile(file, []byte(long+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(file, mode); err != nil {
			t.Fatal(err)
		}
		if msg, code := serve(env, "--data", t.TempDir(), "--token-file", file); code == 0 || !strings.Contains(msg, "chmod 600 "+file) {
			t.Fatalf("--token-file at %04o: %d %s", mode, code, msg)
		}
		if err := os.WriteFile(filepath.Join(data, "token"), []byte(long+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(data, "token"), mode); err != nil {
			t.Fatal(err)
		}
		if msg, code := serve(env, "--data", data); code == 0 || !strings.Contains(msg, "chmod 600 "+filepath.Join(data, "token")) {
			t.Fatalf("<data>/token at %04o: %d %s", mode, code, msg)
		}
		// The command line refuses it too.
		if _, msg, code := runCLIEnv(t, env, "token", "list", "--server", "http://127.0.0.1:1", "--token-file", file); code == 0 || !strings.Contains(msg, "chmod 600") {
			t.Fatalf("token list with a %04o token file: %d %s", mode, code, msg)
		}
	}
	// A data directory others may write to (and so replace the token in).
	open := t.TempDir()
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if msg, code := serve(env, "--data", open); code == 0 || !strings.Contains(msg, "chmod 700 "+open) {
		t.Fatalf("a world-writable data directory: %d %s", code, msg)
	}
	// Control: the same files at 0600 are accepted.
	if err := os.Chmod(file, 0o600); err != nil {
		t.Fatal(err)
	}
	p := startWithEnv(t, env, "--data", t.TempDir(), "--token-file", file, "--listen", "127.0.0.1:0")
	if got := ready(t, p.url, long); got != http.StatusOK {
		t.Fatalf("a 0600 --token-file: %d", got)
	}
	if err := os.Chmod(filepath.Join(data, "token"), 0o600); err != nil {
		t.Fatal(err)
	}
	p = startWithEnv(t, env, "--data", data, "--listen", "127.0.0.1:0")
	if got := ready(t, p.url, long); got != http.StatusOK {
		t.Fatalf("a 0600 <data>/token: %d", got)
	}
}

// TestDataDirectoryDeniedToTurns: with the data directory inside the
// agent's workspace (the old quick-start layout) and a token file there
// too, every mode's snapshot lists both as sensitive paths of provenance
// system and a decision to read them is denied; in the restricted modes a
// sandboxed command cannot read them either. The rest of the workspace
// stays usable.
func TestDataDirectoryDeniedToTurns(t *testing.T) {
	t.Parallel()
	root := workspace(t)
	data := filepath.Join(root, "turnstile-data")
	tokFile := filepath.Join(root, "admin.token")
	token := "workspace-admin-token-0123456789"
	if err := os.WriteFile(tokFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The harness reads <data>/token; the server uses --token-file.
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "token"), []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, data, "--token-file", tokFile)
	secretPaths := []string{data, tokFile}
	for _, mode := range []string{"full_access", "auto_accept_edits", "supervised"} {
		id := "ro-dd-" + mode
		s.startTurn(id, "ws", mode, root)
		var snap struct {
			SecuritySnapshot struct {
				Sandbox struct {
					Filesystem struct {
						Entries []struct {
							Kind, Path, Access, Provenance string
						} `json:"entries"`
					} `json:"filesystem"`
				} `json:"sandbox"`
			} `json:"security_snapshot"`
		}
		s.JSON("GET", "/v1/turns/"+id, nil, http.StatusOK, &snap)
		for _, p := range secretPaths {
			found := false
			for _, e := range snap.SecuritySnapshot.Sandbox.Filesystem.Entries {
				found = found || (e.Kind == "sensitive_path" && e.Path == p && e.Access == "deny" && e.Provenance == "system")
			}
			if !found {
				t.Fatalf("%s: the snapshot does not deny %s: %+v", mode, p, snap.SecuritySnapshot.Sandbox.Filesystem.Entries)
			}
		}
		// Decisions.
		for i, tc := range []struct{ tool, path string }{
			{"read_file", filepath.Join(data, "token")}, {"read_file", filepath.Join(data, "events.db")}, {"read_file", filepath.Join(data, "events", "00000000000000000000.seg")},
			{"read_file", tokFile}, {"list_dir", data}, {"read_file", "turnstile-data/token"},
		} {
			d := s.decide(id, "r"+string(rune('a'+i)), tc.tool, map[string]any{"path": tc.path})
			if d.Decision != "deny" {
				t.Errorf("%s: %s %s: %s (%s), want deny", mode, tc.tool, tc.path, d.Decision, d.Reason)
			}
		}
		// Writes: a patch that would replace the token, or add to the data
		// directory.
		for i, p := range []string{filepath.Join(data, "token"), filepath.Join(data, "new.txt"), tokFile} {
			patch := "*** Begin Patch\n*** Add File: " + p + "\n+x\n*** End Patch\n"
			if d := s.decide(id, "w"+string(rune('a'+i)), "apply_patch", map[string]any{"patch": patch}); d.Decision != "deny" {
				t.Errorf("%s: a patch writing %s: %s (%s), want deny", mode, p, d.Decision, d.Reason)
			}
		}
		if d := s.decide(id, "wok", "apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Add File: " + filepath.Join(root, "b.txt") + "\n+x\n*** End Patch\n"}); d.Decision == "deny" {
			t.Errorf("%s: a patch writing b.txt: %s (%s), want allow or ask (control)", mode, d.Decision, d.Reason)
		}
		if d := s.decide(id, "ok", "read_file", map[string]any{"path": filepath.Join(root, "a.txt")}); d.Decision != "allow" {
			t.Errorf("%s: reading a.txt: %s (%s), want allow (control)", mode, d.Decision, d.Reason)
		}
		// The sandbox: a command cannot read them (full_access: masked in
		// its own namespaces; the token file outside the data directory
		// reads as an empty file); a.txt it can.
		run := func(call string, argv ...string) decisionAnswer {
			body := map[string]any{"argv": argv, "cwd": root}
			if mode != "full_access" {
				return s.execApproved(id, call, body)
			}
			body["tool_call_id"] = call
			_, d := s.exec(id, "", body)
			return d
		}
		for i, p := range []string{filepath.Join(data, "token"), tokFile} {
			d := run("x"+string(rune('a'+i)), "cat", p)
			if d.Result != nil && strings.Contains(d.Result.Stdout, strings.TrimSpace(token)[:16]) || d.Result != nil && d.Result.ExitCode == 0 && (mode != "full_access" || d.Result.Stdout != "") {
				t.Errorf("%s: a sandboxed cat read %s: %+v", mode, p, d.Result)
			}
		}
		if d := run("xok", "cat", filepath.Join(root, "a.txt")); d.Result == nil || d.Result.Stdout != "hello\n" {
			t.Errorf("%s: cat a.txt: %+v %+v, want hello (control)", mode, d, d.Result)
		}
	}
}

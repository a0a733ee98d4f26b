package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestHealthReadyOpenAPI checks the operational endpoints.
func TestHealthReadyOpenAPI(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	req, _ := http.NewRequest("GET", s.URL+"/healthz", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var h struct{ Status string }
	_ = json.NewDecoder(resp.Body).Decode(&h)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || h.Status != "ok" {
		t.Fatalf("healthz without a token: %d %+v", resp.StatusCode, h)
	}
	var rz struct{ Status, Position string }
	s.JSON("GET", "/readyz", nil, http.StatusOK, &rz)
	if rz.Status != "ready" {
		t.Fatalf("readyz %+v", rz)
	}
	var doc struct {
		OpenAPI string `json:"openapi"`
		Info    struct{ Title, Version string }
		Paths   map[string]map[string]struct {
			Security  *[]map[string][]string `json:"security"`
			Responses map[string]any         `json:"responses"`
		}
		Components struct {
			SecuritySchemes map[string]struct{ Type, Scheme string } `json:"securitySchemes"`
		}
	}
	s.JSON("GET", "/openapi.json", nil, http.StatusOK, &doc)
	if !strings.HasPrefix(doc.OpenAPI, "3.1") || doc.Info.Title == "" {
		t.Fatalf("openapi %q info %+v", doc.OpenAPI, doc.Info)
	}
	for _, p := range []string{"/v1/turns", "/v1/turns/{turn_id}/decisions", "/v1/approvals/{request_id}/respond", "/v1/events", "/rpc", "/healthz", "/metrics"} {
		if doc.Paths[p] == nil {
			t.Errorf("openapi.json lacks %s", p)
		}
	}
	for p, ops := range doc.Paths {
		for m, op := range ops {
			if len(op.Responses) == 0 {
				t.Errorf("%s %s has no responses", m, p)
			}
		}
	}
	if b := doc.Components.SecuritySchemes["bearer"]; b.Type != "http" || b.Scheme != "bearer" {
		t.Fatalf("security schemes %+v", doc.Components.SecuritySchemes)
	}
}

// TestMetrics checks the Prometheus text after decisions, a response and
// an event stream.
func TestMetrics(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("m1", "ws", "full_access", root)
	s.decide("m1", "c1", "read_file", map[string]any{"path": "a.txt"})
	s.decide("m1", "c2", "exec_command", map[string]any{"cmd": "true"})
	s.decide("m1", "c2", "exec_command", map[string]any{"cmd": "true"})      // replayed: not counted again
	s.decide("m1", "c3", "read_file", map[string]any{"path": "missing.txt"}) // missing_path (REFERENCE §5)
	s.startTurn("m2", "ws", "supervised", root)
	s.decide("m2", "c0", "read_file", map[string]any{"path": "/nonexistent-root/x.txt"}) // outside the roots
	ask := s.decide("m2", "c1", "web_fetch", map[string]any{"url": "https://example.com/"})
	s.respond(ask.Request.RequestID, "deny")

	m := s.scrape()
	for k, want := range map[string]float64{
		`turnstile_decisions_total{behavior="allow",reason="full_access"}`:            2,
		`turnstile_decisions_total{behavior="deny",reason="sandbox_denied"}`:          2,
		`turnstile_decisions_total{behavior="ask",reason="policy_requires_approval"}`: 1,
		`turnstile_approval_wait_seconds_count`:                                       1,
		`turnstile_approval_wait_seconds_bucket{le="+Inf"}`:                           1,
		`turnstile_sse_clients`: 0,
	} {
		if got, ok := m[k]; !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, want)
		}
	}
	// Two starts (three events each) and five appended decisions/responses.
	if n := m[`turnstile_append_duration_seconds_count`]; n < 7 {
		t.Errorf("append duration count %v, want at least 7", n)
	}
	if _, ok := m[`turnstile_append_duration_seconds_sum`]; !ok {
		t.Error("no append duration sum")
	}

	st := s.subscribe("", "")
	pollUntil(t, "one SSE client", func() bool { return s.scrape()["turnstile_sse_clients"] == 1 })
	st.Close()
	pollUntil(t, "no SSE client", func() bool { return s.scrape()["turnstile_sse_clients"] == 0 })
}

// started is a turnstile process the test started itself (for runs that
// need their own environment).
type started struct {
	cmd  *exec.Cmd
	url  string
	exit chan error
}

// startWithEnv starts `turnstile serve` with env and waits for its address.
func startWithEnv(t *testing.T, env []string, args ...string) *started {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	cmd.Env = env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var logs lockedBuffer
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &started{cmd: cmd, exit: make(chan error, 1)}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if _, rest, ok := strings.Cut(sc.Text(), "listening on "); ok {
				addr <- strings.TrimSpace(rest)
			}
		}
	}()
	go func() { p.exit <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.exit
		if t.Failed() {
			t.Logf("serve %v:\n%s", args, logs.String())
		}
	})
	select {
	case p.url = <-addr:
	case err := <-p.exit:
		t.Fatalf("serve exited: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not start")
	}
	return p
}

// lockedBuffer is a buffer safe for a process's writes and the test's reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// ready polls url's /readyz with token until it is no longer 503 and
// returns its status.
func ready(t *testing.T, url, token string) int {
	t.Helper()
	var status int
	pollUntil(t, "readyz", func() bool {
		status = get(t, url+"/readyz", token)
		return status != http.StatusServiceUnavailable
	})
	return status
}

// envWithout is the environment without the named variables.
func envWithout(names ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		keep := true
		for _, n := range names {
			keep = keep && !strings.HasPrefix(kv, n+"=")
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}

func get(t *testing.T, url, token string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestTokenHandling checks the token file's creation and mode, the refusal
// of a non-loopback address without an explicit token, --token-file, and
// that TURNSTILE_TOKEN overrides the file.
func TestTokenHandling(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "fresh")
	env := envWithout("TURNSTILE_TOKEN")
	p := startWithEnv(t, env, "--data", data, "--listen", "127.0.0.1:0")
	st, err := os.Stat(filepath.Join(data, "token"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode %v, want 0600", st.Mode().Perm())
	}
	if dst, _ := os.Stat(data); dst.Mode().Perm()&0o077 != 0 {
		t.Errorf("data directory mode %v is open to others", dst.Mode().Perm())
	}
	raw, _ := os.ReadFile(filepath.Join(data, "token"))
	token := strings.TrimSpace(string(raw))
	if len(token) < 32 {
		t.Fatalf("token %q is short", token)
	}
	if got := ready(t, p.url, token); got != http.StatusOK {
		t.Fatalf("the file's token: %d", got)
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	if err := <-p.exit; err != nil {
		t.Fatalf("SIGINT: %v", err)
	}
	p.exit <- nil // for the cleanup

	// TURNSTILE_TOKEN overrides the file (which stays as it was).
	override := "override-token-0123456789abcdef"
	p = startWithEnv(t, append(env, "TURNSTILE_TOKEN="+override), "--data", data, "--listen", "127.0.0.1:0")
	if got := ready(t, p.url, override); got != http.StatusOK {
		t.Fatalf("TURNSTILE_TOKEN: %d", got)
	}
	if got := get(t, p.url+"/readyz", token); got != http.StatusUnauthorized {
		t.Fatalf("the file's token while TURNSTILE_TOKEN is set: %d, want 401", got)
	}
	if again, _ := os.ReadFile(filepath.Join(data, "token")); strings.TrimSpace(string(again)) != token {
		t.Fatal("the token file changed")
	}

	// A non-loopback address needs an explicit token.
	for _, listen := range []string{"0.0.0.0:0", "[::]:0"} {
		out, errOut, code := runCLIEnv(t, env, "serve", "--data", t.TempDir(), "--listen", listen)
		if code == 0 || !strings.Contains(errOut, "not a loopback address") || !strings.Contains(errOut, "TURNSTILE_TOKEN") ||
			!strings.Contains(errOut, "--token-file") || strings.Contains(out, "listening") {
			t.Fatalf("serve --listen %s without a token: exit %d\nstdout %s\nstderr %s", listen, code, out, errOut)
		}
	}
	// With --token-file it starts; a short token file is refused.
	tokFile := filepath.Join(t.TempDir(), "tok")
	if err := os.WriteFile(tokFile, []byte("file-token-0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p = startWithEnv(t, env, "--data", t.TempDir(), "--listen", "0.0.0.0:0", "--token-file", tokFile)
	url := strings.NewReplacer("0.0.0.0", "127.0.0.1", "[::]", "127.0.0.1").Replace(p.url)
	if got := ready(t, url, "file-token-0123456789abcdef"); got != http.StatusOK {
		t.Fatalf("--token-file on 0.0.0.0: %d", got)
	}
	if err := os.WriteFile(tokFile, []byte("short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runCLIEnv(t, env, "serve", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--token-file", tokFile); code == 0 || !strings.Contains(errOut, "at least 16") {
		t.Fatalf("short token file: exit %d %s", code, errOut)
	}
}

// runCLIEnv runs the binary with args in env.
func runCLIEnv(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // a hang guard
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	if len(args) > 0 && args[0] != "hook" {
		cmd.Env = pinKey(env, args)
	}
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return o.String(), e.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), 0
}

// Package tests holds black-box tests: the turnstile binary, built once,
// started as a process on a random port and driven over HTTP and its
// command line.
package tests

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"turnstile/internal/testtimeout"
)

// bin is the turnstile binary under test.
var bin string

func TestMain(m *testing.M) {
	if serveESDBTest() || serveImpostor() || serveSocketImpostor() {
		return
	}
	testtimeout.Raise(25 * time.Minute)
	if err := startSuiteDNS(); err != nil {
		fmt.Fprintln(os.Stderr, "starting the suite's DNS server:", err)
		os.Exit(1)
	}
	dir, err := os.MkdirTemp("", "turnstile-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "turnstile")
	// The lean sandbox helper is built next to the binary, as an install
	// would place it (helper_test.go checks both layouts).
	build := exec.Command("go", "build", "-o", dir+"/", "../cmd/turnstile", "../cmd/turnstile-sandbox")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building turnstile:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Server is one running turnstile process.
type Server struct {
	t testing.TB
	// Bin is the binary to start; empty means bin.
	Bin   string
	Data  string
	URL   string
	Token string
	Args  []string
	// Env is added to the test's environment (a later value wins).
	Env  []string
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer // stdout and stderr of the process
	exit chan error
	http *http.Client
	// specLog collects the OpenAPI problems of exchanges sent without t
	// (Do, miDo); shared by the clients of one server (roAs).
	specLog *specLog
	// reads is read-your-writes (reads.go): the latest position a command
	// answered with, passed as ?after= on reads of the read models; shared
	// like specLog.
	reads *readAfter
}

// StartServer starts `turnstile serve` with a fresh data directory (or
// data, when not empty) and extra flags, and waits until it is ready.
func StartServer(t testing.TB, data string, extra ...string) *Server {
	t.Helper()
	return StartServerBin(t, "", data, extra...)
}

// StartServerBin is StartServer with another binary (empty: bin).
func StartServerBin(t testing.TB, binPath, data string, extra ...string) *Server {
	t.Helper()
	if data == "" {
		data = t.TempDir()
	}
	return startServer(t, &Server{Bin: binPath, Data: data, Args: extra})
}

// StartServerEnv is StartServer with env added to the server's environment.
func StartServerEnv(t testing.TB, env []string, extra ...string) *Server {
	t.Helper()
	return startServer(t, &Server{Data: t.TempDir(), Args: extra, Env: env})
}

func startServer(t testing.TB, s *Server) *Server {
	t.Helper()
	s.t, s.http, s.specLog, s.reads = t, &http.Client{Timeout: 60 * time.Second}, &specLog{}, &readAfter{}
	t.Cleanup(func() { s.specLog.report(t) })
	s.start()
	t.Cleanup(s.Kill)
	return s
}

func (s *Server) start() {
	t := s.t
	t.Helper()
	args := append([]string{"serve", "--data", s.Data, "--listen", "127.0.0.1:0", "--log-level", "debug"}, s.Args...)
	if suiteDNS != "" && !slices.Contains(s.Args, "--dns-server") {
		args = append(args, "--dns-server", suiteDNS)
	}
	path := bin
	if s.Bin != "" {
		path = s.Bin
	}
	var stdout io.ReadCloser
	// A program a test has just written (a copied binary, a wrapper script)
	// can still be open for writing in a child another test is forking at
	// that moment, until that child execs: the kernel answers ETXTBSY, and
	// the start is tried again.
	for wait := time.Millisecond; ; wait *= 2 {
		s.cmd = exec.Command(path, args...)
		s.cmd.Env = append(os.Environ(), s.Env...)
		var err error
		if stdout, err = s.cmd.StdoutPipe(); err != nil {
			t.Fatal(err)
		}
		s.cmd.Stderr = &lockedWriter{mu: &s.mu, w: &s.out}
		err = s.cmd.Start()
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.ETXTBSY) || wait > time.Second {
			t.Fatal(err)
		}
		time.Sleep(wait)
	}
	s.exit = make(chan error, 1)
	// A started server is ready once its read models have caught up with
	// its store (which a test may have replaced: a restored backup).
	s.reads.reset()
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.out.WriteString(line + "\n")
			s.mu.Unlock()
			if _, rest, ok := strings.Cut(line, "listening on "); ok {
				addr <- strings.TrimSpace(rest)
			}
		}
	}()
	go func() { s.exit <- s.cmd.Wait() }()
	select {
	case a := <-addr:
		s.URL = a
		serverData.Store(a, s.Data)
	case err := <-s.exit:
		t.Fatalf("turnstile serve exited: %v\n%s", err, s.Output())
	case <-time.After(30 * time.Second):
		t.Fatalf("turnstile serve did not start\n%s", s.Output())
	}
	if tok := os.Getenv("TURNSTILE_TOKEN"); tok != "" {
		s.Token = tok
	} else if b, err := os.ReadFile(filepath.Join(s.Data, "token")); err == nil {
		s.Token = strings.TrimSpace(string(b))
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, _ := s.Do("GET", "/readyz", nil)
		if resp == http.StatusOK {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("turnstile never became ready\n%s", s.Output())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Output is what the process printed so far.
func (s *Server) Output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

// Stop sends SIGTERM and waits for a clean exit.
func (s *Server) Stop() error {
	if s.cmd == nil || s.cmd.Process == nil {
		return nil
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.exit:
		s.cmd = nil
		return err
	case <-time.After(30 * time.Second):
		s.Kill()
		return fmt.Errorf("turnstile did not stop on SIGTERM")
	}
}

// Kill stops the process with SIGKILL (test cleanup).
func (s *Server) Kill() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.exit
	s.cmd = nil
}

// Restart stops the process with SIGTERM and starts it again on the same
// data directory (on a new port).
func (s *Server) Restart() {
	s.t.Helper()
	if err := s.Stop(); err != nil {
		s.t.Fatalf("stop: %v\n%s", err, s.Output())
	}
	s.start()
}

// Request sends a request with the server's token; body may be nil, a
// string or []byte (sent as is), or a value (sent as JSON). The exchange is
// checked against the OpenAPI document (checkSpec).
func (s *Server) Request(method, path string, body any, header ...string) (int, []byte) {
	s.t.Helper()
	ex, err := s.send(s.http, method, path, body, header...)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	s.checkSpec(method, path, ex.sent, ex.reqHeader, ex.status, ex.respHeader, ex.data)
	return ex.status, ex.data
}

// Do is Request that never calls t (any goroutine may use it): a transport
// error answers status 0; the exchange is checked against the OpenAPI
// document and what departs from it is reported when the test ends.
func (s *Server) Do(method, path string, body any) (int, []byte) {
	ex, err := s.send(s.http, method, path, body)
	if err != nil {
		return 0, nil
	}
	s.noteSpec(ex, method, path)
	return ex.status, ex.data
}

// exchange is one request sent by send and its answer.
type exchange struct {
	sent       []byte
	reqHeader  http.Header
	status     int
	respHeader http.Header
	data       []byte
}

// send is the one request helper of the tests: it sends body (nil, a string
// or []byte as is, or a value as JSON) with the server's token through
// client, and never calls t, so any goroutine may use it; err is a
// transport error (or the client's timeout).
func (s *Server) send(client *http.Client, method, path string, body any, header ...string) (*exchange, error) {
	var sent []byte
	isJSON := false
	switch b := body.(type) {
	case nil:
	case string:
		sent = []byte(b)
	case []byte:
		sent = b
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			return nil, err
		}
		sent, isJSON = raw, true
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(sent)
	}
	if method == "GET" {
		s.turnHead(client, path)
		path = s.reads.with(path)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, s.URL+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+s.Token)
	if isJSON {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err == nil && method != "GET" && resp.StatusCode < 300 {
		s.reads.remember(resp.Header.Get("Turnstile-Position"), data)
	}
	return &exchange{sent: sent, reqHeader: req.Header, status: resp.StatusCode, respHeader: resp.Header, data: data}, err
}

// JSON sends body as JSON, checks the status, and decodes the answer into out.
func (s *Server) JSON(method, path string, body any, wantStatus int, out any) {
	s.t.Helper()
	status, data := s.Request(method, path, body)
	if status != wantStatus {
		s.t.Fatalf("%s %s: status %d, want %d: %s", method, path, status, wantStatus, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			s.t.Fatalf("%s %s: decoding %s: %v", method, path, data, err)
		}
	}
}

// Key is the server's public key, as clients pin it.
func (s *Server) Key() string {
	s.t.Helper()
	b, err := os.ReadFile(filepath.Join(s.Data, "server-key.pub"))
	if err != nil {
		s.t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// CLI runs a turnstile subcommand against this server.
func (s *Server) CLI(args ...string) (stdout, stderr string, code int) {
	s.t.Helper()
	full := append([]string{}, args...)
	if len(args) > 0 {
		switch args[0] {
		case "replay", "approvals", "exec", "bench", "audit":
			sub := 1
			if args[0] == "audit" || args[0] == "approvals" {
				sub = 2
			}
			if len(args) >= sub {
				full = append(append(append([]string{}, args[:sub]...), "--server", s.URL, "--data", s.Data), args[sub:]...)
			}
		}
	}
	// The CLI reads what the harness's commands did (TURNSTILE_AFTER).
	return runCLIAdd(s.t, s.reads.env(), full...)
}

// runCLI runs the binary with args.
func runCLI(t testing.TB, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runCLIAdd(t, nil, args...)
}

// testKey is a server key no test server holds, for hook install where no
// server runs.
const testKey = "ed25519:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

// serverData is each test server's data directory by its URL: the person
// at the suite's command line has pinned each server's key.
var serverData sync.Map

// pinKey is env (a command's whole environment) with TURNSTILE_SERVER_KEY
// added for the test server args (--server) or env (TURNSTILE_URL) name, as
// the person who started it has pinned its key, unless env or args give a
// key already.
func pinKey(env, args []string) []string {
	if key := keyFor(env, args); key != "" {
		return append(append([]string{}, env...), "TURNSTILE_SERVER_KEY="+key)
	}
	return env
}

// keyFor is the key of the test server args or env name, or "".
func keyFor(env, args []string) string {
	url := ""
	for _, e := range env {
		if strings.HasPrefix(e, "TURNSTILE_SERVER_KEY=") {
			return ""
		}
		if v, ok := strings.CutPrefix(e, "TURNSTILE_URL="); ok {
			url = v
		}
	}
	for i, a := range args {
		switch {
		case a == "--server-key" || strings.HasPrefix(a, "--server-key="):
			return ""
		case (a == "--server" || a == "-server") && i+1 < len(args):
			url = args[i+1]
		case strings.HasPrefix(a, "--server="):
			url = strings.TrimPrefix(a, "--server=")
		}
	}
	data, ok := serverData.Load(strings.TrimSuffix(url, "/"))
	if !ok {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(data.(string), "server-key.pub"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// runCLIAdd runs the binary with args and env added to the test's (and the
// key of the test server it names pinned).
func runCLIAdd(t testing.TB, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	if len(args) == 0 || args[0] != "hook" {
		cmd.Env = pinKey(cmd.Env, args)
	}
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return o.String(), e.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), 0
}

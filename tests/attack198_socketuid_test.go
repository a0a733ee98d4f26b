package tests

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"turnstile/internal/peeruid"
	"turnstile/internal/serverid"
)

// TestAttack198_ServerUidSocketPassesForTheServer (review 198): a socket
// belongs to the user that created it, wherever it goes. A full_access
// command runs as the server's user, creates a socket and hands it (over a
// unix socket, SCM_RIGHTS; here by inheritance, the same descriptor) to a
// process of the agent outside turnstile, which binds the server's port with
// it while the server is down. The clients' check of the listener's owner
// (root, themselves or --server-user) passes, and `turnstile approvals`
// sent that process the approver's token; the hook would have taken its
// "allow".
//
// Fix: a client sends a credential on a connection to an http:// server only
// once that connection proved it reaches the holder of the server's key
// (pinned: --server-key / TURNSTILE_SERVER_KEY, the data directory's
// server-key.pub, or the hook's command line as hook install writes it): the
// server signs the client's nonce and the addresses it listens on. A relay
// to the real server at another address is refused too: the server signed
// for its own address, not the one the client reached.
func TestAttack198_ServerUidSocketPassesForTheServer(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to hand a root socket to another user")
	}
	copies := readableCopies(t, os.Args[0], bin)
	testBin, turnstileBin := copies[0], copies[1]
	ws := t.TempDir()
	s := ccServer(t, ws, "supervised", nil)
	key, err := os.ReadFile(filepath.Join(s.Data, serverid.PubFile))
	if err != nil {
		t.Fatal(err)
	}
	pinned := strings.TrimSpace(string(key))
	approver := createCredential(t, s, "alice198", "approver")
	clean := []string{}
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "TURNSTILE_") {
			clean = append(clean, e)
		}
	}
	cli := func(env []string, stdin []byte, args ...string) (string, int) {
		cmd := exec.Command(turnstileBin, args...)
		cmd.Env = append(append([]string{}, clean...), env...)
		cmd.Stdin = bytes.NewReader(stdin)
		var o bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &o
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return o.String(), ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return o.String(), 0
	}
	pinEnv := []string{"TURNSTILE_TOKEN=" + approver, "TURNSTILE_SERVER_KEY=" + pinned}

	// Control: the real server proves its key; the approver's command and
	// the hook (its key on its command line) work.
	if out, code := cli(pinEnv, nil, "approvals", "list", "--server", s.URL); code != 0 {
		t.Fatalf("approvals list to the real server, key pinned: exit %d %s", code, out)
	}
	if out, code := cli([]string{"TURNSTILE_TOKEN=" + approver}, nil, "approvals", "list", "--server", s.URL, "--data", s.Data); code != 0 {
		t.Fatalf("approvals list to the real server, key from --data: exit %d %s", code, out)
	}
	pre := ccPayload(t, "pre_read", "sess-198", ws)
	if out, code := cli([]string{"TURNSTILE_TOKEN=" + s.Token}, pre, "hook", "claude-code", "--server", s.URL, "--server-key", pinned); code != 0 || !strings.Contains(out, `"allow"`) {
		t.Fatalf("hook --server-key to the real server: exit %d %s", code, out)
	}

	// A relay: while the server is up, the agent's process listens
	// elsewhere on a socket of the server's user and relays every byte to
	// the server, which proves its key to whoever asks.
	relay := startSocketImpostor(t, testBin, "127.0.0.1:0", strings.TrimPrefix(s.URL, "http://"))
	out, code := cli(pinEnv, nil, "approvals", "list", "--server", relay.URL)
	if seen := relay.stop(); code == 0 || strings.Contains(seen, approver) || !strings.Contains(out, "nothing was sent") || !strings.Contains(out, "relayed") {
		t.Errorf("approvals list through a relay to the real server: exit %d\n%s\nthe relay carried: %q", code, out, seen)
	} else if !strings.Contains(seen, serverid.Path) {
		t.Errorf("the relay carried no proof request (%q): the refusal is not the proof's", seen)
	}

	// The server goes down; the agent's process takes its port.
	addr := strings.TrimPrefix(s.URL, "http://")
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	im := startSocketImpostor(t, testBin, addr, "")
	// What the owner check alone sees: root, the server's user.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	uid, err := peeruid.Of(c)
	c.Close()
	if err != nil || uid != 0 {
		t.Fatalf("the agent's listener should be owned by root (the socket's creator), not %d (%v)", uid, err)
	}
	for _, tc := range []struct {
		name string
		env  []string
		args []string
	}{
		{"key pinned", pinEnv, nil},
		{"key from --data", []string{"TURNSTILE_TOKEN=" + approver}, []string{"--data", s.Data}},
		{"no key", []string{"TURNSTILE_TOKEN=" + approver}, nil},
	} {
		out, code := cli(tc.env, nil, append([]string{"approvals", "list", "--server", s.URL}, tc.args...)...)
		if code == 0 || !strings.Contains(out, "nothing was sent") || strings.Contains(out, "runs as uid") {
			t.Errorf("%s: approvals list to the agent's listener: exit %d\n%s", tc.name, code, out)
		}
	}
	out, code = cli([]string{"TURNSTILE_TOKEN=" + s.Token}, ccPayload(t, "pre_bash", "sess-198b", ws), "hook", "claude-code", "--server", s.URL, "--server-key", pinned)
	if code != 2 || !strings.Contains(out, "blocked") {
		t.Errorf("hook --server-key to the agent's listener: exit %d %s", code, out)
	}
	// hook install given the data directory refuses the listener that
	// proves another key than the directory's.
	if out, code := cli(nil, nil, "hook", "install", "claude-code", "--project", ws, "--print", "--server", s.URL, "--data", s.Data); code == 0 || !strings.Contains(out, "not "+pinned) || strings.Contains(out, `"command"`) {
		t.Errorf("hook install --data against the agent's listener: exit %d %s", code, out)
	}
	seen := im.stop()
	if strings.Contains(seen, approver) || strings.Contains(seen, s.Token) || strings.Contains(seen, "/v1/hooks") || strings.Contains(seen, "/v1/approvals") {
		t.Errorf("the agent's listener received a credential or a question:\n%s", seen)
	}
	if !strings.Contains(seen, serverid.Path) {
		t.Errorf("the agent's listener was never asked for a proof (%q): the clients did not reach it", seen)
	}
}

// createCredential makes a credential on s and returns its token.
func createCredential(t *testing.T, s *Server, name, role string) string {
	t.Helper()
	var out struct {
		Token string `json:"token"`
	}
	s.JSON("POST", "/v1/credentials", map[string]any{"name": name, "role": role}, http.StatusCreated, &out)
	if out.Token == "" {
		t.Fatal("no token")
	}
	return out.Token
}

// startSocketImpostor hands a TCP socket made here (root's) to the test
// binary run as uid 65534, which binds it to addr; with relay it pipes every
// connection to relay, else it answers as a server of its own key.
func startSocketImpostor(t *testing.T, testBin, addr, relay string) *impostor {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(fd), "root-socket")
	defer f.Close()
	return spawnImpostor(t, testBin, []string{"TURNSTILE_TEST_SOCKET_IMPOSTOR=" + addr, "TURNSTILE_TEST_SOCKET_RELAY=" + relay}, []*os.File{f})
}

// serveSocketImpostor is the impostor's side (TestMain): fd 3 is the socket.
func serveSocketImpostor() bool {
	addr, ok := os.LookupEnv("TURNSTILE_TEST_SOCKET_IMPOSTOR")
	if !ok {
		return false
	}
	fail := func(err error) bool { fmt.Println("error", err); os.Exit(1); return true }
	ap, err := net.ResolveTCPAddr("tcp4", addr)
	if err != nil {
		return fail(err)
	}
	sa := &syscall.SockaddrInet4{Port: ap.Port}
	copy(sa.Addr[:], ap.IP.To4())
	if err := syscall.SetsockoptInt(3, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err != nil {
		return fail(err)
	}
	// An accepted socket is the accepting process's (sock_graft); one not
	// yet accepted is still the listener's creator's. The agent accepts a
	// connection only once data arrived on it, so a client that asks the
	// kernel before it sends sees root.
	if err := syscall.SetsockoptInt(3, syscall.IPPROTO_TCP, syscall.TCP_DEFER_ACCEPT, 30); err != nil {
		return fail(err)
	}
	if err := syscall.Bind(3, sa); err != nil {
		return fail(err)
	}
	if err := syscall.Listen(3, 16); err != nil {
		return fail(err)
	}
	ln, err := net.FileListener(os.NewFile(3, "socket"))
	if err != nil {
		return fail(err)
	}
	fmt.Println("listening", ln.Addr())
	var mu sync.Mutex
	logf := func(format string, a ...any) { mu.Lock(); fmt.Printf(format, a...); mu.Unlock() }
	relay := os.Getenv("TURNSTILE_TEST_SOCKET_RELAY")
	go func() {
		if relay == "" {
			_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				logf("request %s %s auth=%q\n", r.Method, r.URL.String(), r.Header.Get("Authorization"))
				if r.URL.Path == serverid.Path {
					// A proof of a key of its own, for the address it holds.
					dir, _ := os.MkdirTemp("", "impostor-key-")
					id, _, err := serverid.LoadOrCreate(dir)
					os.RemoveAll(dir)
					if err != nil {
						http.Error(w, err.Error(), 500)
						return
					}
					id.SetAddresses([]string{ln.Addr().String()})
					nonce, _ := hex.DecodeString(r.URL.Query().Get("nonce"))
					json.NewEncoder(w).Encode(id.Sign(nonce))
					return
				}
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"},"requests":[]}`)
			}))
			return
		}
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				up, err := net.Dial("tcp", relay)
				if err != nil {
					return
				}
				defer up.Close()
				go io.Copy(c, up)
				buf := make([]byte, 4096)
				for {
					n, err := c.Read(buf)
					if n > 0 {
						logf("relayed %q\n", buf[:n])
						up.Write(buf[:n])
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	_, _ = os.Stdin.Read(make([]byte, 1))
	return true
}

package tests

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// impostor33 is a listener on 127.0.0.1 of uid 65534: one OS thread whose
// fsuid is 65534 opens it and accepts on it (a socket's owner is the fsuid
// of the thread that creates it, and of the one that accepts it), exactly as
// a process of that user would. deferAccept sets TCP_DEFER_ACCEPT, which any
// user may set on its own listener.
type impostor33 struct {
	fd   int
	addr string
	got  chan string
}

func startImpostor33(t *testing.T, deferAccept bool) *impostor33 {
	t.Helper()
	im := &impostor33{got: make(chan string, 1)}
	ready := make(chan error, 1)
	go func() {
		// The thread ends with this goroutine (still locked): its fsuid
		// goes with it.
		runtime.LockOSThread()
		if _, _, e := syscall.RawSyscall(syscall.SYS_SETFSGID, 65534, 0, 0); e != 0 {
			ready <- e
			return
		}
		syscall.RawSyscall(syscall.SYS_SETFSUID, 65534, 0, 0)
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err == nil && deferAccept {
			err = syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_DEFER_ACCEPT, 30)
		}
		if err == nil {
			err = syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}})
		}
		if err == nil {
			err = syscall.Listen(fd, 16)
		}
		var sa syscall.Sockaddr
		if err == nil {
			sa, err = syscall.Getsockname(fd)
		}
		if err != nil {
			ready <- err
			return
		}
		im.fd = fd
		im.addr = fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
		ready <- nil
		nfd, _, err := syscall.Accept(fd)
		if err != nil {
			im.got <- ""
			return
		}
		c := os.NewFile(uintptr(nfd), "conn")
		defer c.Close()
		req, err := http.ReadRequest(bufio.NewReader(c))
		if err != nil {
			im.got <- "error " + err.Error()
			return
		}
		im.got <- "auth=" + req.Header.Get("Authorization") + " path=" + req.URL.Path
		body := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"},"requests":[]}`
		c.Write([]byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(body), body)))
	}()
	if err := <-ready; err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { im.stop() })
	return im
}

// stop closes the listener and returns what it received ("" for nothing).
func (im *impostor33) stop() string {
	if im.fd > 0 {
		syscall.Shutdown(im.fd, syscall.SHUT_RDWR) // a waiting accept returns
		seen := <-im.got
		syscall.Close(im.fd)
		im.fd = 0
		im.got <- seen
	}
	seen := <-im.got
	im.got <- seen
	return seen
}

// TestAttack33DeferAcceptListenerPassesAsRoot: the client's check asks the
// kernel (sock_diag, by the four-tuple) who owns the far end of the
// connection it has just made. A listener with TCP_DEFER_ACCEPT (any user
// may set it on its own socket) keeps the server side of a fresh connection
// a request socket (TCP_NEW_SYN_RECV) until data arrives: the handshake's
// ACK is dropped. The kernel reports a request socket's uid as 0
// (inet_req_diag_fill), so the client takes the agent's listener for root's
// and sends it the approver's token; the hook (as install writes it,
// --server-user 0) sends its question and gets "allow". The same listener
// without TCP_DEFER_ACCEPT is refused (control).
func TestAttack33DeferAcceptListenerPassesAsRoot(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		t.Skip("needs root to make a socket of uid 65534")
	}
	const secret = "approver-secret-token-0123456789"
	clean := []string{}
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "TURNSTILE_") {
			clean = append(clean, e)
		}
	}
	copies := readableCopies(t, bin)
	turnstileBin := copies[0]
	run := func(uid uint32, env []string, stdin []byte, args ...string) (string, int) {
		cmd := exec.Command(turnstileBin, args...)
		cmd.Env = append(append([]string{}, clean...), env...)
		if uid != 0 {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
		}
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

	// Control: uid 65534's plain listener is refused, nothing is sent.
	im := startImpostor33(t, false)
	out, code := run(0, []string{"TURNSTILE_TOKEN=" + secret}, nil, "approvals", "list", "--server", "http://"+im.addr)
	if seen := im.stop(); code == 0 || strings.Contains(seen, secret) || !strings.Contains(out, "runs as uid 65534") {
		t.Fatalf("control: approvals list to uid 65534's plain listener: exit %d %s\nthe listener received %q", code, out, seen)
	}

	// The attack: the same user's listener with TCP_DEFER_ACCEPT.
	im = startImpostor33(t, true)
	out, code = run(0, []string{"TURNSTILE_TOKEN=" + secret}, nil, "approvals", "list", "--server", "http://"+im.addr)
	if seen := im.stop(); strings.Contains(seen, secret) {
		t.Errorf("approvals list sent the approver's token to uid 65534's TCP_DEFER_ACCEPT listener (exit %d %s)\nthe listener received %q", code, out, seen)
	}

	// The hook as hook install writes it (--server-user 0), run as the
	// agent's user: its question goes to the agent's listener, which answers
	// "allow".
	ws := t.TempDir()
	pre := ccPayload(t, "pre_bash", "sess-peer33", ws)
	agentEnv := []string{"TURNSTILE_TOKEN=runtime-token-0123456789", "HOME=/"}
	im = startImpostor33(t, true)
	out, code = run(65534, agentEnv, pre, "hook", "claude-code", "--server", "http://"+im.addr, "--server-user", "0")
	if seen := im.stop(); strings.Contains(seen, "/v1/hooks/claude-code") || code == 0 {
		t.Errorf("hook --server-user 0 asked uid 65534's TCP_DEFER_ACCEPT listener: exit %d\n%s\nthe listener received %q", code, out, seen)
	}
}

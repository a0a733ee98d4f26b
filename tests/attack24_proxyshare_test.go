package tests

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestAttack24ProxyBoundTakenByOneCredential: the egress proxy bounds each
// command's listener (256 connections) and all of them together (a quarter
// of the server's descriptor limit, at most 4,096; sandbox/egress/limit.go),
// but nothing shares the whole among credentials: a credential's commands
// take slots of the common bound as long as their own listeners have room.
// So the agent runs commands that each open their 256 connections and keep
// them (sixteen at the default limit; two here, under a server of 2,048
// descriptors, whose proxy holds 512), and every other credential's
// sandboxed command is then answered 503 "the proxy holds as many
// connections as it may" on its first connection: its network is gone
// until the agent's commands end (their timeout, up to 30 minutes). The
// same shape as the body budget before review 15 (one credential holds at
// most half of it, so that the agent cannot keep other credentials'
// requests refused). Wanted: a credential's (and a turn's) connections
// hold at most a share of the proxy's bound, past which its own are
// refused and others' still get in.
// Control: the other credential's command reaches the proxy when the
// agent holds nothing, and the agent's commands hold their connections.
func TestAttack24ProxyBoundTakenByOneCredential(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the egress proxy needs a root server")
	}
	wrapper := nofileBin(t, 2048)
	file := filepath.Join(t.TempDir(), "profiles.toml")
	os.WriteFile(file, []byte(egressProfiles), 0o644)
	s := StartServerBin(t, wrapper, "", "--profiles", file)
	agent := roAs(s, s.credential("agent", "runtime"))
	other := roAs(s, s.credential("other", "runtime"))
	root, otherRoot := workspace(t), workspace(t)
	if st, body := startProfileTurn(agent, "agent-web", root, map[string]any{"profile": "web"}); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, body)
	}
	// The agent's two commands run at once over two workspaces of two
	// turns: over one root they would run one at a time (review 137).
	root2 := workspace(t)
	if st, body := startProfileTurn(agent, "agent-web2", root2, map[string]any{"profile": "web"}); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, body)
	}
	roots := map[string][2]string{"1": {"agent-web", root}, "2": {"agent-web2", root2}}
	if st, body := startProfileTurn(other, "other-web", otherRoot, map[string]any{"profile": "web"}); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, body)
	}
	// reach is the other credential's command: one request through its
	// proxy (to a port nothing listens on), and the proxy's first line.
	dead := "127.0.0.1:" + strconv.Itoa(refusedPort(t))
	reach := func(call string) string {
		script := `exec 3<>/dev/tcp/127.0.0.1/3128 || exit 9; printf 'GET http://` + dead + `/ HTTP/1.1\r\nHost: ` + dead + `\r\nConnection: close\r\n\r\n' >&3; head -c 200 <&3`
		st, d := other.exec("other-web", "", map[string]any{"tool_call_id": call, "argv": []string{"/bin/bash", "-c", script}, "cwd": otherRoot, "timeout_ms": 20000})
		if st != http.StatusOK || !d.Ran || d.Result == nil {
			t.Fatalf("the other credential's command %s: %d %+v", call, st, d)
		}
		status, _, _ := strings.Cut(d.Result.Stdout, "\r\n")
		_, body, _ := strings.Cut(d.Result.Stdout, "\r\n\r\n")
		return strings.TrimSpace(status + " " + body)
	}
	if got := reach("before"); strings.Contains(got, " 503 ") || got == "" {
		t.Fatalf("control: the other credential's command before the agent's: %q", got)
	} else if testing.Verbose() {
		t.Logf("control: %q", got)
	}
	fds := func() int {
		e, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", s.cmd.Process.Pid))
		return len(e)
	}
	base := fds()
	// Two commands of the agent, each holding its listener's 256
	// connections until the test releases them.
	hold := `n=0; while [ $n -lt 256 ]; do exec {fd}<>/dev/tcp/127.0.0.1/3128 || break; n=$((n+1)); done; echo "opened $n"; touch "held.$0"; while [ ! -e release ]; do sleep 0.05; done`
	done := make(chan string, 2)
	for _, j := range []string{"1", "2"} {
		go func() {
			st, raw := agent.Do("POST", "/v1/turns/"+roots[j][0]+"/exec", map[string]any{"tool_call_id": "hold-" + j, "argv": []string{"/bin/bash", "-c", hold, j}, "cwd": roots[j][1], "timeout_ms": 60000})
			done <- fmt.Sprintf("%d %.300s", st, raw)
		}()
	}
	release := func() {
		os.WriteFile(filepath.Join(root, "release"), nil, 0o644)
		os.WriteFile(filepath.Join(root2, "release"), nil, 0o644)
	}
	t.Cleanup(release)
	for _, j := range []string{"1", "2"} {
		if !waitFile(filepath.Join(roots[j][1], "held."+j), done) {
			t.Fatalf("the agent's command ended before it held its connections: %s", <-done)
		}
	}
	// The proxy accepted what the agent may hold: its commands together a
	// quarter of the proxy's 512 (the rest answered 503 and closed), 128
	// more descriptors in the server.
	waitUntil(t, "the proxy holding the agent's connections", func() (bool, string) {
		n := fds()
		return n >= base+128, fmt.Sprintf("%d descriptors, %d at the start", n, base)
	})
	got := reach("during")
	release()
	for range 2 {
		if out := <-done; !strings.HasPrefix(out, "200 ") {
			t.Errorf("the agent's command: %s", out)
		}
	}
	if strings.Contains(got, " 503 ") || got == "" {
		t.Errorf("while one runtime credential's two commands held 512 connections to their proxies, another credential's command was refused by its own: %q; want the proxy's bound shared among credentials", got)
	}
}

// refusedPort is a loopback TCP port that refuses connections until the
// test ends: a socket bound to it that never listens holds it, so no other
// test can take it (a port listened on and closed could be).
func refusedPort(t testing.TB) int {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return sa.(*syscall.SockaddrInet4).Port
}

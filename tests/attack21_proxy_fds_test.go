package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAttack21ProxyConnectionsExhaustTheServer: the egress proxy a
// restricted command reaches at 127.0.0.1:3128 is served by the server
// process itself, and nothing bounds how many connections one command
// holds open to it: every one is a descriptor (and a goroutine) of the
// server. A command inherits the server's RLIMIT_NOFILE and may fork, so
// a shell loop that opens connections to the proxy and keeps them
// (sending nothing, or one request and idling, up to the proxy's
// IdleTimeout of 2 min; an allowed CONNECT holds two for as long as the
// upstream stays open) takes the server's descriptor table: the server
// then accepts nothing, not its API, not another turn's proxy, and opens
// no file, until the command ends. Run here under a server limited to 1024
// descriptors so that the command needs few; the default limit only
// changes the count. Wanted: a bound per command (and per turn) on the
// proxy connections it holds, well under the server's own limit (refused,
// or not accepted, past it), and idle ones closed sooner.
// Control: while no command holds connections, the API answers.
func TestAttack21ProxyConnectionsExhaustTheServer(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true: the egress proxy needs a root server")
		}
		t.Skip("the egress proxy needs a root server")
	}
	wrapper := filepath.Join(t.TempDir(), "turnstile-nofile")
	os.WriteFile(wrapper, []byte("#!/bin/sh\nulimit -n 1024 || exit 1\nexec "+bin+" \"$@\"\n"), 0o755)
	file := filepath.Join(t.TempDir(), "profiles.toml")
	os.WriteFile(file, []byte(egressProfiles), 0o644)
	s := StartServerBin(t, wrapper, "", "--profiles", file, "--listen", "127.0.0.1:19111")
	root := workspace(t)
	if st, body := startProfileTurn(s, "fd", root, map[string]any{"profile": "web"}); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, body)
	}
	probe := &http.Client{Timeout: 3 * time.Second}
	healthy := func() error {
		resp, err := probe.Get("http://" + strings.TrimPrefix(s.URL, "http://") + "/healthz")
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	}
	if err := healthy(); err != nil {
		t.Fatalf("control: the API before the command: %v", err)
	}
	// Two subshells, each holding up to 700 idle connections to the proxy
	// for 12 s: a few hundred more than the server has left.
	script := `for j in 1 2; do ( n=0; while [ $n -lt 700 ]; do exec {fd}<>/dev/tcp/127.0.0.1/3128 || break; n=$((n+1)); done; echo "held $n"; sleep 12 ) & done; wait`
	done := make(chan string, 1)
	go func() {
		st, raw := s.Request("POST", "/v1/turns/fd/exec", map[string]any{"tool_call_id": "hold", "argv": []string{"/bin/bash", "-c", script}, "timeout_ms": 30000})
		done <- http.StatusText(st) + " " + string(raw)
	}()
	time.Sleep(6 * time.Second)
	err := healthy()
	out := <-done
	if err != nil {
		t.Errorf("while a sandboxed command of one turn held idle connections to its egress proxy, the server's API did not answer: %v (the command: %.400s)", err, out)
	}
	// Control: once the command ended, the API answers again.
	time.Sleep(time.Second)
	if err := healthy(); err != nil {
		t.Errorf("control: the API after the command: %v", err)
	}
}

package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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
	wrapper := nofileBin(t, 1024)
	file := filepath.Join(t.TempDir(), "profiles.toml")
	os.WriteFile(file, []byte(egressProfiles), 0o644)
	s := StartServerBin(t, wrapper, "", "--profiles", file)
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
	// Two subshells, each holding up to 700 connections to the proxy (a
	// few hundred more than the server has descriptors left) until the
	// test has asked the API, then counting the connections the proxy
	// refused (its 503 answer waits on them: nothing else is sent on a
	// connection before a request, so any byte is that answer, and a line
	// a read's timeout cut in two is counted once) and those it keeps open
	// (read again until a pass finds no new answer: a connection the
	// server has not accepted yet gets its 503 late).
	script := `for j in 1 2; do ( n=0; while [ $n -lt 700 ]; do exec {fd}<>/dev/tcp/127.0.0.1/3128 || break; fds="$fds $fd"; n=$((n+1)); done
	touch "held.$j"; while [ ! -e release ]; do sleep 0.05; done
	refused=0; pending="$fds"
	for try in 1 2 3 4 5 6 7 8 9 10; do still=""; got=0
	  for fd in $pending; do line=""; read -t 0.01 -r line <&$fd; if [ -n "$line" ]; then got=1; refused=$((refused+1)); else still="$still $fd"; fi; done
	  pending="$still"; [ $got = 0 ] && break; sleep 0.2; done
	open=$(echo $pending | wc -w)
	echo "held $n refused $refused open $open" ) & done; wait`
	done := make(chan string, 1)
	go func() {
		st, raw := s.Request("POST", "/v1/turns/fd/exec", map[string]any{"tool_call_id": "hold", "argv": []string{"/bin/bash", "-c", script}, "cwd": root, "timeout_ms": 60000})
		done <- http.StatusText(st) + " " + string(raw)
	}()
	for _, j := range []string{"1", "2"} {
		if !waitFile(filepath.Join(root, "held."+j), done) {
			t.Fatalf("the command ended before it held its connections: %.600s", <-done)
		}
	}
	err := healthy()
	if err := os.WriteFile(filepath.Join(root, "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out := <-done
	if err != nil {
		t.Errorf("while a sandboxed command of one turn held idle connections to its egress proxy, the server's API did not answer: %v (the command: %.400s)", err, out)
	}
	// Each subshell opened its 700 connections; the proxy kept at most its
	// bound of them (256 a listener) and refused the rest with a 503.
	m := regexp.MustCompile(`held (\d+) refused (\d+) open (\d+)`).FindAllStringSubmatch(out, -1)
	if len(m) != 2 {
		t.Fatalf("the command's counts: %.600s", out)
	}
	kept, refused := 0, 0
	for _, c := range m {
		if c[1] != "700" {
			t.Errorf("a subshell opened %s connections, not 700: %.600s", c[1], out)
		}
		n, _ := strconv.Atoi(c[3])
		r, _ := strconv.Atoi(c[2])
		kept, refused = kept+n, refused+r
	}
	if kept > 256 || refused < 1400-256 {
		t.Errorf("the proxy kept %d connections of one command open and refused %d with a 503, want at most 256 and the rest refused: %.600s", kept, refused, out)
	}
	// Control: once the command ended, the API answers again.
	if err := healthy(); err != nil {
		t.Errorf("control: the API after the command: %v", err)
	}
}

// waitFile waits for path to exist, or for done to have a value (which it
// leaves there); it reports whether the file came.
func waitFile(path string, done chan string) bool {
	for {
		if _, err := os.Stat(path); err == nil {
			return true
		}
		select {
		case v := <-done:
			done <- v
			return false
		case <-time.After(20 * time.Millisecond): // polls for the file
		}
	}
}

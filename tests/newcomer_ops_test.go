package tests

import (
	"bufio"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"turnstile/internal/esdbtest"
)

// TestServeLogsStoreOutage starts `serve` on an EventStoreDB address where
// nothing listens: it logs the outage at start and at each check while it
// lasts; then an EventStoreDB (the in-process test server) comes up on
// that address, and the same check logs that it is reachable again.
func TestServeLogsStoreOutage(t *testing.T) {
	t.Parallel()
	addr := strings.TrimPrefix(closedURL(t), "http://")
	cmd := exec.Command(bin, "serve", "--data", t.TempDir(), "--listen", "127.0.0.1:0",
		"--store", "esdb://"+addr+"?tls=false", "--store-unauthenticated", "--store-timeout", "1s", "--store-check-interval", "300ms")
	cmd.Env = cleanEnv()
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan string, 1000)
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var seen []string
	waitFor := func(want string) {
		t.Helper()
		timeout := time.After(60 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("serve exited before %q:\n%s", want, strings.Join(seen, "\n"))
				}
				seen = append(seen, l)
				if strings.Contains(l, want) {
					return
				}
			case <-timeout:
				t.Fatalf("serve never logged %q:\n%s", want, strings.Join(seen, "\n"))
			}
		}
	}
	waitFor("listening on")
	waitFor("the event store is unreachable")
	waitFor("the event store is unreachable") // again, while it lasts
	srv := esdbtest.NewServer()
	if err := srv.Serve(addr); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	waitFor("the event store is reachable again")
}

// TestBenchUsesItsOwnWorkspace runs bench twice: each run says which
// workspace its permanent turns go to, a new one each time, and its turns
// are in that workspace.
func TestBenchUsesItsOwnWorkspace(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	var workspaces []string
	for range 2 {
		_, errOut, code := s.CLI("bench", "--turns", "2", "--decisions", "10")
		if code != 0 {
			t.Fatalf("bench: %d\n%s", code, errOut)
		}
		m := regexp.MustCompile(`turnstile bench: writing 2 turns \((bench-[0-9a-f]+)-0…1\) in workspace (\S+) to the store of (\S+);`).FindStringSubmatch(errOut)
		if m == nil || m[3] != s.URL {
			t.Fatalf("bench does not say where it writes:\n%s", errOut)
		}
		if !strings.Contains(errOut, "they stay in its audit log") {
			t.Fatalf("bench does not say its turns are permanent:\n%s", errOut)
		}
		turnID, ws := m[1]+"-0", m[2]
		var got struct {
			Turn struct {
				WorkspaceID string `json:"workspace_id"`
			} `json:"turn"`
		}
		s.JSON("GET", "/v1/turns/"+turnID, nil, 200, &got)
		if got.Turn.WorkspaceID != ws || !strings.HasPrefix(ws, "bench-") {
			t.Fatalf("bench turn %s is in workspace %q; bench said %q", turnID, got.Turn.WorkspaceID, ws)
		}
		workspaces = append(workspaces, ws)
	}
	if workspaces[0] == workspaces[1] {
		t.Fatalf("two bench runs share workspace %s", workspaces[0])
	}
}

package tests

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestAttack14EgressAfterRevocation: a runtime credential's proxy URL
// (GET /v1/turns/{id}/egress) kept working after the credential was
// revoked: its new connections were decided and carried as before, and a
// tunnel it had open stayed open, for as long as the turn lived (another
// credential may keep it open). Revocation is in force at once on every
// other surface (the API, event streams, waits, the hook). The proxy now
// refuses a revoked credential's new connections (credential_revoked) and
// closes those it has open. The control: another runtime credential's
// URL for the same turn reaches the same origin after the revocation.
func TestAttack14EgressAfterRevocation(t *testing.T) {
	t.Parallel()
	s, root := egressServer(t)
	origin := egressOrigin(t, "allowed-origin")
	echo := echoListener(t)
	agent := roAs(s, s.credential("agent", "runtime"))
	other := roAs(s, s.credential("other", "runtime"))
	if st, body := startProfileTurn(other, "r1", root, map[string]any{"profile": "web"}); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, body)
	}
	proxyOf := func(c *Server) *url.URL {
		var eg struct {
			ProxyURL string `json:"proxy_url"`
		}
		c.JSON("GET", "/v1/turns/r1/egress", nil, http.StatusOK, &eg)
		u, err := url.Parse(eg.ProxyURL)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	get := func(pu *url.URL) (int, string) {
		c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu), DisableKeepAlives: true}, Timeout: 30 * time.Second}
		resp, err := c.Get("http://" + origin + "/")
		if err != nil {
			t.Fatalf("get through %s: %v", pu.Host, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("X-Turnstile-Refusal") + " " + string(b)
	}
	ap, op := proxyOf(agent), proxyOf(other)
	if st, body := get(ap); st != http.StatusOK || !strings.Contains(body, "allowed-origin") {
		t.Fatalf("control: the agent's URL before the revocation: %d %s", st, body)
	}
	// A tunnel the agent holds open.
	conn, err := net.Dial("tcp", ap.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	pass, _ := ap.User.Password()
	auth := base64.StdEncoding.EncodeToString([]byte(ap.User.Username() + ":" + pass))
	fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\nProxy-Authorization: Basic %s\r\n\r\n", echo, echo, auth)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("control: a tunnel before the revocation: %v %v", resp, err)
	}
	fmt.Fprintf(conn, "one\n")
	if line, err := br.ReadString('\n'); err != nil || line != "one\n" {
		t.Fatalf("control: the tunnel echoes: %q %v", line, err)
	}
	if st, b := s.Do("POST", "/v1/credentials/agent/revoke", nil); st != http.StatusOK {
		t.Fatalf("revoke: %d %s", st, b)
	}
	if st, _ := agent.Do("GET", "/v1/turns/r1", nil); st != http.StatusUnauthorized {
		t.Fatalf("control: the revoked credential on the API: %d", st)
	}
	if st, body := get(ap); st == http.StatusOK {
		t.Errorf("the revoked credential's proxy URL still carries new connections: %d %s", st, body)
	}
	// The tunnel is closed within the proxy's recheck: echo until it is,
	// for at most 10 s.
	deadline := time.Now().Add(10 * time.Second)
	conn.SetDeadline(deadline)
	for time.Now().Before(deadline) {
		fmt.Fprintf(conn, "two\n")
		if _, err := br.ReadString('\n'); err != nil {
			break
		}
	}
	if !time.Now().Before(deadline) {
		t.Errorf("the revoked credential's tunnel is still open 10 s after the revocation")
	}
	if st, body := get(op); st != http.StatusOK || !strings.Contains(body, "allowed-origin") {
		t.Errorf("control: another credential's URL for the same turn after the revocation: %d %s", st, body)
	}
	// A token rotated: the name is given to a new credential. The old URL
	// names the revoked credential, not the name, and stays refused; the
	// new credential's own URL works (control).
	rotated := roAs(s, s.credential("agent", "runtime"))
	if st, body := get(ap); st == http.StatusOK {
		t.Errorf("the revoked credential's proxy URL carries connections again once its name is reused: %d %s", st, body)
	}
	if st, body := get(proxyOf(rotated)); st != http.StatusOK || !strings.Contains(body, "allowed-origin") {
		t.Errorf("control: the new credential's own URL: %d %s", st, body)
	}
}

// echoListener serves lines back on a loopback TCP port; it returns the
// address.
func echoListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				io.Copy(c, c)
			}()
		}
	}()
	return ln.Addr().String()
}

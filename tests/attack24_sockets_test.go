package tests

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestAttack24SocketsExhaustTheServer: the agent holds the runtime's
// credential, and GET /rpc (the JSON-RPC WebSocket) is open to that role
// (service.read). Nothing bounds how many sockets one credential holds
// open: a socket is hijacked from net/http, so neither --read-timeout nor
// --idle-timeout applies to it any more, and a runtime's socket (which is
// pushed no notifications) is never written to, so the write deadline
// never fires either: a socket that says nothing stays open for as long as
// its credential lasts. Each is a descriptor, two goroutines and a
// credential check every second. So the agent opens sockets until the
// server's descriptor table is full; the server then accepts nothing: not
// an approver's answer in the console, not another runtime's decision, not
// /healthz, and opens no file (the store's segments, a command's pipes).
// Run here under a server limited to 1,024 descriptors so that the agent
// needs few; the default limit only changes the count (and the per-second
// credential checks grow with it). Wanted: a bound per credential on the
// long-lived connections it holds (sockets, event streams, long polls),
// well under the server's descriptor limit, and a bound on the API
// listener's connections that leaves room for other credentials (as the
// egress proxy has, sandbox/egress/limit.go); past it a socket is refused
// (429 or 503) rather than accepted.
// Control: the agent's first sockets open and answer a call, and an
// approver is answered while the agent holds what it may.
func TestAttack24SocketsExhaustTheServer(t *testing.T) {
	wrapper := nofileBin(t, 1024)
	s := StartServerBin(t, wrapper, "")
	agent := s.credential("agent", "runtime")
	person := roAs(s, s.credential("person", "approver"))
	addr := strings.TrimPrefix(s.URL, "http://")
	// open upgrades one socket as the agent and reports whether the server
	// answered 101 (within 3 s: a server out of descriptors accepts
	// nothing, and the connection waits in the kernel's backlog).
	var held, waiting []net.Conn
	t.Cleanup(func() {
		for _, c := range append(held, waiting...) {
			c.Close()
		}
	})
	open := func() (ok bool, why string) {
		c, err := net.DialTimeout("tcp", addr, 3*time.Second)
		if err != nil {
			return false, err.Error()
		}
		c.SetDeadline(time.Now().Add(3 * time.Second))
		_, err = c.Write([]byte("GET /rpc HTTP/1.1\r\nHost: " + addr + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
			"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nOrigin: " + s.URL + "\r\n" +
			"Authorization: Bearer " + agent + "\r\n\r\n"))
		if err != nil {
			c.Close()
			return false, err.Error()
		}
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil || !strings.Contains(line, " 101 ") {
			// Left open: a connection the server has not accepted yet
			// waits in its backlog and takes the next descriptor freed.
			waiting = append(waiting, c)
			return false, strings.TrimSpace(line) + " " + errString(err)
		}
		c.SetDeadline(time.Time{})
		held = append(held, c)
		return true, ""
	}
	// Control: the agent's first socket opens.
	if ok, why := open(); !ok {
		t.Fatalf("control: the agent's first socket: %s", why)
	}
	// Then sockets until the server accepts no more (three in a row
	// unanswered), or 1,200.
	why := ""
	for failed := 0; len(held) < 1200 && failed < 3; {
		var ok bool
		if ok, why = open(); ok {
			failed = 0
		} else {
			failed++
		}
	}
	probe := &http.Client{Timeout: 3 * time.Second}
	req, _ := http.NewRequest("GET", s.URL+"/v1/approvals?status=pending", nil)
	req.Header.Set("Authorization", "Bearer "+person.Token)
	resp, err := probe.Do(req)
	if err == nil {
		resp.Body.Close()
	}
	health, herr := probe.Get(s.URL + "/healthz")
	if herr == nil {
		health.Body.Close()
	}
	if len(held) > 512 {
		t.Errorf("one runtime credential held %d idle JSON-RPC sockets open at once on a server of 1,024 descriptors (the last refused: %q); want a bound per credential well under the server's limit", len(held), why)
	}
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("while the agent held %d sockets, an approver's GET /v1/approvals was not answered: %v", len(held), errOr(err, resp))
	}
	if herr != nil {
		t.Errorf("while the agent held %d sockets, /healthz was not answered: %v", len(held), herr)
	}
	// Control: once the agent lets go, the server answers again.
	for _, c := range append(held, waiting...) {
		c.Close()
	}
	held, waiting = nil, nil
	waitUntil(t, "the server answering after the agent closed its sockets", func() (bool, string) {
		st, _ := person.Do("GET", "/v1/approvals?status=pending", nil)
		return st == http.StatusOK, http.StatusText(st)
	})
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func errOr(err error, resp *http.Response) string {
	if err != nil {
		return err.Error()
	}
	return resp.Status
}

package api_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/websocket"

	"turnstile/api"
)

// as is s seen by the holder of token.
func (s *sseServer) as(token string) *sseServer {
	c := *s
	ip := *s.inProcess
	ip.token = token
	c.inProcess = &ip
	return &c
}

// TestRevokedCredentialEndsItsConnections: an approver's event stream and
// JSON-RPC WebSocket, opened while its credential was valid, end within
// about CredentialRecheck of its revocation: the stream with an error
// event credential_revoked, the socket with a JSON-RPC error of that code,
// and a call sent after the revocation is never answered with a result.
// Before the revocation both carry events and a call succeeds (the
// control), and the admin's stream stays open after it.
func TestRevokedCredentialEndsItsConnections(t *testing.T) {
	s := startSSE(t, api.Config{}, 0)
	s.decisions("t", 0, 1)
	alice := s.as(s.credential("alice", "approver"))
	sse := alice.openSSE("from=now", "", 0)
	ws := alice.dialRPC("", 0)
	admin := s.openSSE("from=now", "", 0)
	// Whatever happens, nothing below waits more than a minute.
	deadline := time.AfterFunc(time.Minute, func() { sse.resp.Body.Close(); admin.resp.Body.Close() })
	defer deadline.Stop()
	ws.SetDeadline(time.Now().Add(time.Minute))

	s.decisions("t", 1, 1)
	if f, err := sse.next(); err != nil || f.id == "" {
		t.Fatalf("alice's stream before the revocation: %+v %v", f, err)
	}
	if m, err := readRPC(ws); err != nil || m.Method == "" {
		t.Fatalf("alice's socket before the revocation: %+v %v", m, err)
	}
	if err := websocket.Message.Send(ws, `{"jsonrpc":"2.0","id":1,"method":"turn/get","params":{"turn_id":"t"}}`); err != nil {
		t.Fatal(err)
	}
	var raw string
	if err := websocket.Message.Receive(ws, &raw); err != nil || !strings.Contains(raw, `"result"`) {
		t.Fatalf("a call before the revocation: %s %v", raw, err)
	}

	if st, b := s.do("POST", "/v1/credentials/alice/revoke", nil); st != http.StatusOK {
		t.Fatalf("revoke: %d %s", st, b)
	}
	if err := websocket.Message.Send(ws, `{"jsonrpc":"2.0","id":2,"method":"turn/get","params":{"turn_id":"t"}}`); err != nil {
		t.Fatal(err)
	}
	var wsReason string
	for {
		var raw string
		if err := websocket.Message.Receive(ws, &raw); err != nil {
			break
		}
		if strings.Contains(raw, `"result"`) {
			t.Fatalf("the revoked credential's call was answered: %s", raw)
		}
		if strings.Contains(raw, `"error"`) {
			wsReason = raw
		}
	}
	if !strings.Contains(wsReason, `"credential_revoked"`) {
		t.Fatalf("the socket closed without a credential_revoked error (last error: %q)", wsReason)
	}
	var reason *sseFrame
	for {
		f, err := sse.next()
		if err != nil {
			break
		}
		if f.id == "" {
			reason = &f
		}
	}
	if reason == nil || reason.event != "error" || !strings.Contains(reason.data, `"credential_revoked"`) {
		t.Fatalf("alice's stream ended without a credential_revoked error: %+v", reason)
	}

	// The control: the admin's stream still carries what comes next.
	s.decisions("t", 2, 1)
	for {
		f, err := admin.next()
		if err != nil {
			t.Fatalf("the admin's stream ended: %v", err)
		}
		if strings.Contains(f.data, `"c2"`) {
			break
		}
	}
}

package egress

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"turnstile/domain"
	"turnstile/sandbox"
)

func netSnapshot(np domain.NetworkPolicy) *domain.TurnExecutionSecuritySnapshot {
	return &domain.TurnExecutionSecuritySnapshot{Network: np}
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	var r *sandbox.Refusal
	if !errors.As(err, &r) || r.Code != code {
		t.Fatalf("got %v, want %s", err, code)
	}
}

// TestClient: the client reaches an allowed local server, refuses it without
// allow_localhost, and refuses a redirect to a metadata address.
func TestClient(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
			return
		}
		io.WriteString(w, "hello")
	}))
	defer srv.Close()
	allow := domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowLocalhost: true, AllowedDomains: []string{"=127.0.0.1"}}
	resp, err := Client(netSnapshot(allow)).Get(srv.URL + "/")
	if err != nil {
		t.Fatalf("allowed request failed: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "hello" {
		t.Fatalf("body %q", body)
	}
	_, err = Client(netSnapshot(allow)).Get(srv.URL + "/redirect")
	wantCode(t, err, sandbox.CodeHostNotAllowed)
	open := domain.NetworkPolicy{Mode: domain.NetworkEnabled, AllowLocalhost: true}
	_, err = Client(netSnapshot(open)).Get(srv.URL + "/redirect")
	wantCode(t, err, sandbox.CodePrivateAddress)

	noLocal := allow
	noLocal.AllowLocalhost = false
	_, err = Client(netSnapshot(noLocal)).Get(srv.URL + "/")
	wantCode(t, err, sandbox.CodeLocalhostNotAllowed)

	disabled := domain.NetworkPolicy{Mode: domain.NetworkDisabled}
	_, err = Client(netSnapshot(disabled)).Get(srv.URL + "/")
	wantCode(t, err, sandbox.CodeNetworkDisabled)

	// The environment's proxy is never used: a proxy would hide the real
	// destination from the connect-time check.
	t.Setenv("HTTP_PROXY", "http://192.0.2.1:3128")
	if _, err := Client(netSnapshot(allow)).Get(srv.URL + "/"); err != nil {
		t.Fatalf("request with HTTP_PROXY set: %v", err)
	}
}

// TestDialerDNSRebinding: a name that passes the URL check but resolves to a
// loopback address is refused at connect time, on the resolved address.
func TestDialerDNSRebinding(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "internal") }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	dns := startFakeDNS(t, [4]byte{127, 0, 0, 1})
	np := domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"rebind.example"}}
	s := netSnapshot(np)
	raw := "http://www.rebind.example:" + port + "/"
	if err := sandbox.CheckURL(s, raw); err != nil {
		t.Fatalf("the URL check should pass (the name is allowed): %v", err)
	}
	get := func(s *domain.TurnExecutionSecuritySnapshot) (string, error) {
		d := NewDialer(s)
		d.Base.Resolver = dns
		c := &http.Client{Transport: &checkedTransport{snap: s, next: &http.Transport{DialContext: d.DialContext}}}
		resp, err := c.Get(raw)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}
	if _, err := get(s); err == nil {
		t.Fatal("a name resolving to 127.0.0.1 was connected without allow_localhost")
	} else {
		wantCode(t, err, sandbox.CodeLocalhostNotAllowed)
	}
	np.AllowLocalhost = true
	body, err := get(netSnapshot(np))
	if err != nil || body != "internal" {
		t.Fatalf("with allow_localhost: %q, %v (the fake resolver must work)", body, err)
	}
	// UDP is never dialed by the checked dialer.
	_, err = NewDialer(netSnapshot(np)).DialContext(context.Background(), "udp", "127.0.0.1:53")
	wantCode(t, err, sandbox.CodeNetworkDisabled)
}

// startFakeDNS serves every A query with addr (and AAAA with no answer) and
// returns a resolver that uses it.
func startFakeDNS(t *testing.T, addr [4]byte) *net.Resolver {
	t.Helper()
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 512)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if n < 12 {
				continue
			}
			q := buf[12:n]
			end := 0
			for end < len(q) && q[end] != 0 {
				end += int(q[end]) + 1
			}
			if end+5 > len(q) {
				continue
			}
			question := q[:end+5]
			qtype := binary.BigEndian.Uint16(question[end+1:])
			resp := append([]byte(nil), buf[:2]...)
			ancount := uint16(0)
			if qtype == 1 {
				ancount = 1
			}
			resp = binary.BigEndian.AppendUint16(resp, 0x8180)
			resp = binary.BigEndian.AppendUint16(resp, 1)
			resp = binary.BigEndian.AppendUint16(resp, ancount)
			resp = append(resp, 0, 0, 0, 0)
			resp = append(resp, question...)
			if ancount == 1 {
				resp = append(resp, 0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 0, 0, 4)
				resp = append(resp, addr[:]...)
			}
			pc.WriteTo(resp, from)
		}
	}()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp4", pc.LocalAddr().String())
	}}
}

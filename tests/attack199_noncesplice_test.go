package tests

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"turnstile/internal/serverid"
)

// TestAttack199_NonceSpliceDefeatsTheAddressBinding (review 199): the proof
// signs domainTag || nonce || (0 || address)* with no length for the nonce,
// and the server signs any nonce of 16 to 64 bytes the asker chooses. A relay
// at an address the server does not hold takes the client's 32-byte nonce N
// and asks the real server (elsewhere) for the proof of
// N' = N || 0x00 || "<the relay's own address>". The server's signature over
// tag || N' || 0 || <its address> is byte for byte a signature over
// tag || N || 0 || <relay address> || 0 || <its address>: the relay answers
// the client with the addresses [<relay address>, <server address>], the
// signature verifies under the pinned key, and Covers finds the address the
// client reached. The relay then receives the approver's token.
//
// This is exactly the relay review 198's fix says is refused ("a proof
// relayed from the real server at another address does not count"), e.g. an
// agent's process holding the server's usual port with a socket of the
// server's user after the server was restarted on another port.
//
// Control: a plain relay (the client's nonce forwarded unchanged) is refused.
func TestAttack199_NonceSpliceDefeatsTheAddressBinding(t *testing.T) {
	ws := t.TempDir()
	s := ccServer(t, ws, "supervised", nil)
	key, err := os.ReadFile(filepath.Join(s.Data, serverid.PubFile))
	if err != nil {
		t.Fatal(err)
	}
	pinned := strings.TrimSpace(string(key))
	approver := createCredential(t, s, "alice199", "approver")
	real := strings.TrimPrefix(s.URL, "http://")

	cli := func(server string) (string, int) {
		cmd := exec.Command(bin, "approvals", "list", "--server", server)
		env := []string{}
		for _, e := range os.Environ() {
			if !strings.HasPrefix(e, "TURNSTILE_") {
				env = append(env, e)
			}
		}
		cmd.Env = append(env, "TURNSTILE_TOKEN="+approver, "TURNSTILE_SERVER_KEY="+pinned)
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

	for _, splice := range []bool{false, true} {
		r := startSpliceRelay(t, real, splice)
		out, code := cli("http://" + r.addr)
		got := r.stop()
		switch {
		case !splice && (code == 0 || strings.Contains(got, approver)):
			t.Fatalf("control: a plain relay was not refused: exit %d %s (relay saw %q)", code, out, got)
		case splice && (code == 0 || strings.Contains(got, approver)):
			t.Errorf("a relay that spliced its own address into the nonce passed the proof: exit %d\n%s\nthe relay received the approver's token: %v",
				code, out, strings.Contains(got, approver))
		}
	}
}

type spliceRelay struct {
	addr string
	ln   net.Listener
	mu   sync.Mutex
	seen bytes.Buffer
}

func (r *spliceRelay) stop() string {
	r.ln.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen.String()
}

// startSpliceRelay listens on 127.0.0.1 (another port than the server's);
// each connection's identity request is answered with a proof fetched from
// the real server, for the client's nonce (splice false) or for the client's
// nonce with 0 and the relay's address appended (splice true); what follows
// is recorded and answered with no approvals.
func startSpliceRelay(t *testing.T, real string, splice bool) *spliceRelay {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &spliceRelay{addr: ln.Addr().String(), ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					body, _ := io.ReadAll(req.Body)
					r.mu.Lock()
					r.seen.WriteString(req.Method + " " + req.URL.String() + " auth=" + req.Header.Get("Authorization") + " " + string(body) + "\n")
					r.mu.Unlock()
					if req.URL.Path != serverid.Path {
						io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 16\r\n\r\n{\"approvals\":[]}")
						continue
					}
					nonce, err := hex.DecodeString(req.URL.Query().Get("nonce"))
					if err != nil {
						return
					}
					prefix := []string{}
					if splice {
						nonce = append(append(nonce, 0), r.addr...)
						prefix = []string{r.addr}
					}
					resp, err := http.Get("http://" + real + serverid.Path + "?nonce=" + hex.EncodeToString(nonce))
					if err != nil {
						return
					}
					var p serverid.Proof
					err = json.NewDecoder(resp.Body).Decode(&p)
					resp.Body.Close()
					if err != nil {
						return
					}
					p.Addresses = append(prefix, p.Addresses...)
					b, _ := json.Marshal(p)
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "+itoa(len(b))+"\r\n\r\n")
					c.Write(b)
				}
			}()
		}
	}()
	return r
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

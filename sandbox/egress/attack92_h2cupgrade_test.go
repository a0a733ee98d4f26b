package egress

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"testing"

	"golang.org/x/net/http2"
	//lint:ignore SA1019 an h2c Upgrade (HTTP/1.1 "Upgrade: h2c"), which ingresses still answer, is served only by this package: net/http's unencrypted HTTP/2 takes prior knowledge alone
	"golang.org/x/net/http2/h2c"
	"golang.org/x/net/http2/hpack"
)

// TestAttack92_H2CUpgradeFronts (ninety-second review, high: the fronting
// tunnelhttp.go closes, reopened by the ninetieth review's fix).
//
// A tunnel's one plain request is a WebSocket handshake to the tunnel's
// own host (upgradeRequest); since the ninetieth review, once the address
// answers it 101, everything after is carried unjudged (proxy.go connect,
// statusSniff). upgradeRequest asks only that Upgrade's list NAME
// websocket: `Upgrade: websocket, h2c` with `Connection: Upgrade,
// HTTP2-Settings` passes. An ingress that speaks h2c (Go's
// x/net/http2/h2c, Apache's mod_http2 with "Protocols h2c", Jetty, Envoy
// with upgrade configs) picks h2c, answers 101 itself, and then reads
// HTTP/2 on the connection, routing each stream by its :authority. The
// proxy saw a 101 and carries the client's HTTP/2 preface and a stream
// whose :authority is another site the ingress serves: that site's pages
// come back through a tunnel to the allowed host. Before the fix the
// preface ("PRI * HTTP/2.0") was judged a request line and refused.
//
// Control: on the same upgraded connection a stream for the tunnel's own
// host is answered (the upgrade itself works: an honest h2c client).
func TestAttack92_H2CUpgradeFronts(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	//lint:ignore SA1019 as above: the Upgrade path is this package's alone
	srv := &http.Server{Handler: h2c.NewHandler(vhostHandler, &http2.Server{})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	target := "ok.example.test:" + port
	addr, auth := tunnelProxy(t, exampleTestPolicy, loopbackNames("ok.example.test"))

	hs := "GET / HTTP/1.1\r\nHost: " + target + "\r\nUpgrade: websocket, h2c\r\nConnection: Upgrade, HTTP2-Settings\r\n" +
		"HTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
	// Control: a WebSocket handshake alone reaches the same address (which
	// serves it as a page: no WebSocket server there).
	wsOnly := "GET / HTTP/1.1\r\nHost: " + target + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
	var page string
	if err := inTunnel(t, addr, auth, target, wsOnly, func(c net.Conn, br *bufio.Reader) {
		if resp, err := http.ReadResponse(br, nil); err == nil {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 64))
			page = string(b)
		}
	}); err != nil {
		t.Fatalf("CONNECT: %v", err)
	}
	if page != "allowed" {
		t.Fatalf("control: a WebSocket handshake to the tunnel's host got %q", page)
	}
	bodies := map[uint32]string{}
	if err := inTunnel(t, addr, auth, target, hs, func(c net.Conn, br *bufio.Reader) {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			bodies[0] = "refused" // fixed: the handshake offering h2c is closed
			return
		}
		if resp.StatusCode != http.StatusSwitchingProtocols {
			t.Fatalf("the handshake: %v %v", resp, err)
		}
		var out bytes.Buffer
		out.WriteString(http2.ClientPreface)
		fr := http2.NewFramer(&out, nil)
		fr.WriteSettings()
		for _, st := range []struct {
			id        uint32
			authority string
		}{{3, "ok.example.test"}, {5, "other.test"}} {
			id, authority := st.id, st.authority
			var hb bytes.Buffer
			enc := hpack.NewEncoder(&hb)
			for _, f := range [][2]string{{":method", "GET"}, {":scheme", "http"}, {":authority", authority}, {":path", "/"}} {
				enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
			}
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: hb.Bytes(), EndStream: true, EndHeaders: true})
		}
		c.Write(out.Bytes())
		rf := http2.NewFramer(io.Discard, br)
		ended := map[uint32]bool{}
		for !(ended[1] && ended[3] && ended[5]) {
			f, err := rf.ReadFrame()
			if err != nil {
				t.Logf("reading frames: %v", err)
				return
			}
			switch f := f.(type) {
			case *http2.DataFrame:
				bodies[f.StreamID] += string(f.Data())
				if f.StreamEnded() {
					ended[f.StreamID] = true
				}
			case *http2.HeadersFrame:
				if f.StreamEnded() {
					ended[f.StreamID] = true
				}
			case *http2.RSTStreamFrame:
				ended[f.StreamID] = true
			case *http2.GoAwayFrame:
				t.Logf("GOAWAY %v", f.ErrCode)
				return
			}
		}
	}); err != nil {
		t.Fatalf("CONNECT: %v", err)
	}
	t.Logf("bodies by stream: %v", bodies)
	if bytes.Contains([]byte(bodies[5]), []byte("SECRET")) {
		t.Errorf("a tunnel to ok.example.test upgraded to h2c (Upgrade: websocket, h2c) carried a stream with :authority other.test and its page came back: %q", bodies[5])
	}
}

package main

import (
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
)

func TestLoopbackTwin(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"127.0.0.1:8740", "[::1]:8740"},
		{"[::1]:8740", "127.0.0.1:8740"},
		{"127.0.0.2:8740", "[::1]:8740"},
		{"10.0.0.1:8740", ""},
		{"[::]:8740", ""},
		{"0.0.0.0:8740", ""},
	} {
		a, err := net.ResolveTCPAddr("tcp", c.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := loopbackTwin(a); got != c.want {
			t.Errorf("loopbackTwin(%s) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestTwinListenerServesBothAndRefusesATakenTwin: a server on 127.0.0.1:P
// holds [::1]:P and answers there too; when another program holds
// [::1]:P, listenTwin says so (serve then refuses to start).
func TestTwinListenerServesBothAndRefusesATakenTwin(t *testing.T) {
	if l, err := net.Listen("tcp", "[::1]:0"); err != nil {
		t.Skip("no IPv6 loopback here: ", err)
	} else {
		l.Close()
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	twin, err := listenTwin(ln)
	if err != nil || twin == nil {
		t.Fatalf("listenTwin: %v %v", twin, err)
	}
	m := newMultiListener(ln, twin)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "server") })}
	go srv.Serve(m)
	defer srv.Close()
	for _, addr := range []string{ln.Addr().String(), twin.Addr().String()} {
		resp, err := http.Get("http://" + addr + "/")
		if err != nil {
			t.Fatalf("%s: %v", addr, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "server" {
			t.Errorf("%s answered %q", addr, b)
		}
	}
	// Another program on [::1] at the port of a new 127.0.0.1 listener.
	other, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	port := other.Addr().(*net.TCPAddr).Port
	ln2, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port})
	if err != nil {
		t.Skipf("127.0.0.1:%d is taken here: %v", port, err)
	}
	defer ln2.Close()
	if l, err := listenTwin(ln2); l != nil || !errors.Is(err, errAddrInUse) {
		t.Errorf("a taken twin: %v %v, want EADDRINUSE", l, err)
	}
	// A listener on no loopback address has no twin.
	if l, err := listenTwin(fakeAddrListener{&net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 8740}}); l != nil || err != nil {
		t.Errorf("not loopback: %v %v", l, err)
	}
}

type fakeAddrListener struct{ a net.Addr }

func (f fakeAddrListener) Accept() (net.Conn, error) { return nil, net.ErrClosed }
func (f fakeAddrListener) Close() error              { return nil }
func (f fakeAddrListener) Addr() net.Addr            { return f.a }

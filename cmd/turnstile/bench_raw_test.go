package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestRawPosterAgainstNetHTTP: bench's minimal client against a real
// net/http server: it sends the method, path, token, content type and body;
// reads answers sized by Content-Length and chunked ones; keeps one
// connection for many requests; follows Connection: close; sends a request
// once more on a new connection when the server closed the kept one; and
// gives a non-2xx status back as it came.
func TestRawPosterAgainstNetHTTP(t *testing.T) {
	var conns atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.Header.Get("Authorization") != "Bearer tok" || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "bad headers", 400)
			return
		}
		w.Write(b)
	})
	mux.HandleFunc("POST /chunked", func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i < 3; i++ {
			w.Write([]byte(strings.Repeat("x", 5000)))
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("POST /close", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		w.Write([]byte("bye"))
	})
	mux.HandleFunc("POST /teapot", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "short and stout", http.StatusTeapot)
	})
	srv := httptest.NewUnstartedServer(mux)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	p, err := newRawPoster(&client{base: srv.URL, token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	for i := 0; i < 50; i++ {
		body := `{"n":` + strings.Repeat("1", i+1) + `}`
		status, resp, err := p.post("/echo", []byte(body))
		if err != nil || status != 200 || string(resp) != body {
			t.Fatalf("echo %d: %d %q %v", i, status, resp, err)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("50 requests took %d connections, want 1", n)
	}
	if status, resp, err := p.post("/chunked", nil); err != nil || status != 200 || len(resp) != 15000 {
		t.Fatalf("chunked: %d, %d bytes, %v", status, len(resp), err)
	}
	if status, resp, err := p.post("/teapot", nil); err != nil || status != http.StatusTeapot || !strings.Contains(string(resp), "short and stout") {
		t.Fatalf("teapot: %d %q %v", status, resp, err)
	}
	if status, resp, err := p.post("/close", nil); err != nil || status != 200 || string(resp) != "bye" || p.conn != nil {
		t.Fatalf("close: %d %q %v (connection kept: %v)", status, resp, err, p.conn != nil)
	}
	// The server closes the kept connection between two requests: the
	// second is sent again on a new one.
	if _, _, err := p.post("/echo", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	before := conns.Load()
	srv.CloseClientConnections()
	if status, resp, err := p.post("/echo", []byte(`{"again":1}`)); err != nil || status != 200 || string(resp) != `{"again":1}` {
		t.Fatalf("after the server closed the connection: %d %q %v", status, resp, err)
	}
	if conns.Load() != before+1 {
		t.Fatalf("connections %d -> %d, want one more", before, conns.Load())
	}
}

// TestRawPosterRefusesHTTPS: the raw client speaks plain HTTP only; bench
// says to use --http std for anything else.
func TestRawPosterRefusesHTTPS(t *testing.T) {
	if _, err := newRawPoster(&client{base: "https://example.com", token: "t"}); err == nil {
		t.Fatal("an https server was accepted")
	}
	if _, err := newRawPoster(&client{base: "http://127.0.0.1:8740", token: "t"}); err != nil {
		t.Fatalf("control: %v", err)
	}
}

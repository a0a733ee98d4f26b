package main

import (
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// a198ServeThroughEMFILE serves HTTP on l (wrap makes the listener
// http.Server is given), makes one accept fail with EMFILE (this process
// out of descriptors while a connection waits) and reports whether the
// server still answers once descriptors are free again.
func a198ServeThroughEMFILE(t *testing.T, l net.Listener, wrap func(net.Listener) net.Listener) (answered bool, serveErr error) {
	t.Helper()
	emfile := make(chan struct{}, 100)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }),
		ErrorLog: log.New(logWriter(func(p []byte) {
			if strings.Contains(string(p), "Accept error") && strings.Contains(string(p), "too many open files") {
				select {
				case emfile <- struct{}{}:
				default:
				}
			}
		}), "", 0)}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(wrap(l)) }()
	defer srv.Close()
	addr := l.Addr().String()
	// The server answers first.
	if c, err := net.Dial("tcp", addr); err != nil {
		t.Fatal(err)
	} else {
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		b, _ := io.ReadAll(c)
		c.Close()
		if len(b) == 0 {
			t.Fatal("the server did not answer before the EMFILE")
		}
	}

	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	// Take every descriptor but one, then dial with that one: the
	// server's accept of the connection fails with EMFILE.
	var filler []int
	lim := old
	lim.Cur = 256
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	for {
		fd, err := syscall.Open("/dev/null", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			break
		}
		filler = append(filler, fd)
	}
	syscall.Close(filler[len(filler)-1])
	filler = filler[:len(filler)-1]
	c, dialErr := net.Dial("tcp", addr)
	if dialErr == nil {
		defer c.Close()
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	}
	// http.Server logs each failed accept before it retries.
	select {
	case <-emfile:
	case <-time.After(20 * time.Second):
		t.Error("no accept failed with EMFILE")
	}
	for _, fd := range filler {
		syscall.Close(fd)
	}
	syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old)
	if dialErr == nil {
		c.SetDeadline(time.Now().Add(10 * time.Second))
		b, _ := io.ReadAll(c)
		answered = len(b) > 0
	} else {
		t.Logf("the connection made during the EMFILE: %v", dialErr)
	}
	if !answered {
		select {
		case serveErr = <-done:
		case <-time.After(10 * time.Second):
		}
	}
	// And a new connection, descriptors free again.
	if c2, err := net.Dial("tcp", addr); err != nil {
		t.Logf("a new connection afterwards: %v", err)
		answered = false
	} else {
		io.WriteString(c2, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		c2.SetDeadline(time.Now().Add(10 * time.Second))
		b, _ := io.ReadAll(c2)
		c2.Close()
		answered = answered && len(b) > 0
	}
	return answered, serveErr
}

// TestAttack198_OneFailedAcceptStopsTheServer (review 198): the server
// that listens on a loopback address now serves through multiListener
// (twinlisten.go) whenever the twin was taken, which is the default. An
// accept error that is not a timeout, EMFILE included (the process out
// of descriptors for a moment), ends that listener's goroutine and makes
// Accept close both listeners; http.Server, which retries a temporary
// accept error on a plain listener, then gets net.ErrClosed and Serve
// returns: `turnstile serve` shuts down (serveErr), its port free.
// Control: the same EMFILE on the plain listener: the waiting connection
// is answered once descriptors are free again.
func TestAttack198_OneFailedAcceptStopsTheServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ok, err := a198ServeThroughEMFILE(t, ln, func(l net.Listener) net.Listener { return l })
	if !ok || err != nil {
		t.Fatalf("control: the plain listener did not come through the EMFILE: answered %v, Serve: %v", ok, err)
	}
	ln.Close()

	ln, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	twin, err := listenTwin(ln)
	if err != nil || twin == nil {
		t.Skip("no IPv6 loopback here for the twin:", err)
	}
	ok, err = a198ServeThroughEMFILE(t, ln, func(l net.Listener) net.Listener { return newMultiListener(l, twin) })
	if !ok {
		t.Errorf("one EMFILE on accept stopped the server listening on both loopback addresses: answered %v, Serve returned %v", ok, err)
	}
}

type logWriter func([]byte)

func (f logWriter) Write(p []byte) (int, error) { f(p); return len(p), nil }

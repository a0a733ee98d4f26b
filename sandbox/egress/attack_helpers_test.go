package egress

import (
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"strconv"
	"testing"

	"turnstile/domain"
	"turnstile/sandbox"
)

// hostAddr returns an address assigned to one of this machine's own
// non-loopback interfaces: any ("any", IPv4 first), or one CheckAddr
// classifies "private" once localhost is allowed (refused as
// private_address unless explicitly allowed). Without one the test is
// skipped, or fails under CI=true.
func hostAddr(t *testing.T, want string) netip.Addr {
	t.Helper()
	ifas, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatalf("interface addresses: %v", err)
	}
	open := &domain.TurnExecutionSecuritySnapshot{Network: domain.NetworkPolicy{Mode: domain.NetworkEnabled, AllowLocalhost: true}}
	var any6 netip.Addr
	for _, ifa := range ifas {
		pfx, err := netip.ParsePrefix(ifa.String())
		if err != nil {
			continue
		}
		a := pfx.Addr()
		if a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsMulticast() {
			continue
		}
		err = sandbox.CheckAddr(open, a.String(), a, 80)
		switch {
		case want == "any" && a.Is4():
			return a
		case want == "any" && !any6.IsValid():
			any6 = a
		case want == "private":
			var rf *sandbox.Refusal
			if errors.As(err, &rf) && rf.Code == sandbox.CodePrivateAddress {
				return a
			}
		}
	}
	if any6.IsValid() {
		return any6
	}
	msg := "this machine has no " + want + " address on a non-loopback interface"
	if os.Getenv("CI") == "true" {
		t.Fatal("CI=true: " + msg)
	}
	t.Skip(msg)
	return netip.Addr{}
}

// greeter listens on network/addr ("tcp4", "0.0.0.0:0" for a host service
// bound to every interface) and answers every connection with a plain HTTP
// 200 whose body is body; it returns the port.
func greeter(t *testing.T, network, addr, body string) int {
	t.Helper()
	ln := acceptEach(t, network, addr, func(c net.Conn) {
		buf := make([]byte, 4096)
		c.Read(buf) // the request line and headers (small)
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\nConnection: close\r\n\r\n"+body)
	})
	return ln.Addr().(*net.TCPAddr).Port
}

// acceptEach listens on network/addr until the test ends and serves each
// connection it accepts with serve, in a goroutine of its own, closing the
// connection when serve returns; it returns the listener.
func acceptEach(t *testing.T, network, addr string, serve func(c net.Conn)) net.Listener {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatalf("listen %s %s: %v", network, addr, err)
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
				serve(c)
			}()
		}
	}()
	return ln
}

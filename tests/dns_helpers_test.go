package tests

import (
	"net"
	"net/netip"
	"testing"

	"turnstile/internal/dnstest"
)

// dnsServer is a small authoritative DNS server on a loopback UDP port:
// names in answers get their A/AAAA records, names in silent get no answer
// at all (the client times out), anything else is NXDOMAIN.
func dnsServer(t *testing.T, answers map[string][]netip.Addr, silent ...string) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	return serveDNS(pc, answers, silent...)
}

// suiteDNS is the address of a DNS server that answers NXDOMAIN to every
// name, started by TestMain: every server the tests start resolves through
// it (unless the test names its own --dns-server), so no decision waits on
// the machine's resolver and the suite needs no network.
var suiteDNS string

// startSuiteDNS starts suiteDNS; it lives as long as the test binary.
func startSuiteDNS() error {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	suiteDNS = serveDNS(pc, nil)
	return nil
}

// serveDNS answers queries on pc (see dnsServer) until pc is closed.
func serveDNS(pc net.PacketConn, answers map[string][]netip.Addr, silent ...string) string {
	return dnstest.Serve(pc, answers, silent...)
}

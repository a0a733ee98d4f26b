package serverid

import (
	"net"
	"testing"
)

// TestAttack200_LinkLocalServerNeverCovered (review 200, a false deny): a
// server listening on an IPv6 link-local address signs it with its zone
// (ln.Addr(): "[fe80::1%eth0]:8740", which netip keeps), while Covers reads
// the connection's far end with netip.AddrFromSlice, which drops the zone
// the TCPAddr carries: the two never compare equal, so no client ever
// accepts the proof of a server on a link-local address (--listen
// [fe80::…%if]:P with a token), however it is named.
//
// Control: a global address is covered.
func TestAttack200_LinkLocalServerNeverCovered(t *testing.T) {
	if !Covers([]string{"[2001:db8::1]:8740"}, &net.TCPAddr{IP: net.ParseIP("2001:db8::1"), Port: 8740}) {
		t.Fatal("control: a global IPv6 address is not covered")
	}
	remote := &net.TCPAddr{IP: net.ParseIP("fe80::1"), Port: 8740, Zone: "eth0"}
	if !Covers([]string{"[fe80::1%eth0]:8740"}, remote) {
		t.Errorf("the server signed [fe80::1%%eth0]:8740 and the client reached %s, the same socket: not covered (every client refuses this server)", remote)
	}
	// A zone-less signature must not cover another link's fe80::1.
	if Covers([]string{"[fe80::1%eth0]:8740"}, &net.TCPAddr{IP: net.ParseIP("fe80::1"), Port: 8740, Zone: "eth1"}) {
		t.Errorf("fe80::1 on eth1 (another link's host) is covered by a signature for eth0's")
	}
}

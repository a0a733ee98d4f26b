package tests

import (
	"net"
	"net/netip"
	"strings"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
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
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			var p dnsmessage.Parser
			h, err := p.Start(buf[:n])
			if err != nil {
				continue
			}
			q, err := p.Question()
			if err != nil {
				continue
			}
			name := strings.ToLower(strings.TrimSuffix(q.Name.String(), "."))
			quiet := false
			for _, s := range silent {
				quiet = quiet || s == name
			}
			if quiet {
				continue
			}
			b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true})
			b.EnableCompression()
			addrs, known := answers[name]
			if !known {
				b = dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RCode: dnsmessage.RCodeNameError})
			}
			_ = b.StartQuestions()
			_ = b.Question(q)
			_ = b.StartAnswers()
			for _, a := range addrs {
				rh := dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 0}
				switch {
				case a.Is4() && q.Type == dnsmessage.TypeA:
					_ = b.AResource(rh, dnsmessage.AResource{A: a.As4()})
				case a.Is6() && q.Type == dnsmessage.TypeAAAA:
					_ = b.AAAAResource(rh, dnsmessage.AAAAResource{AAAA: a.As16()})
				}
			}
			msg, err := b.Finish()
			if err == nil {
				_, _ = pc.WriteTo(msg, from)
			}
		}
	}()
	return pc.LocalAddr().String()
}

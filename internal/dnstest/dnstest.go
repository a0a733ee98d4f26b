// Package dnstest is a small authoritative DNS server for tests, on a
// loopback UDP port: names it knows get their A/AAAA records, names it is
// told to ignore get no answer at all (the client times out), anything
// else is NXDOMAIN.
package dnstest

import (
	"net"
	"net/netip"
	"strings"

	"golang.org/x/net/dns/dnsmessage"
)

// Serve answers queries on pc until pc is closed, with answers (keyed by
// lower-case name without the final dot), and returns pc's address.
func Serve(pc net.PacketConn, answers map[string][]netip.Addr, silent ...string) string {
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if msg, ok := answer(buf[:n], answers, silent); ok {
				_, _ = pc.WriteTo(msg, from)
			}
		}
	}()
	return pc.LocalAddr().String()
}

// answer builds the reply to one query (ok false: no reply).
func answer(query []byte, answers map[string][]netip.Addr, silent []string) ([]byte, bool) {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil {
		return nil, false
	}
	q, err := p.Question()
	if err != nil {
		return nil, false
	}
	name := strings.ToLower(strings.TrimSuffix(q.Name.String(), "."))
	for _, s := range silent {
		if s == name {
			return nil, false
		}
	}
	hdr := dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true}
	addrs, known := answers[name]
	if !known {
		hdr.RCode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(nil, hdr)
	b.EnableCompression()
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
	return msg, err == nil
}

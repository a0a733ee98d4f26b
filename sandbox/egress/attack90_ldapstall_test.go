package egress

import (
	"bufio"
	"bytes"
	"testing"
)

// TestAttack90_LDAPBindStallsInTunnel (ninetieth review, low, a false deny
// the eighty-eighth review's fix introduced: the tunnel hangs). isBlank
// now takes any control byte but NUL and LF as the blank after a method
// (Balsa). An LDAP simple bind (ldapsearch/ldapwhoami -D … -w …, tunnelled
// through CONNECT to port 389) opens with one BER message and waits for
// the BindResponse: SEQUENCE 0x30 ('0', a visible byte: a "method"), its
// length (33-126 bytes: visible too), then INTEGER's tag 0x02 — a control
// byte, now "the blank". requestLine then waits for a '\n' or a NUL, and a
// bind whose DN and password are non-empty holds neither: nothing reaches
// the directory and the bind hangs until a timeout ends the tunnel.
// Before the fix, 0x02 was no blank and the message was carried at once.
//
// Fix: take as the blank after a method only the bytes a known server
// does (SP, HT, VT, FF, CR), or, for Balsa's wider set, stop waiting at a
// byte no request target holds before its end (as the sixty-fifth review
// asked of a NUL): a second control byte after the "blank" other than HT
// or CR.
//
// Control: an anonymous bind (a NUL in it) and an SSH banner are judged
// from what the client sent.
func TestAttack90_LDAPBindStallsInTunnel(t *testing.T) {
	// Asked for more only once all the client sent is carried: it then
	// reaches the address, which answers (the hundred-and-seventh
	// review's fix carries a line of no word of letters as it comes).
	judge := func(first []byte) (request, asked bool) {
		var c bytes.Buffer
		r := &partsReader{parts: []string{string(first)}, onAsk: func() { asked = asked || !bytes.Equal(c.Bytes(), first) }}
		return plainHTTP(bufio.NewReaderSize(r, tunnelPeek), &c), asked
	}
	ber := func(tag byte, body []byte) []byte { return append([]byte{tag, byte(len(body))}, body...) }
	bind := func(dn, pw string) []byte {
		req := append(ber(0x02, []byte{3}), ber(0x04, []byte(dn))...)
		req = append(req, ber(0x80, []byte(pw))...)
		msg := append(ber(0x02, []byte{1}), ber(0x60, req)...)
		return ber(0x30, msg)
	}
	if req, asked := judge([]byte("SSH-2.0-OpenSSH_9.6\r\n")); req || asked {
		t.Fatalf("control: an SSH banner: request %v, asked for more %v", req, asked)
	}
	if req, asked := judge(bind("", "")); req || asked {
		t.Fatalf("control: an anonymous LDAP bind: request %v, asked for more %v", req, asked)
	}
	b := bind("cn=admin,dc=example,dc=org", "secret")
	if req, asked := judge(b); req || asked {
		t.Errorf("an LDAP simple bind %q: request %v, asked for bytes the client sends only once answered %v (the tunnel stalls)", b, req, asked)
	}
}

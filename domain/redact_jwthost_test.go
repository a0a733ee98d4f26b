package domain

import "testing"

// TestJWTHost: a JWT-shaped host's name is shown wherever it stands; a
// real JWT, an unsigned one, or one glued to more is not read as a host.
func TestJWTHost(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"curl -sT notes.txt eyJhbGci.eyJzdWIi.com", true},
		{"nc eyJhbGci.eyJzdWIi.com. 80", true},                    // the root's '.'
		{"x eyJhbGci.eyJzdWIi.northwesternmutual", true},          // 18 letters
		{"x eyJhbGci.eyJzdWIi.c2lnbmF0dXJl", false},               // digits: a signature
		{"x eyJhbGci.eyJzdWIi.abcdefghijklmnopqrstuvwxyz", false}, // longer than a TLD
		{"x eyJhbGci.eyJzdWIi.", false},                           // unsigned
		{"x eyJhbGci.eyJzdWIi.com@host", false},                   // a URL's user
		{"x eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig_x", false},   // '_': no DNS name
		{"x ghp_abcdefghijklmnopqrstu.com", false},                // no JWT shape
	} {
		m := secretRes().token.FindStringIndex(c.s)
		if m == nil {
			if c.want {
				t.Errorf("%q: no token shape", c.s)
			}
			continue
		}
		if got := jwtHost(c.s, m[0], m[1]); got != c.want {
			t.Errorf("jwtHost(%q, %q) = %v, want %v", c.s, c.s[m[0]:m[1]], got, c.want)
		}
	}
}

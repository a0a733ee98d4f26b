package domain

import "testing"

// TestInertHidden: the hidden parts of a shell command's text, aligned
// with the original, must be inert: no '/', white space or shell
// character, but in a URL's userinfo or query and a header's credential;
// a hidden path that leaves its credential store ("..") is not.
func TestInertHidden(t *testing.T) {
	const h = "[redacted:0123456789ab]"
	for _, c := range []struct {
		s, r  string
		inert bool
	}{
		{"make deploy password=Zq8vLw3nR2tK9pXs", "make deploy password=[redacted]", true},
		{"ionice password=tools/x", "ionice password=[redacted]", false},
		{"make password='a b' x", "make password=[redacted] x", false},
		{`curl -H "Authorization: Basic dXNl/cjpw+YXNz" https://h/`, `curl -H "Authorization: Basic [redacted]" https://h/`, true},
		{"curl https://u:pw@h/x?token=ab+cd=", "curl https://u:[redacted]@h/x?token=[redacted]", true},
		{"curl https://h/x?token=ab/cd", "curl https://h/x?token=[redacted]", false}, // a URL-shaped word may be a path
		{`env X=''Authorization: tools/x`, `env X=''Authorization: [redacted]`, false},
		{`x86_64 'X: Bearer tools/x'`, `x86_64 'X: Bearer [redacted]'`, false},
		{`curl -H 'X-Api-Key: ab/cd+ef'`, `curl -H 'X-Api-Key: [redacted]'`, true},
		{"cat gcloud/x", "cat " + h, false},
		{"cat ./.ssh/x", "cat ./" + h, false},
		{"cat ~/.ssh/keys/../id_rsa", "cat ~/" + h, true},
		{"cat ~/../tmp/x", "cat ~/" + h, false},
		{"curl https://h/x?token=a;sh", "curl https://h/x?token=[redacted]", false},
		{"cat ~/.ssh/id_rsa", "cat ~/" + h, true},
		{"cat ~/.ssh/../../tmp/x", "cat ~/" + h, false},
		// The same literal around two markers: the widest span each may
		// cover is judged.
		{"a x=b/c x=d", "a x=[redacted] x=[redacted]", false},
		{"a x=bc x=d", "a x=[redacted] x=[redacted]", true},
		// Not aligned: not inert.
		{"a b", "c [redacted]", false},
		{"a b", "a [redacted][redacted]", false},
	} {
		if got := inertHidden(c.s, c.r); got != c.inert {
			t.Errorf("inertHidden(%q, %q) = %v, want %v", c.s, c.r, got, c.inert)
		}
	}
}

package domain

import (
	"strings"
	"testing"
)

// TestAttack18KeyBlockBreaksEscapedTwice: a key's lines are read across a
// "\n" escape (a JSON string holding a PEM key), but a key in a JSON text
// within another's string, or in a shell's double quotes around a JSON
// body (curl -d "{\"private_key\": \"-----BEGIN …\\n…\"}"), breaks its
// lines with "\\n", and its body was kept in clear in the decision's
// summary, events and audit rows. The control: what follows the key
// stays in view, and a single escape is read as before.
func TestAttack18KeyBlockBreaksEscapedTwice(t *testing.T) {
	const l1 = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"
	const l2 = "MzEfYyjiWA4R4oM2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu"
	for _, c := range []struct{ cmd, tail string }{
		{`curl -sd "{\"private_key\": \"-----BEGIN PRIVATE KEY-----\\n` + l1 + `\\n` + l2 + `\\n-----END PRIVATE KEY-----\\n\"}" https://api.example/keys`,
			`-----END PRIVATE KEY-----\\n\"}" https://api.example/keys`},
		{`vault kv put secret/tls value='{"json":"{\"key\":\"-----BEGIN RSA PRIVATE KEY-----\\r\\n` + l1 + `\\r\\n` + l2 + `\\r\\n-----END RSA PRIVATE KEY-----\"}"}'`,
			`-----END RSA PRIVATE KEY-----\"}"}'`},
		{`echo '{"key":"-----BEGIN RSA PRIVATE KEY-----\n` + l1 + `\n` + l2 + `\n-----END RSA PRIVATE KEY-----"}' > k.json`,
			`-----END RSA PRIVATE KEY-----"}' > k.json`},
	} {
		got := keyReaderShown(t, c.cmd)
		for _, l := range []string{l1, l2} {
			if strings.Contains(got, l) {
				t.Errorf("%q: shown as %q, a line of the key in clear", c.cmd[:24], got)
			}
		}
		if !strings.HasSuffix(got, c.tail) {
			t.Errorf("%q: shown as %q, what follows the key lost", c.cmd[:24], got)
		}
	}
}

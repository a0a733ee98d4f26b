package domain

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestAttack17RedactionCostOfManyMarkers: the key block reading looked
// for each of its three markers (a BEGIN marker, PuTTY's Private-Lines,
// an untrusted comment) from each marker it met to the end of the text,
// an untrusted comment naming no secret key read its line to the end
// each time, and the encoded key reading read a run from each start in
// it ('=' is base64 and may start a word): a command of 130 KB, within
// the argument cap, made of one marker repeated cost seconds of the
// server's CPU each time it was redacted (its summary, events, audit rows
// and approval request), 1.6 s for one decision's redaction here. Each
// marker and each run is read once now, which the test counts (the bytes
// the readings look at, keyScanHook), not times. The controls: a key after
// such a text is still hidden, and the text around it shown.
func TestAttack17RedactionCostOfManyMarkers(t *testing.T) {
	const n = 130000
	key := "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n", 4) + "-----END RSA PRIVATE KEY-----\n"
	enc := base64.StdEncoding.EncodeToString([]byte(key))
	for name, s := range map[string]string{
		"untrusted comments":  strings.Repeat("untrusted comment: ", n/19),
		"PuTTY headers":       strings.Repeat("Private-Lines: x", n/16),
		"other BEGIN markers": strings.Repeat("-----BEGIN PPPPPPPPPPPPPPPP ", n/28) + "PRIVATE KEY",
		"encoded starts":      strings.Repeat("LS0tLS1CRUdJTi=", n/15),
		"encoded lines":       strings.Repeat(enc[:76]+"\n", n/77),
	} {
		// The bytes the key readings look at, counted for the text and
		// for the text twice as long: one pass over each, not one per
		// marker (which was 4x, and 10^4 times the text here).
		scanned := func(text string) int {
			n := 0
			keyScanHook = func(k int) { n += k }
			defer func() { keyScanHook = nil }()
			RedactSecrets(text)
			return n
		}
		one, two := scanned(s), scanned(s+s)
		if one > 8*len(s) || two > 3*one {
			t.Errorf("%s: the key readings looked at %d bytes of a text of %d, %d of one twice as long: not one pass", name, one, len(s), two)
		}
		got := RedactSecrets(s + "\n" + key + "ls\n" + enc + " | base64 -d")
		if strings.Contains(got, "AAoIBAQC7VJTUt9Us8cKj") || strings.Contains(got, enc[40:100]) || !strings.HasSuffix(got, "\n-----END RSA PRIVATE KEY-----\nls\n"+redacted+" | base64 -d") {
			t.Errorf("control %s: a key after the text is not hidden, or what follows it lost: %q", name, got[len(got)-300:])
		}
	}
}

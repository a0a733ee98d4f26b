package sandbox

import (
	"strings"
	"testing"
)

// TestQuarantineLineIsTerminalSafe: a quarantined path comes from the
// command, which names its files: an escape sequence or a line break in
// it is printed as a Go escape by `turnstile sandbox` (sixth attack
// review), as `turnstile exec` printed it already. The control: a plain
// path is printed as it is.
func TestQuarantineLineIsTerminalSafe(t *testing.T) {
	line := QuarantineLine("/w/\x1b]0;owned\x07sub\n/.git", "config", "/w/sub/.git.turnstile-untrusted\u202e", "")
	if strings.ContainsAny(line, "\x1b\x07\n\u202e") || !strings.Contains(line, `\x1b]0;owned\asub\n/.git`) {
		t.Fatalf("quarantine line not made safe: %q", line)
	}
	if plain := QuarantineLine("/w/sub/.git", "config", "/w/sub/HEAD.x", ""); !strings.Contains(plain, "/w/sub/.git") || !strings.Contains(plain, "/w/sub/HEAD.x") {
		t.Fatalf("control: %q", plain)
	}
}

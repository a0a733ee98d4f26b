package domain

import (
	"strings"
	"testing"
)

// TestAttack15AgeSecretKeyShown: an age identity ("AGE-SECRET-KEY-1" and
// 58 bech32 characters, upper case), which the person's age -d and sops
// read from ~/.config/sops/age/keys.txt or SOPS_AGE_KEY, was shown in clear
// in a command's events, audit rows and approval request: it holds no
// needle of the patterns (no secret name before it, no key block around
// it). It is hidden as the other token shapes are. The control: the
// public recipient (age1…) and the words around it are shown.
func TestAttack15AgeSecretKeyShown(t *testing.T) {
	const id = "AGE-SECRET-KEY-1QYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQS3A4EMW"
	for _, cmd := range []string{
		"echo " + id + " > ~/.config/sops/age/keys.txt",
		"SOPS_AGE_KEY=" + id + " sops -d secrets.enc.yaml",
		"printf '# created: 2026-12-01\\n" + id + "\\n' | age -d -i - backup.age",
	} {
		if got := RedactText(cmd); strings.Contains(got, id[16:]) {
			t.Errorf("%q shown as %q", cmd, got)
		}
	}
	// control
	const pub = "age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p"
	cmd := "age -r " + pub + " -o backup.age backup.tar && " + id[:14]
	if got := RedactText(cmd); got != cmd {
		t.Errorf("control %q shown as %q", cmd, got)
	}
}

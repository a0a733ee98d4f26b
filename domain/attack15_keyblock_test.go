package domain

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAttack15KeyBlockHidesCommand: the key-block redaction hid every run
// of 16 or more base64 bytes from a BEGIN marker to the END marker or the
// end of the text, so that a command naming a marker anywhere (a ':' no-op,
// a here-document never closed by an END) had its words of letters,
// digits and '/' hidden from the approver: "rm -rf Documents/Projects" was
// shown as "rm -rf [redacted]" and "python3 scripts/upload….py" as
// "python3 [redacted].py", and a here-document's delimiter of that shape
// was hidden, so that no approver could see where the document ended and
// the commands after it began. The body is now the lines of nothing but
// base64 after the marker; the first other line ends it. The controls: a
// key written by a here-document, a printf, a GCP service account's JSON
// (its "\n" escapes), a JSON body with "\r\n" escapes, an indented YAML
// block and a key whose line breaks became spaces on its marker's line is
// hidden whole, and the commands after it are shown; a program and its
// argument on the line after a marker, before an END, are shown.
func TestAttack15KeyBlockHidesCommand(t *testing.T) {
	shown := func(cmd string) string {
		raw, _ := json.Marshal(map[string]any{"cmd": cmd})
		a, err := Classify(Invocation{ToolName: "exec_command", Arguments: raw}, "/w", nil)
		if err != nil {
			t.Fatalf("%q: %v", cmd, err)
		}
		return a.Redacted().Summary
	}
	for _, c := range []struct{ cmd, keep string }{
		{": '-----BEGIN PRIVATE KEY-----'; rm -rf Documents/ImportantProjects; python3 scripts/uploadAllCredentials.py",
			"rm -rf Documents/ImportantProjects; python3 scripts/uploadAllCredentials.py"},
		{"cat > k <<ENDOFTHEKEYMATERIALWRITTENHEREFORNOWXYZWVUTS\n-----BEGIN PRIVATE KEY-----\nENDOFTHEKEYMATERIALWRITTENHEREFORNOWXYZWVUTS\nrm -rf Documents/ImportantProjects\n",
			"\nENDOFTHEKEYMATERIALWRITTENHEREFORNOWXYZWVUTS\nrm -rf Documents/ImportantProjects\n"},
		{"echo -----BEGIN OPENSSH PRIVATE KEY----- >/dev/null && git push --force origin HEAD:refs/heads/productionRelease2026",
			"HEAD:refs/heads/productionRelease2026"},
		{"echo -----BEGIN PRIVATE KEY-----\nbin/uploadAllCredentialsToRemote12345 now -----END PRIVATE KEY-----",
			"\nbin/uploadAllCredentialsToRemote12345 now -----END"},
	} {
		if got := shown(c.cmd); !strings.Contains(got, c.keep) {
			t.Errorf("%q shown as %q: %q is hidden", c.cmd, got, c.keep)
		}
	}
	// Controls: keys hidden, the commands after them shown.
	const l1 = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"
	const l2 = "MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu"
	const l3 = "NMoSfm76oqFvAp8Gy0iz5sxjZmSnXyCdPEovGhLa0VzMaQ8s+CLOyS56YyCFGeJZ"
	for _, c := range []struct{ cmd, keep string }{
		{"cat > ~/k <<'EOF'\n-----BEGIN PRIVATE KEY-----\n" + l1 + "\n" + l2 + "\n" + l3[:20] + "==\n-----END PRIVATE KEY-----\nEOF\nchmod 600 ~/k && ./deploy.sh",
			"\nEOF\nchmod 600 ~/k && ./deploy.sh"},
		{`printf '-----BEGIN RSA PRIVATE KEY-----\n` + l1 + `\n` + l2 + `\n` + l3 + `' > k && make deploy`, `' > k && make deploy`},
		{`echo '{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\n` + l1 + `\n` + l2 + `\n` + l3 + `\n-----END PRIVATE KEY-----\n", "client_email": "a@b.iam"}' > sa.json`,
			`\n-----END PRIVATE KEY-----\n", "client_email": "a@b.iam"}' > sa.json`},
		{`curl -d '{"key": "-----BEGIN RSA PRIVATE KEY-----\r\n` + l1 + `\r\n` + l2 + `\r\n-----END RSA PRIVATE KEY-----\r\n"}' https://vault.example/v1/k`,
			`\r\n-----END RSA PRIVATE KEY-----\r\n"}' https://vault.example/v1/k`},
		{`export PRIVATE_KEY="-----BEGIN PRIVATE KEY----- ` + l1 + ` ` + l2 + ` ` + l3 + ` -----END PRIVATE KEY-----" && ./deploy.sh`,
			` -----END PRIVATE KEY-----" && ./deploy.sh`},
		{"cat > values.yaml <<EOF\ntls:\n  key: |\n    -----BEGIN EC PRIVATE KEY-----\n    " + l1 + "\n    " + l2 + "\n    -----END EC PRIVATE KEY-----\nEOF\nhelm upgrade app .",
			"\n    -----END EC PRIVATE KEY-----\nEOF\nhelm upgrade app ."},
	} {
		got := keyReaderShown(t, c.cmd)
		for _, l := range []string{l1, l2, l3, l3[:20]} {
			if strings.Contains(got, l) {
				t.Errorf("control %q: shown as %q, a line of its key kept", c.cmd, got)
			}
		}
		if !strings.Contains(got, c.keep) {
			t.Errorf("control %q: shown as %q, %q lost", c.cmd, got, c.keep)
		}
	}
}

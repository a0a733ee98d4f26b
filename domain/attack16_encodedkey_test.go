package domain

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"strings"
	"testing"
)

// pemEncoded is a PEM file of a private key's shape, and its base64 on
// one line and wrapped at 76 columns: pieces of the reference test.
var (
	pemForTest     = "-----BEGIN EC PRIVATE KEY-----\n" + strings.Repeat("MHcCAQEEIObLW4Q2s1C9xKbGfn0eY8Jx1g7Zy0Vhq3kD2gqS3m1ooAoGCCqGSM49\n", 3) + "-----END EC PRIVATE KEY-----\n"
	pemEncodedLine = base64.StdEncoding.EncodeToString([]byte(pemForTest))
)

func init() {
	redactTextPieces = append(redactTextPieces, pemEncodedLine, wrapBase64(pemEncodedLine, 76, "\n"), wrapBase64(pemEncodedLine, 64, `\n`), pemEncodedLine[:76])
}

func wrapBase64(s string, width int, nl string) string {
	var lines []string
	for len(s) > width {
		lines, s = append(lines, s[:width]), s[width:]
	}
	return strings.Join(append(lines, s), nl)
}

// TestAttack16EncodedKeyShown: the key block redaction hides a private
// key's PEM body, but the same file encoded in base64, as a Kubernetes
// secret's tls.key holds it, as base64 -w0 key.pem or base64 key.pem (76
// columns) prints it and as a variable or JSON field carries it, holds no
// marker and no line of base64 words after one: it was kept in clear in
// the command's events, audit rows and approval request. Such a run
// (encodedKeyBegin, the base64 of "-----BEGIN ", that decodes to a private
// key's marker; its wrapped lines) is hidden now. The controls: a
// certificate and a public key encoded the same way are shown, and so are
// the commands around the key and a path of base64 that starts the same.
func TestAttack16EncodedKeyShown(t *testing.T) {
	shown := func(cmd string) string {
		raw, _ := json.Marshal(map[string]any{"cmd": cmd})
		a, err := Classify(Invocation{ToolName: "exec_command", Arguments: raw}, "/w", nil)
		if err != nil {
			t.Fatalf("%q: %v", cmd, err)
		}
		return a.Redacted().Summary
	}
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
	pkcs8, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8PEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8})
	line := base64.StdEncoding.EncodeToString(keyPEM)
	line8 := base64.StdEncoding.EncodeToString(pkcs8PEM)
	wrapped := wrapBase64(line, 76, "\n")
	for _, c := range []struct{ cmd, key, keep string }{
		{"kubectl apply -f - <<EOF\napiVersion: v1\nkind: Secret\ntype: kubernetes.io/tls\ndata:\n  tls.key: " + line + "\nEOF\nkubectl rollout restart deploy/web",
			line, "\nEOF\nkubectl rollout restart deploy/web"},
		{"export TLS_KEY_B64=" + line8 + " && ./deploy.sh", line8, " && ./deploy.sh"},
		{"echo '" + wrapped + "' | base64 -d > key.pem && chmod 600 key.pem", wrapped, "' | base64 -d > key.pem && chmod 600 key.pem"},
		{`curl -d '{"key": "` + wrapBase64(line, 64, `\n`) + `"}' https://vault.example/v1/k`, line, `"}' https://vault.example/v1/k`},
	} {
		got := keyReaderShown(t, c.cmd)
		for _, l := range strings.Split(strings.ReplaceAll(c.key, `\n`, "\n"), "\n") {
			if len(l) >= 16 && strings.Contains(got, l[len(l)/2:]) {
				t.Errorf("%q shown as %q: the encoded key is kept", c.cmd[:40], got)
				break
			}
		}
		if strings.Contains(got, line[40:120]) || strings.Contains(got, line8[40:120]) {
			t.Errorf("%q shown as %q: the encoded key is kept", c.cmd[:40], got)
		}
		if !strings.Contains(got, c.keep) {
			t.Errorf("control %q: shown as %q, %q lost", c.cmd[:40], got, c.keep)
		}
	}
	// Controls: a certificate and a public key encoded so are shown, and a
	// path that starts the same way.
	pub, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	cert := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: append(der, der...)}))
	pubLine := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: append(pub, pub...)}))
	for _, cmd := range []string{
		"echo " + cert + " | base64 -d > ca.pem",
		"echo " + pubLine + " | base64 -d > pub.pem",
		"ls " + line[:100] + "/" + line[100:300] + " && make",
	} {
		if got := shown(cmd); got != "Run "+cmd {
			t.Errorf("control %q: shown as %q", cmd[:40], got)
		}
	}
}

package domain

import (
	"strings"
	"testing"
)

// TestRedactOtherPrivateKeys: the private keys the last notes left shown,
// written by a command: a PuTTY key file's private lines, a minisign or
// signify secret key, a JSON Web Key's private members (pretty-printed,
// on one line, with its quotes escaped in a shell string). Each was kept in
// clear in the command's events, audit rows and approval request, holding
// none of the patterns' needles and no BEGIN marker. Controls: the public
// halves (PuTTY's public lines, a minisign public key, a JWK's "n", "e",
// "x", "y"), what runs after each key, and a JSON value of the same
// length under another name, stay in view.
func TestRedactOtherPrivateKeys(t *testing.T) {
	const (
		pub   = "AAAAC3NzaC1lZDI1NTE5AAAAIOtE3cLhI4wJXk2q8zC0y9B2sYQbXk0pJ8cVn2dP3aLm"
		priv1 = "AAAAIG9xW3n0t7QeB1k4Zr2YpJ8uVn6cXmLq0dHs5aTfKc3bAAAAEHJvb3RAZXhhbXBs"
		priv2 = "ZS5jb20AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
		mini  = "RWRTY0IyQmF4c0RvUGlPQ1l3bGhhV2xpdnFmVjlaZTBvSWV0dUZ4dHhtRWhYSlZkT0tLcnNQdUJ2Y2dr"
		minip = "RWQ0b3dSb3V0ZUxpbmVGb3JUaGVQdWJsaWNLZXlPZk1pbmlzaWdu"
		jwkD  = "X4cTteJY_gn4FYPsXB8rdXix5vwsg1FLN5E3EaG6RJoVH-HLLKD9M7dx5oo7GURknchnrRweUkC7hT5fJLM0WbFAKNLWY2vv7B6NqXSzUvxT0_YSfqijwp3RTzlBaCxWp4doFk5N2o8Gy_nHNKroADIkJ46pRUohsXywbReAdYaMwFs9tv8d_cPVY3i07a3t8MN6TNwm0dSawm9v47UiCl3Sk5ZiG7xojPLu4sbg1U2jx4IBTNBznbJSzFHK66jT8bgkuqsk0GjskDJk19Z4qwjwbsnn4j2WBii3RL-Us2lGVkY8fkFzme1z0HbIkfz0Y6mqnOYtqc0X4jfcKoAC8Q"
		jwkP  = "83i-7IvMGXoMXCskv73TKr8637FiO7Z27zv8oj6pbWUQyLPQBQxtPVnwD20R-60eTDmD2ujnMt5PoqMrm8RfmNhVWDtjjMmCMjOpSXicFHj7XOuVIYQyqVWlWEh6dN36GVZYk93N8Bc9vY41xy8B9RzzOGVQzXvNEvn7O0nVbfs"
		jwkN  = "ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ"
		kOct  = "GawgguFyGrWKav7AX4VKUg"
	)
	putty := "cat > ~/.ssh/deploy.ppk <<'PPK'\nPuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 2\n" +
		pub + "\n" + priv1[:8] + "\nPrivate-Lines: 2\n" + priv1 + "\n" + priv2 + "\nPrivate-MAC: 5a1c0d\nPPK\nrsync -a ~/work/ backuphostname.example:"
	minisign := "printf 'untrusted comment: minisign encrypted secret key\\n" + mini + "\\n' > ~/.minisign/minisign.key && minisign -Sm release.tar.gz"
	signify := "cat > k.sec <<EOF\nuntrusted comment: signify secret key\n" + mini + "\nEOF\nsignify -S -s k.sec -m release.tar.gz"
	minisignPub := "echo 'untrusted comment: minisign public key 1A2B\n" + minip + "' > minisign.pub"
	jwkPretty := "cat > jwk.json <<EOF\n{\n  \"kty\": \"RSA\",\n  \"n\": \"" + jwkN + "\",\n  \"e\": \"AQAB\",\n  \"d\": \"" + jwkD + "\",\n  \"p\": \"" + jwkP + "\"\n}\nEOF\n./sign --key jwk.json"
	jwkOneLine := `curl -d '{"keys":[{"kty":"oct","k":"` + kOct + `","alg":"HS256"},{"kty":"EC","crv":"P-256","x":"` + jwkN[:43] + `","d":"` + jwkD[:43] + `"}]}' https://vault.example/v1/jwks`
	jwkEscaped := `sh -c "echo {\"kty\":\"RSA\",\"dp\":\"` + jwkP + `\",\"qi\":\"` + jwkP[1:] + `\"} > k.json; make upload"`
	for _, c := range []struct {
		name       string
		in         string
		hide, keep []string
	}{
		{"PuTTY key file", putty, []string{priv1, priv2},
			[]string{pub, "Private-Lines: 2\n[redacted]\n[redacted]\nPrivate-MAC: 5a1c0d\nPPK\nrsync -a ~/work/ backuphostname.example:"}},
		{"minisign secret key", minisign, []string{mini[:40]}, []string{`\n' > ~/.minisign/minisign.key && minisign -Sm release.tar.gz`}},
		{"signify secret key", signify, []string{mini[:40]}, []string{"EOF\nsignify -S -s k.sec -m release.tar.gz"}},
		{"JWK pretty-printed", jwkPretty, []string{jwkD[:40], jwkP[:40]}, []string{jwkN, `"e": "AQAB"`, "}\nEOF\n./sign --key jwk.json"}},
		{"JWK set on one line", jwkOneLine, []string{kOct, jwkD[:43]}, []string{jwkN[:43], `"alg":"HS256"`, "https://vault.example/v1/jwks"}},
		{"JWK escaped in a shell string", jwkEscaped, []string{jwkP[:40], jwkP[1:41]}, []string{`"} > k.json; make upload"`}},
		// Controls: public keys, and a long value under another name.
		{"minisign public key", minisignPub, nil, []string{minip}},
		{"another member", `{"kid":"` + jwkN[:60] + `","use":"sig","data":"` + jwkD[:60] + `"}`, nil, []string{jwkN[:60], jwkD[:60]}},
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
}

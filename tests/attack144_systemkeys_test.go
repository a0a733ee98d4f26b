package tests

import (
	"os"
	"path/filepath"
	"testing"
)

// attack144SystemSecrets are the machine's secrets beside review 142's
// (domain.SensitiveSystemPaths), named by review 142's own test
// (Kubernetes' and k3s's admin kubeconfigs) or of the same kind: the
// cluster's CA and service-account keys, the kubelet's client key, Debian's
// MySQL maintenance password, PPP's and Postfix's SASL passwords, the LDAP
// bind secrets, SSSD's bind password, Wi-Fi pre-shared keys, the GitLab
// runner's token, Dropbear's host keys.
var attack144SystemSecrets = []string{
	"/etc/kubernetes/admin.conf",
	"/etc/kubernetes/pki/ca.key",
	"/etc/kubernetes/pki/sa.key",
	"/etc/rancher/k3s/k3s.yaml",
	"/etc/mysql/debian.cnf",
	"/etc/ppp/chap-secrets",
	"/etc/ppp/pap-secrets",
	"/etc/postfix/sasl_passwd",
	"/etc/ldap.secret",
	"/etc/pam_ldap.secret",
	"/etc/sssd/sssd.conf",
	"/etc/wpa_supplicant/wpa_supplicant.conf",
	"/etc/gitlab-runner/config.toml",
	"/etc/dropbear/dropbear_ed25519_host_key",
}

// attack144SystemFile makes p (mode 0600, root's) when it is missing, and
// what is missing above it, removed after the test; it skips unless root.
func attack144SystemFile(t *testing.T, p string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	if _, err := os.Lstat(p); err == nil {
		return p
	}
	top := p
	for d := filepath.Dir(p); d != "/"; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		top = d
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("secret-attack144\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(top) })
	return p
}

// TestAttack144_SystemSecretsReadable: in a supervised turn, read_file of
// each is allowed outright (a runtime whose file tools run as root, in a
// container or on a cluster node, reads it into the agent's context),
// while review 142's /etc/ssh/ssh_host_ed25519_key and /etc/wireguard are
// refused sensitive_path (TestAttack144_SystemSecretsReadableControl).
// Each file is made for the test where the machine has none (a missing
// path is refused missing_path), and removed after.
func TestAttack144_SystemSecretsReadable(t *testing.T) {
	for i, p := range attack144SystemSecrets {
		d := attack142ReadFile(t, "sys144"+string(rune('a'+i)), attack144SystemFile(t, p))
		if d.Decision != "deny" {
			t.Errorf("read_file of %s in a supervised turn: %s/%s/%s, want deny/sensitive_path, as /etc/shadow and /etc/ssl/private are", p, d.Decision, d.Reason, d.Refusal)
		}
	}
}

// TestAttack144_SystemSecretsReadableControl: review 142's system secrets
// are refused sensitive_path.
func TestAttack144_SystemSecretsReadableControl(t *testing.T) {
	for i, p := range []string{"/etc/ssh/ssh_host_ed25519_key", "/etc/wireguard/wg0.conf", "/etc/krb5.keytab", "/etc/shadow"} {
		d := attack142ReadFile(t, "sys144c"+string(rune('a'+i)), attack144SystemFile(t, p))
		if d.Decision != "deny" || d.Refusal != "sensitive_path" {
			t.Errorf("control: read_file of %s: %s/%s/%s, want deny/sensitive_path", p, d.Decision, d.Reason, d.Refusal)
		}
	}
}

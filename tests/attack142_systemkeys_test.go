package tests

import (
	"net/http"
	"os"
	"testing"
)

// attack142SnakeoilKey is a TLS private key every Debian and Ubuntu system
// with ssl-cert installed has, root:ssl-cert 0640, as /etc/shadow is
// root:shadow 0640.
const attack142SnakeoilKey = "/etc/ssl/private/ssl-cert-snakeoil.key"

// TestAttack142_SystemPrivateKeysReadable: /etc is a system read root of
// every restricted snapshot, and the sensitive system paths carved out of
// it are /etc/shadow and /etc/gshadow (and their backups) only. The
// machine's private keys beside them are not held: TLS keys in
// /etc/ssl/private (and /etc/letsencrypt, /etc/pki/tls/private), the SSH
// host keys (/etc/ssh/ssh_host_*_key), Kubernetes' and k3s's admin
// kubeconfigs, WireGuard's and NetworkManager's secrets. In a supervised
// turn, read_file of the snakeoil key is allowed outright (file_read
// allow, no question): a runtime whose file tools run as root or in the
// key's group (a container's agent, Claude Code in a dev container, whose
// Read the hook decides the same) reads the key into the agent's context.
// (A command of the turn that opens it is refused by the kernel here: the
// sandbox's user is not the key's.)
//
// Control (TestAttack142_SystemPrivateKeysReadableControl): read_file of
// /etc/shadow, the same kind of file, is refused sensitive_path.
func TestAttack142_SystemPrivateKeysReadable(t *testing.T) {
	key := attack142SystemFile(t, attack142SnakeoilKey)
	d := attack142ReadFile(t, "key142", key)
	if d.Decision != "deny" {
		t.Errorf("read_file of %s in a supervised turn: %s/%s/%s, want deny/sensitive_path, as /etc/shadow is", key, d.Decision, d.Reason, d.Refusal)
	}
}

// TestAttack142_SystemPrivateKeysReadableControl: /etc/shadow is denied
// sensitive_path.
func TestAttack142_SystemPrivateKeysReadableControl(t *testing.T) {
	shadow := attack142SystemFile(t, "/etc/shadow")
	d := attack142ReadFile(t, "shadow142", shadow)
	if d.Decision != "deny" || d.Refusal != "sensitive_path" {
		t.Errorf("control: read_file of /etc/shadow: %s/%s/%s, want deny/sensitive_path", d.Decision, d.Reason, d.Refusal)
	}
}

// attack142SystemFile skips unless p exists and this test runs as root
// (the server then resolves p as root would).
func attack142SystemFile(t *testing.T, p string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("premise: %s: %v", p, err)
	}
	return p
}

// attack142ReadFile starts a supervised turn as a runtime credential and
// asks read_file of p.
func attack142ReadFile(t *testing.T, id, p string) decisionAnswer {
	t.Helper()
	s := StartServer(t, "")
	agent := roAs(s, s.credential("agent", "runtime"))
	ws := workspace(t)
	agent.JSON("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id,
		"workspace_root": ws, "cwd": ws, "permission_profile": map[string]any{"mode": "supervised"}}, http.StatusCreated, nil)
	d := agent.decide(id, "read", "read_file", map[string]any{"path": p})
	t.Logf("read_file %s: %s/%s/%s", p, d.Decision, d.Reason, d.Refusal)
	return d
}

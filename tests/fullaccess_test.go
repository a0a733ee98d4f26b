package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFullAccessExecCannotReadGatewaySecrets: through the built binary, a
// full_access turn's command cannot read the server's token or store —
// with cat, after trying to unmount the mask, or from a namespace of its
// own — while it reads the workspace, writes outside it on the host and
// runs as the server's user. Control: the test itself reads the token.
func TestFullAccessExecCannotReadGatewaySecrets(t *testing.T) {
	t.Parallel()
	root := workspace(t)
	outside := t.TempDir()
	s := StartServer(t, "")
	b, err := os.ReadFile(filepath.Join(s.Data, "token"))
	token := strings.TrimSpace(string(b))
	if err != nil || len(token) < 16 {
		t.Fatalf("control: the token outside the sandbox: %v %q", err, b)
	}
	s.startTurn("fa-secrets", "ws", "full_access", root)
	run := func(call string, argv ...string) decisionAnswer {
		t.Helper()
		status, d := s.exec("fa-secrets", "", map[string]any{"tool_call_id": call, "argv": argv, "cwd": root})
		if status != http.StatusOK || !d.Ran || d.Result == nil {
			t.Fatalf("exec %v: %d %+v", argv, status, d)
		}
		return d
	}
	data := s.Data
	if d := run("cat-token", "cat", filepath.Join(data, "token")); d.Result.ExitCode == 0 || strings.Contains(d.Result.Stdout, token) {
		t.Fatalf("cat <data>/token: %+v", d.Result)
	}
	attack := "umount -l " + data + "; cat " + data + "/token " + data + "/events.db; " +
		"unshare -Urm sh -c 'umount -l " + data + "; cat " + data + "/token'; cat /proc/1/root" + data + "/token"
	if d := run("attack", "sh", "-c", attack); strings.Contains(d.Result.Stdout, token) || strings.Contains(d.Result.Stdout, "bbolt") {
		t.Fatalf("attack read the secrets: %+v", d.Result)
	}
	if d := run("cat-ws", "cat", filepath.Join(root, "a.txt")); d.Result.ExitCode != 0 || d.Result.Stdout != "hello\n" {
		t.Fatalf("control: cat <workspace>/a.txt: %+v", d.Result)
	}
	if d := run("write-outside", "sh", "-c", "echo w > "+outside+"/w.txt; id -u"); d.Result.ExitCode != 0 || !exists(filepath.Join(outside, "w.txt")) ||
		strings.TrimSpace(d.Result.Stdout) != strconv.Itoa(os.Geteuid()) {
		t.Fatalf("control: a write outside the workspace, as the server's uid: %+v", d.Result)
	}
}

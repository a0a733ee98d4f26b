package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
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
	attack := "umount -l " + data + "; cat " + data + "/token " + data + "/events.db " + data + "/events/*.seg; " +
		"unshare -Urm sh -c 'umount -l " + data + "; cat " + data + "/token'; cat /proc/1/root" + data + "/token"
	if d := run("attack", "sh", "-c", attack); strings.Contains(d.Result.Stdout, token) || strings.Contains(d.Result.Stdout, "bbolt") || strings.Contains(d.Result.Stdout, "TLG1") {
		t.Fatalf("attack read the secrets: %+v", d.Result)
	}
	if seg, err := os.ReadFile(filepath.Join(data, "events", "00000000000000000000.seg")); err != nil || !strings.Contains(string(seg), "TLG1") {
		t.Fatalf("control: the store's first segment read from outside holds a frame: %v", err)
	}
	// The lean helper the server starts for every command (next to it)
	// cannot be rewritten: its next run would precede every mask.
	helper := filepath.Join(filepath.Dir(bin), "turnstile-sandbox")
	if d := run("helper", "sh", "-c", "touch "+helper+" || : >> "+helper+" || mv "+helper+" "+helper+".x"); d.Result.ExitCode == 0 {
		t.Fatalf("a full_access command changed the helper program: %+v", d.Result)
	}
	if err := os.Chtimes(helper, time.Now(), time.Now()); err != nil {
		t.Fatalf("control: touching the helper outside the sandbox: %v", err)
	}
	if d := run("cat-ws", "cat", filepath.Join(root, "a.txt")); d.Result.ExitCode != 0 || d.Result.Stdout != "hello\n" {
		t.Fatalf("control: cat <workspace>/a.txt: %+v", d.Result)
	}
	if d := run("write-outside", "sh", "-c", "echo w > "+outside+"/w.txt; id -u"); d.Result.ExitCode != 0 || !exists(filepath.Join(outside, "w.txt")) ||
		strings.TrimSpace(d.Result.Stdout) != strconv.Itoa(os.Geteuid()) {
		t.Fatalf("control: a write outside the workspace, as the server's uid: %+v", d.Result)
	}
}

// TestFullAccessUnisolatedFlagNeverWeakens: serve --full-access-unisolated
// only accepts unisolated commands where the kernel has no user namespaces:
// on this machine (which has them) a full_access command still cannot read
// the token, and the snapshot names no degradation.
func TestFullAccessUnisolatedFlagNeverWeakens(t *testing.T) {
	t.Parallel()
	root := workspace(t)
	s := StartServer(t, "", "--full-access-unisolated")
	b, err := os.ReadFile(filepath.Join(s.Data, "token"))
	if err != nil {
		t.Fatal(err)
	}
	s.startTurn("fa-flag", "ws", "full_access", root)
	var turn struct {
		SecuritySnapshot struct {
			Enforcement struct {
				Status       string `json:"status"`
				Degradations []any  `json:"degradations"`
			} `json:"enforcement"`
		} `json:"security_snapshot"`
	}
	s.JSON("GET", "/v1/turns/fa-flag", nil, http.StatusOK, &turn)
	if e := turn.SecuritySnapshot.Enforcement; e.Status != "active" || len(e.Degradations) != 0 {
		t.Fatalf("enforcement with the flag on a machine with user namespaces: %+v", e)
	}
	status, d := s.exec("fa-flag", "", map[string]any{"tool_call_id": "c", "argv": []string{"cat", filepath.Join(s.Data, "token")}, "cwd": root})
	if status != http.StatusOK || !d.Ran || d.Result == nil || d.Result.ExitCode == 0 || strings.Contains(d.Result.Stdout, strings.TrimSpace(string(b))) {
		t.Fatalf("cat <data>/token with the flag: %d %+v %+v", status, d, d.Result)
	}
	status, d = s.exec("fa-flag", "", map[string]any{"tool_call_id": "ok", "argv": []string{"cat", filepath.Join(root, "a.txt")}, "cwd": root})
	if status != http.StatusOK || d.Result == nil || d.Result.Stdout != "hello\n" {
		t.Fatalf("control: cat a.txt with the flag: %d %+v", status, d.Result)
	}
}

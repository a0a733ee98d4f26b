package tests

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	osexec "os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestAttack43ReadRootPrivateDirOracle (forty-third review, low): the
// forty-first fix hides the server's view only "where the turn may not
// read". The system read roots (/etc, /opt, /usr, ...) are readable to
// every restricted turn by policy, yet hold directories the agent's own
// user cannot enter (/etc/ssl/private, /etc/polkit-1/rules.d, a vendor's
// 0700 directory under /opt, here one made for the test). The server
// resolves there as itself: read_file of a file in such a directory is
// allowed when it exists and missing_path when it does not, and explain's
// resolved_path names where a link there leads. The agent learns, one call
// each, what its user's stat is refused (which keys, which rules exist).
//
// Fixed would look like: judge existence (and links) in read roots as the
// agent's user would see them (a lookup the agent's user cannot make is
// answered as for a missing path and a present one alike), or answer
// allowed-but-unreadable and missing the same in restricted turns.
//
// Control: nobody cannot stat either path; a workspace file's missing and
// present answers differ as documented.
func TestAttack43ReadRootPrivateDirOracle(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the agent's user is played by nobody (65534)")
	}
	priv, err := os.MkdirTemp("/opt", "attack43-vendor-")
	if err != nil {
		t.Skip("cannot make a directory under /opt:", err)
	}
	t.Cleanup(func() { os.RemoveAll(priv) })
	if err := os.Chmod(priv, 0o700); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(priv, "license.key")
	if err := os.WriteFile(secret, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(priv, "no-such.key")
	link := filepath.Join(priv, "current")
	const target = "/opt/acme-merger-2027"
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{secret, missing, link} {
		cmd := osexec.Command("/usr/bin/stat", "-c", "%n %N", p)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		if out, err := cmd.CombinedOutput(); err == nil {
			t.Fatalf("control: nobody could stat %s: %s", p, out)
		}
	}

	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("a43-rr", "ws1", "supervised", root)
	read := func(id, p string) decisionAnswer {
		t.Helper()
		return s.decide("a43-rr", id, "read_file", map[string]any{"path": p})
	}
	if a, b := read("c1", filepath.Join(root, "a.txt")), read("c2", filepath.Join(root, "nope.txt")); a.Decision != "allow" || b.Refusal != "missing_path" {
		t.Fatalf("control: workspace reads: %s %s / %s %s", a.Decision, a.Refusal, b.Decision, b.Refusal)
	}

	var leaks []string
	a, b := read("p1", secret), read("p2", missing)
	if a.Decision != b.Decision || a.Refusal != b.Refusal {
		leaks = append(leaks, "read_file of "+secret+" answers "+a.Decision+" "+a.Refusal+", of "+missing+" "+b.Decision+" "+b.Refusal+": the file exists")
	}
	status, body := s.Request("GET", "/v1/turns/a43-rr/explain?path="+url.QueryEscape(link), nil)
	var ex struct {
		ResolvedPath string `json:"resolved_path"`
	}
	if status == http.StatusOK && json.Unmarshal(body, &ex) == nil && ex.ResolvedPath == target {
		leaks = append(leaks, "explain of "+link+" answers resolved_path "+ex.ResolvedPath+": where the link leads")
	}
	for _, l := range leaks {
		t.Errorf("in a system read root, the runtime learns what only the server's user sees in a directory its own user cannot enter: %s", l)
	}
}

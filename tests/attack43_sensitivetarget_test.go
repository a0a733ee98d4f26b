package tests

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestAttack43SensitiveRefusalNamesLinkTarget (forty-third review, low): a
// sensitive path is refused before anything else, and the refusal names
// the path resolved when it resolves (sensitiveRefusal's shown = canon).
// The server resolves as its own user, so a read of a name in a directory
// the agent's user cannot enter (a 0700 home) that is a link to a
// sensitive file answers sensitive_path, and explain's resolved_path is the
// link's target (/etc/shadow), while a link there to anything else, or a
// plain file, answers outside_allowed_roots with the path as written. The
// forty-first fix says no refusal tells where links lead in directories
// the turn may not read; this one does, one call each, for every target
// the sensitive list names (credential stores under /home/*, /root).
//
// Likewise a link there to a file the turn may read (/etc/hostname) is
// allowed, while a link to anywhere else is refused: a read decision
// tells whether a name there is a link into the roots.
//
// Control: the agent's own user cannot readlink it; a plain file and a
// link elsewhere answer the same.
func TestAttack43SensitiveRefusalNamesLinkTarget(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the agent's user is played by nobody (65534)")
	}
	if _, err := os.Stat("/etc/shadow"); err != nil {
		t.Skip("no /etc/shadow")
	}
	s := StartServer(t, "")
	root := workspace(t)
	base := t.TempDir()
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "person-home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	keys := filepath.Join(home, "keys")
	if err := os.Symlink("/etc/shadow", keys); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(home, "notes")
	if err := os.Symlink(filepath.Join(base, "elsewhere.txt"), notes); err != nil {
		t.Fatal(err)
	}
	// A link to a file the turn may read (/etc is a read root of the
	// default policy).
	hosts := filepath.Join(home, "hosts")
	if err := os.Symlink("/etc/hostname", hosts); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(home, "plain.txt")
	if err := os.WriteFile(plain, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{keys, notes, hosts, plain} {
		cmd := osexec.Command("/usr/bin/stat", "-c", "%n %N", p)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		if out, err := cmd.CombinedOutput(); err == nil {
			t.Fatalf("control: nobody could stat %s: %s", p, out)
		}
	}

	s.startTurn("a43-sens", "ws1", "supervised", root)
	read := func(id, p string) decisionAnswer {
		t.Helper()
		return s.decide("a43-sens", id, "read_file", map[string]any{"path": p})
	}
	// Controls: a plain file and a link to an ordinary file there answer
	// the same; /etc/shadow asked by name is sensitive.
	if a, b := read("c1", plain), read("c2", notes); a.Refusal != "outside_allowed_roots" || b.Refusal != "outside_allowed_roots" {
		t.Fatalf("control: %s and %s, want outside_allowed_roots both", a.Refusal, b.Refusal)
	}
	if d := read("c3", "/etc/shadow"); d.Refusal != "sensitive_path" {
		t.Fatalf("control: /etc/shadow answers %s, want sensitive_path", d.Refusal)
	}

	var leaks []string
	if d := read("p1", keys); d.Refusal != "outside_allowed_roots" {
		leaks = append(leaks, "read_file of "+keys+" answers "+d.Refusal+" (of "+notes+", a link too, outside_allowed_roots): it is a link to a sensitive file")
	}
	if d := read("p2", hosts); d.Refusal != "outside_allowed_roots" {
		leaks = append(leaks, "read_file of "+hosts+" answers "+d.Decision+" "+d.Refusal+" (of "+notes+", a link too, outside_allowed_roots): it is a link to a file the turn may read")
	}
	for _, p := range []string{keys, hosts} {
		status, body := s.Request("GET", "/v1/turns/a43-sens/explain?path="+url.QueryEscape(p), nil)
		var ex struct {
			ResolvedPath string `json:"resolved_path"`
		}
		if status == http.StatusOK && json.Unmarshal(body, &ex) == nil && strings.HasPrefix(ex.ResolvedPath, "/etc/") {
			leaks = append(leaks, "explain of "+p+" answers resolved_path "+ex.ResolvedPath+": where the link leads")
		}
	}
	for _, l := range leaks {
		t.Errorf("a supervised turn's runtime learns where links lead in a directory only the server's user may enter: %s", l)
	}
}

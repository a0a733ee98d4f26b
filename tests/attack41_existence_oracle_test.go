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

// TestAttack41DecisionTellsWhatTheServerSees (forty-first review, low): a
// decision is judged in the server's process, with the server's view of the
// file system. The README says a read outside the roots "is refused as
// such" (outside_allowed_roots), whether the path exists or not; but the
// path is resolved before the roots are compared, and the resolution
// fails differently on what is there: in a supervised turn, read_file of
// <dir>/merger-2027.pdf/x is missing_path ("a component of the path is not
// a directory") when that file exists and outside_allowed_roots when it
// does not; <dir>/name/.. is missing_path when name does not exist. And
// GET /v1/turns/{id}/explain?path= (a runtime may call it) answers the
// path's resolved_path: where a symlink in that directory leads. The
// agent, running as its own user, so learns, one call each and without a
// person asked, what lies in directories only the server's user may enter
// (the person's 0700 home when the server runs as the person, /root under
// a root server): which files exist there and where its links point.
//
// Control: the agent's own user (nobody here) can tell none of it; a read
// of the workspace's own missing file is missing_path, and of a path
// outside the roots, written plainly, outside_allowed_roots either way.
func TestAttack41DecisionTellsWhatTheServerSees(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the agent's user is played by nobody (65534)")
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
	secret := filepath.Join(home, "merger-2027.pdf")
	if err := os.WriteFile(secret, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	const target = "/srv/acme-merger/dataroom"
	if err := os.Symlink(target, filepath.Join(home, "dataroom")); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(home, "no-such-file.pdf")

	// Control: the agent's own user can stat nothing in there.
	for _, p := range []string{secret, missing, filepath.Join(home, "dataroom")} {
		cmd := osexec.Command("/usr/bin/stat", "-c", "%n %N", p)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		if out, err := cmd.CombinedOutput(); err == nil {
			t.Fatalf("control: nobody could stat %s: %s", p, out)
		}
	}

	s.startTurn("a41-oracle", "ws1", "supervised", root)
	call := 0
	read := func(p string) decisionAnswer {
		t.Helper()
		call++
		return s.decide("a41-oracle", "probe-"+string(rune('a'+call)), "read_file", map[string]any{"path": p})
	}
	// Controls: the reference's answers.
	if d := read(filepath.Join(root, "nope.txt")); d.Decision != "deny" || d.Refusal != "missing_path" {
		t.Fatalf("control: read of a missing workspace file: %+v, want deny missing_path", d)
	}
	if a, b := read(secret), read(missing); a.Refusal != "outside_allowed_roots" || b.Refusal != "outside_allowed_roots" {
		t.Fatalf("control: plain reads outside the roots: %s and %s, want outside_allowed_roots both", a.Refusal, b.Refusal)
	}

	var leaks []string
	if a, b := read(secret+"/x"), read(missing+"/x"); a.Refusal != b.Refusal {
		leaks = append(leaks, "read_file of "+secret+"/x answers "+a.Refusal+", of "+missing+"/x "+b.Refusal+": the file exists")
	}
	if a, b := read(secret+"/.."), read(missing+"/.."); a.Refusal != b.Refusal {
		leaks = append(leaks, "read_file of "+secret+"/.. answers "+a.Refusal+", of "+missing+"/.. "+b.Refusal+": the file exists")
	}
	status, body := s.Request("GET", "/v1/turns/a41-oracle/explain?path="+url.QueryEscape(filepath.Join(home, "dataroom")), nil)
	var ex struct {
		ResolvedPath string `json:"resolved_path"`
	}
	if status == http.StatusOK && json.Unmarshal(body, &ex) == nil && strings.HasPrefix(ex.ResolvedPath, target) {
		leaks = append(leaks, "explain of "+filepath.Join(home, "dataroom")+" answers resolved_path "+ex.ResolvedPath+": where the link leads")
	}
	for _, l := range leaks {
		t.Errorf("a supervised turn's runtime credential learns what only the server's user sees: %s", l)
	}
}

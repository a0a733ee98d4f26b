package tests

import (
	"os"
	osexec "os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestAttack43PlantedLinkTellsWhatTheServerSees (forty-third review, low):
// the forty-first fix refuses, as outside_allowed_roots of the path as
// written, a lookup that fails where the turn may not read; but a lookup
// that does NOT fail (a missing last component, appended lexically) goes on
// to the escape check. The agent plants a symlink in its own workspace
// (which it may write) pointing into a directory its user cannot enter
// (a 0700 home, /root under a root server) and asks for <link>/<name>/x:
// when <name> is a file there the walk fails with ENOTDIR at a prefix the
// turn may not read (outside_allowed_roots), when it is missing the path
// resolves (to a missing file) and is symlink_escape. <link>/<name>/.. the
// other way round: a missing <name> fails (outside), an existing one
// resolves to the private directory (symlink_escape). Writes the same. One
// call each, no person asked: which files exist where only the server's
// user may look.
//
// Control: the agent's own user (nobody) can stat none of it; a planted
// link to the missing and to the existing name, asked plainly, answers
// the same code.
func TestAttack43PlantedLinkTellsWhatTheServerSees(t *testing.T) {
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
	missing := filepath.Join(home, "no-such-file.pdf")
	// The agent's link, in its own workspace (its user may create it:
	// a symlink's target need not be reachable).
	peek := filepath.Join(root, "peek")
	if err := os.Symlink(home, peek); err != nil {
		t.Fatal(err)
	}

	// Control: the agent's own user can stat nothing in there, through
	// the link or not.
	for _, p := range []string{secret, missing, filepath.Join(peek, "merger-2027.pdf"), filepath.Join(peek, "merger-2027.pdf", "x")} {
		cmd := osexec.Command("/usr/bin/stat", "-c", "%n %N", p)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		if out, err := cmd.CombinedOutput(); err == nil {
			t.Fatalf("control: nobody could stat %s: %s", p, out)
		}
	}

	s.startTurn("a43-link", "ws1", "supervised", root)
	call := 0
	ask := func(tool, p string) decisionAnswer {
		t.Helper()
		call++
		args := map[string]any{"path": p}
		if tool == "write_file" {
			args["content"] = "x"
		}
		return s.decide("a43-link", "probe-"+string(rune('a'+call)), tool, args)
	}
	// Control: the link itself, to an existing and a missing name, is
	// the same answer (symlink_escape, no target named).
	if a, b := ask("read_file", filepath.Join(peek, "merger-2027.pdf")), ask("read_file", filepath.Join(peek, "no-such-file.pdf")); a.Decision != "deny" || a.Refusal != b.Refusal {
		t.Fatalf("control: plain reads through the link: %s (%s) and %s, want one deny code", a.Refusal, a.Decision, b.Refusal)
	}

	var leaks []string
	for _, tool := range []string{"read_file", "write_file"} {
		for _, suffix := range []string{"/x", "/.."} {
			a := ask(tool, filepath.Join(peek, "merger-2027.pdf")+suffix)
			b := ask(tool, filepath.Join(peek, "no-such-file.pdf")+suffix)
			if a.Refusal != b.Refusal || a.Reason != b.Reason {
				leaks = append(leaks, tool+" of peek/merger-2027.pdf"+suffix+" answers "+a.Refusal+" ("+a.Reason+"), of peek/no-such-file.pdf"+suffix+" "+b.Refusal+" ("+b.Reason+"): the file exists")
			}
		}
	}
	for _, l := range leaks {
		t.Errorf("through a link it planted in its workspace, the runtime learns what only the server's user sees: %s", l)
	}
}

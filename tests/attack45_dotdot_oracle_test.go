package tests

import (
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestAttack45DotDotPastPrivateFileTellsItExists (forty-fifth review, low):
// the forty-first and forty-third fixes judge a lookup that fails where the
// turn may not read as a path that goes on, missing, from there. But the
// walk (canonicalWalk) applies ".." lexically to the prefix it has
// reached, without checking that the component before it is a directory,
// and a missing component followed by ".." is !ok (judged at the private
// directory, outside). So <home>/merger-2027.pdf/../../../..<workspace>/ok.txt
// climbs back into the workspace when the file exists (a read allowed,
// canonical path the workspace file) and is outside_allowed_roots when it
// does not: one read_file decision, nothing asked of a person, tells the
// supervised turn's runtime whether a file exists in a directory only the
// server's user may enter (the kernel itself answers ENOTDIR and EACCES
// for both, so the agent's user cannot tell them apart).
//
// Fixed would look like: a ".." after a component the walk found to be
// no directory fails (ENOTDIR) like the kernel's lookup; and a path whose
// walk passed through a directory the turn may not read is judged at that
// directory (outside) whatever follows, existing or not.
//
// Control: nobody (the agent's user) can stat either path; the same climb
// from a readable workspace directory is allowed, and plain reads of the
// two private paths are outside_allowed_roots both.
func TestAttack45DotDotPastPrivateFileTellsItExists(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the agent's user is played by nobody (65534)")
	}
	s := StartServer(t, "")
	root := workspace(t)
	if err := os.WriteFile(filepath.Join(root, "ok.txt"), []byte("ok"), 0o644); err != nil {
		t.Fatal(err)
	}
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
	climb := strings.Repeat("/..", strings.Count(secret, "/")+2) + filepath.Join(root, "ok.txt")

	for _, p := range []string{secret, missing, secret + climb, missing + climb} {
		cmd := osexec.Command("/usr/bin/stat", "-c", "%n", p)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		if out, err := cmd.CombinedOutput(); err == nil {
			t.Fatalf("control: nobody could stat %s: %s", p, out)
		}
	}

	s.startTurn("a45-dotdot", "ws1", "supervised", root)
	call := 0
	read := func(p string) decisionAnswer {
		t.Helper()
		call++
		return s.decide("a45-dotdot", "probe-"+string(rune('a'+call)), "read_file", map[string]any{"path": p})
	}
	if d := read(root + climb); d.Decision != "allow" {
		t.Fatalf("control: the climb from the workspace back to its ok.txt: %+v, want allow", d)
	}
	if a, b := read(secret), read(missing); a.Refusal != "outside_allowed_roots" || b.Refusal != "outside_allowed_roots" {
		t.Fatalf("control: plain reads outside the roots: %s and %s, want outside_allowed_roots both", a.Refusal, b.Refusal)
	}

	a, b := read(secret+climb), read(missing+climb)
	if a.Decision != b.Decision || a.Refusal != b.Refusal {
		t.Errorf("a supervised turn's runtime learns that %s exists, where its user cannot look: read_file of %s answers %s %s, of %s %s %s",
			secret, secret+climb, a.Decision, a.Refusal, missing+climb, b.Decision, b.Refusal)
	}
}

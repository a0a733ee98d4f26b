//go:build knownlimits

package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack85_SecretBindAliasRestricted (eighty-fifth review, low-medium:
// the gateway's admin token is read by a restricted command). The README's
// row "the gateway's secrets, full_access included" promises that the data
// directory and token files are masked "at every path their filesystem is
// mounted at". The full_access helper does that (maskSecrets walks the
// mount table, and its test binds the base, the data directory and a
// directory inside it a second time). A restricted command's helper masks a
// secret only at its path (mountPlan: opMask of the carve-out), and
// Landlock, whose rules follow the path walked, grants whatever lies below
// a granted root. So when the data directory's file system is mounted a
// second time inside a root (a bind of its parent into the workspace, a
// chroot built there with the host's /var bound in, a btrfs top level), an
// auto_accept_edits command reads the token through that mount; under a
// root server the writable root's recursive idmap even makes the 0600
// root-owned token the sandbox uid's own.
//
// Controls: the token at its own path is masked; a neighbour file of the
// data directory is read through the same mount (the mount works).
//
// Fix: in the restricted helper, mask each gateway secret (the snapshot's
// sensitive, system-provenance deny entries) as the full_access helper does:
// at every mount of its file system whose root contains it (maskTargets),
// after the roots are attached, pinning the directories above.
func TestAttack85_SecretBindAliasRestricted(t *testing.T) {
	requireRoot(t)
	f := requireKernel(t, true)
	const token = "GATEWAY-ADMIN-TOKEN-85"
	base := visibleWorkspace(t)
	data := base + "/state/turnstile"
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(data+"/token", []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(base+"/state/neighbour.txt", []byte("neighbour\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ws := base + "/ws"
	if err := os.MkdirAll(ws+"/backup", 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "--bind", base+"/state", ws+"/backup").CombinedOutput(); err != nil {
		t.Fatalf("bind: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", ws+"/backup").Run() })
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	domain.AddSensitivePaths(s, []string{data, data + "/token"}) // as serve does (secretPaths)

	r := sh(t, s, "cat "+data+"/token; echo; cat "+ws+"/backup/neighbour.txt; cat "+ws+"/backup/turnstile/token")
	t.Logf("exit %d\nstdout:\n%s\nstderr:\n%s", r.ExitCode, r.Stdout, r.Stderr)
	out := string(r.Stdout)
	if !strings.Contains(out, "neighbour") {
		t.Fatalf("control: the second mount of the data directory's file system is not readable: %q %q", r.Stdout, r.Stderr)
	}
	if strings.HasPrefix(out, token) {
		t.Fatalf("control: the token was read at its own path: %q", out)
	}
	if strings.Contains(out, token) {
		t.Errorf("an auto_accept_edits command read the gateway's token through %s/backup, a second mount of its file system", ws)
	}
}

package tests

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAttack81SymlinkedHomeStoreWriteAllowed (eighty-first review, medium;
// the sandbox package's TestAttack81SensitiveStoreWriteDecisionByTheHomesRealPath
// end to end): a turn rooted at a home that is a symlink
// (/home/NAME -> elsewhere: a home on another disk) asks apply_patch (adding a file) of the
// home's missing .kube/config by the home's real path, and the server
// allows it in auto_accept_edits with no person asked; the runtime writes
// a kubeconfig whose exec plugin the person's next kubectl runs. The
// sensitive pattern /home/*/.kube/config is matched against the path as
// written and against its prefix canonicalised (/home), never against the
// matched home's real path.
//
// Control: the same write named through /home is denied (sensitive_path).
func TestAttack81SymlinkedHomeStoreWriteAllowed(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root: makes a home under /home")
	}
	if fi, err := os.Stat("/home"); err != nil || !fi.IsDir() {
		t.Skip("no /home")
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(base, "alice")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	home, err := os.MkdirTemp("/home", "turnstile81-")
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(home)
	if err := os.Symlink(real, home); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(home) })

	s := StartServer(t, "")
	s.startTurn("a81-home", "ws1", "auto_accept_edits", home)
	add := func(p string) map[string]any {
		return map[string]any{"patch": "*** Begin Patch\n*** Add File: " + p + "\n+apiVersion: v1\n+users:\n+- name: u\n+  user:\n+    exec:\n+      command: /bin/sh\n*** End Patch\n"}
	}
	// Control: through /home, refused.
	if a := s.decide("a81-home", "ctl", "apply_patch", add(home+"/.kube/config")); a.Decision != "deny" {
		t.Fatalf("control: apply_patch %s/.kube/config: %s (%s %s), want deny", home, a.Decision, a.Reason, a.Refusal)
	}
	// Control: an ordinary file by the real path is allowed.
	if a := s.decide("a81-home", "ok", "apply_patch", add(real+"/notes.txt")); a.Decision != "allow" {
		t.Fatalf("control: apply_patch %s/notes.txt: %s (%s), want allow", real, a.Decision, a.Refusal)
	}
	a := s.decide("a81-home", "atk", "apply_patch", add(real+"/.kube/config"))
	t.Logf("attack: %s %s %s", a.Decision, a.Reason, a.Refusal)
	if a.Decision == "allow" {
		t.Errorf("apply_patch adding the home's credential store by its real path %s/.kube/config was allowed (through %s it is denied)", real, home)
	}
}

package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack100_SandboxStateDirectoryFalseDeny (hundredth review, a false
// refusal b11122a introduced): `turnstile sandbox` now denies its command
// "the default data directory of the user running it", which it takes to
// be $STATE_DIRECTORY whenever that is set. systemd sets STATE_DIRECTORY
// for every service with a StateDirectory=, so an agent runtime that runs
// as such a service, keeps its workspaces in its own state directory
// (/var/lib/<runtime>/ws/…) and sandboxes each command with `turnstile
// sandbox`, finds that directory, which holds no turnstile data and no
// token, taken for a server's: the whole root lies in a sensitive path,
// and every command is refused (126, cwd_not_readable), full_access
// included.
//
// Control: the same layout without STATE_DIRECTORY runs the command in
// every mode.
func TestAttack100_SandboxStateDirectoryFalseDeny(t *testing.T) {
	state := t.TempDir() // the runtime's own StateDirectory=
	ws := filepath.Join(state, "workspaces", "w1")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	base := append(cleanEnv(), "HOME="+home, "XDG_STATE_HOME="+filepath.Join(home, ".local", "state"))
	for _, mode := range []string{"supervised", "auto_accept_edits", "full_access"} {
		if out, errOut, code := runCLIEnv(t, base, "sandbox", "--mode", mode, "--root", ws, "--", "/bin/cat", "a.txt"); code != 0 || out != "hello\n" {
			t.Fatalf("control: %s without STATE_DIRECTORY: %d %q %s", mode, code, out, errOut)
		}
	}
	env := append(base, "STATE_DIRECTORY="+state)
	for _, mode := range []string{"supervised", "auto_accept_edits", "full_access"} {
		out, errOut, code := runCLIEnv(t, env, "sandbox", "--mode", mode, "--root", ws, "--", "/bin/cat", "a.txt")
		if code != 0 || out != "hello\n" {
			t.Errorf("turnstile sandbox --mode %s under a service's STATE_DIRECTORY (no turnstile data there) refused its workspace: %d %q %s",
				mode, code, out, strings.TrimSpace(errOut))
		}
	}
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookInstallWarnsWhenTheAdminTokenIsReadable: Claude Code runs its
// Bash commands as the user who installs the hook, outside the sandbox, so
// a server started by that user (its data directory in that user's state
// directory) gives the agent the admin token (ninth attack review). hook
// install says so; without a readable token it says nothing of it (the
// control).
func TestHookInstallWarnsWhenTheAdminTokenIsReadable(t *testing.T) {
	data := t.TempDir()
	t.Setenv("STATE_DIRECTORY", data)
	install := func() string {
		var out, errb bytes.Buffer
		if code := hookInstall([]string{"--print", "--server-key", "ed25519:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}, &out, &errb); code != 0 {
			t.Fatalf("hook install: %d %s", code, errb.String())
		}
		return errb.String()
	}
	if got := install(); strings.Contains(got, "admin token") {
		t.Fatalf("warned without a token: %s", got)
	}
	if err := os.WriteFile(filepath.Join(data, "token"), []byte("admintoken-0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := install(); !strings.Contains(got, "can read the admin token "+filepath.Join(data, "token")) {
		t.Fatalf("no warning with a readable admin token: %q", got)
	}
}

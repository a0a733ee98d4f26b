package sandbox

import (
	"os"
	"os/exec"
	"testing"

	"turnstile/domain"
)

// TestAttack73ForgedFilePlaceholderHardLink (seventy-third review, high: a
// host program runs what the agent wrote): the checks after a command pass
// over a name that looks like one of the server's placeholders (isHeld,
// hold.go: a file of mode 0444 holding "" or ".\n"), whoever made it: the
// twenty-sixth review's fix added the content test, but not the link
// count. In a nested repository's work tree (ws/sub with its own .git),
// a protected file the command creates there (.pre-commit-config.yaml,
// .tool-versions, .envrc, mise.toml, …) is set aside after it
// (setAsideNestedCreated; agentEntries for .tool-versions) — unless it
// is an empty 0444 file, which both checks take for a placeholder. The
// command makes it a hard link to a file of its own in the same work
// tree (ln sub/notes sub/.pre-commit-config.yaml, chmod 444 first): it
// stays. From the next command on the name exists, so it is a read-only
// carve-out (a bind mount of that inode), and the check after it leaves a
// read-only agent file alone while it is the same file (roAgent): but the
// other name, sub/notes, is an ordinary writable file of the same inode.
// The second command writes a local pre-commit hook (repo: local, entry:
// any program) through sub/notes; nothing sets it aside, and the person's
// next "git commit" in sub runs it outside the sandbox (likewise a
// .tool-versions "path:DIR" for asdf's shims). At the workspace root the
// same forgery is set aside (the control), so only the nested checks
// trust the look-alike.
//
// Fix: isHeld must also require st.Nlink == 1 (and, better, a placeholder
// this process or a live holder recorded by identity, not by look), and
// a protected file found with another hard link should be set aside as
// the plant check does for a git config with another link.
func TestAttack73ForgedFilePlaceholderHardLink(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	base := visibleWorkspace(t)
	ws := base + "/ws"
	for _, d := range []string{ws, ws + "/sub"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("git", "init", "-q", d).CombinedOutput(); err != nil {
			t.Fatalf("git init %s: %v %s", d, err, out)
		}
	}
	s := execProfileSnapshot(t, ws, map[string]domain.Access{})
	// Control: a protected file the command creates in the nested work
	// tree, and the same forgery at the root, are set aside.
	sh(t, &s, `echo 'repos: []' > sub/.pre-commit-config.yaml; : > notes; chmod 444 notes; ln notes .pre-commit-config.yaml`)
	if exists(ws+"/sub/.pre-commit-config.yaml") || exists(ws+"/.pre-commit-config.yaml") {
		t.Fatal("control: a protected file the command created (in the nested work tree, or forged at the root) stayed")
	}
	for _, c := range []struct{ name, payload string }{
		{".pre-commit-config.yaml", "repos:\n- repo: local\n  hooks:\n  - id: x\n    name: x\n    entry: sh -c 'id > /tmp/pwned'\n    language: system\n"},
		{".tool-versions", "nodejs path:/var/tmp/agent-node\n"},
	} {
		// The forgery: an empty 0444 file that is a hard link to notes.
		r := sh(t, &s, `: > sub/notes; chmod 444 sub/notes; ln sub/notes sub/`+c.name)
		t.Logf("%s forged: exit %d, stderr %q, set aside %+v", c.name, r.ExitCode, r.Stderr, r.Quarantined)
		// The next command writes it through the other name.
		r = sh(t, &s, `chmod 644 sub/notes && printf "`+c.payload+`" > sub/notes`)
		t.Logf("%s written through the link: exit %d, stderr %q, set aside %+v", c.name, r.ExitCode, r.Stderr, r.Quarantined)
		if b, err := os.ReadFile(ws + "/sub/" + c.name); err == nil && len(b) > 0 {
			t.Errorf("the nested repository's %s holds what the command wrote (a forged placeholder, hard-linked, passed the checks): %q", c.name, b)
		}
		os.Remove(ws + "/sub/" + c.name)
		os.Remove(ws + "/sub/notes")
	}
}

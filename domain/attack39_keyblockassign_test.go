package domain

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack39KeyBlockHidesAnAssignment: after a "-----BEGIN PRIVATE
// KEY-----" marker anywhere in a command (a comment will do), every
// following line made only of base64 words of 16 bytes or more is hidden
// as key material, the first one when it is 40 bytes or more
// (minFirstKeyRun: "a shorter word there … is no key"). '=' and '/' are
// base64 bytes, so a shell assignment is such a word: a Claude Code Bash
// call
//
//	# -----BEGIN PRIVATE KEY-----
//	HOME=testdata/homeForTheIntegrationTestsOfThisRepo
//	git status --short
//
// is shown to the person approving it as
//
//	# -----BEGIN PRIVATE KEY-----
//	[redacted]
//	git status --short
//
// a comment, a hidden key, and git status. bash (and dash) run the
// assignment, and git then reads the .gitconfig the agent wrote in that
// directory (a Write inside the workspace, allowed without a question in
// auto_accept_edits: the protected .gitconfig is the root's) and runs its
// core.fsmonitor, a shell command of the agent's, outside any sandbox
// (Claude Code runs its Bash commands itself). The same hides a program
// named by a relative path padded with slashes (tools//////…//run): any
// word of letters, digits, '/', '+' and '=' on those lines may be what
// runs, or what decides what the next line runs.
//
// The premise is shown with the real bash and git (skipped where there is
// none). Controls: a real key's lines after the marker stay hidden, and a
// short program on the line after a marker is shown (the fifteenth
// review's rule). The secure behaviour asserted: what the approval
// request shows holds the assignment and the program.
func TestAttack39KeyBlockHidesAnAssignment(t *testing.T) {
	const home = "testdata/homeForTheIntegrationTestsOfThisRepo"
	const attack = "# -----BEGIN PRIVATE KEY-----\nHOME=" + home + "\ngit status --short"
	bash, errBash := exec.LookPath("bash")
	git, errGit := exec.LookPath("git")
	if errBash == nil && errGit == nil {
		dir := t.TempDir()
		repo := filepath.Join(dir, "repo")
		mark := filepath.Join(dir, "AGENT-CODE-RAN")
		run := func(name string, args ...string) {
			t.Helper()
			cmd := exec.Command(name, args...)
			cmd.Dir = repo
			cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s %v: %v %s", name, args, err, out)
			}
		}
		if err := os.MkdirAll(filepath.Join(repo, home), 0o755); err != nil {
			t.Fatal(err)
		}
		run(git, "init", "-q")
		// What the agent's Write puts in the workspace.
		cfg := "[core]\n\tfsmonitor = \"touch " + mark + "; false\"\n"
		if err := os.WriteFile(filepath.Join(repo, home, ".gitconfig"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		run(bash, "-c", attack)
		if _, err := os.Stat(mark); err != nil {
			t.Fatalf("premise: bash and git did not run the agent's fsmonitor: %v", err)
		}
	}

	shown := func(cmd string) string {
		t.Helper()
		in, _ := json.Marshal(map[string]any{"command": cmd, "description": "show the repository's status"})
		inv, err := ClaudeCodeInvocation("Bash", in, "/home/dev/app")
		if err != nil {
			t.Fatal(err)
		}
		a, err := Classify(inv, "/home/dev/app", nil)
		if err != nil {
			t.Fatal(err)
		}
		r := a.Redacted()
		var b strings.Builder
		b.WriteString(r.Summary)
		for _, d := range r.Details {
			b.WriteString("\n" + d.Label + ": " + d.Value)
		}
		return b.String()
	}

	// Controls.
	const l1 = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"
	const l2 = "MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu"
	key := "cat > k.pem <<'EOF'\n-----BEGIN PRIVATE KEY-----\n" + l1 + "\n" + l2 + "\n-----END PRIVATE KEY-----\nEOF\ngit status --short"
	if s := keyReaderShown(t, key); strings.Contains(s, l1) || strings.Contains(s, l2) {
		t.Fatalf("control: the key reader shows a real key:\n%s", s)
	}
	if s := shown(key); !strings.Contains(s, "\nEOF\ngit status --short") {
		t.Fatalf("control: the command after the key is hidden:\n%s", s)
	}
	if s := shown("# -----BEGIN PRIVATE KEY-----\nbin/uploadAll\ngit status --short"); !strings.Contains(s, "bin/uploadAll") {
		t.Fatalf("control: a short program after the marker is hidden:\n%s", s)
	}

	for _, c := range []struct{ cmd, want string }{
		{attack, "HOME=" + home},
		{"# -----BEGIN PRIVATE KEY-----\ntools//////////////////////////////////run\necho done", "tools//////////////////////////////////run"},
	} {
		if s := shown(c.cmd); !strings.Contains(s, c.want) {
			t.Errorf("%q\nis shown without %s:\n%s", c.cmd, c.want, s)
		}
	}
}

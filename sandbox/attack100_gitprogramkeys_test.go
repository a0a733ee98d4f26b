package sandbox

import (
	"os"
	"slices"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack100_GitProgramKeys (hundredth review, low): after 1d68f33 the
// programs a person's git config names in the work tree are kept
// read-only for tar.<format>.command, upload-pack's hook and git-lfs's
// agents, but two families that run a program are still missed:
//
//   - core.fsmonitor is read by its own case of gitConfigRefs, which keeps
//     only its first word, and only when that word holds a "/": the hook
//     is run through the shell (git's run-command use_shell), so
//     "sh tools/fsmonitor" runs tools/fsmonitor on every git status (an
//     editor's git integration runs it constantly), and tools/fsmonitor
//     stays writable;
//   - trailer.<token>.cmd (and .command), which git commit --trailer and
//     git interpret-trailers run through the shell, and
//     sendemail.headerCmd (git send-email), are not in gitProgramKey.
//
// The agent's command rewrites the script; the person's next git status
// (or commit --trailer) on the host runs it.
//
// Controls: the person's program runs before; tar.<format>.command and a
// core.fsmonitor named by its path are kept read-only (the command's
// rewrite is refused and the next git runs the person's program).
func TestAttack100_GitProgramKeys(t *testing.T) {
	t.Run("named", func(t *testing.T) {
		cfg := t.TempDir() + "/config"
		mustDo(t, os.WriteFile(cfg, []byte(`[core]
	fsmonitor = sh tools/fsmonitor
[trailer "sign"]
	cmd = tools/trailer.sh
[trailer "ack"]
	command = tools/ack.sh
[sendemail]
	headerCmd = tools/header.sh
[tar "tgz"]
	command = tools/gzip.sh -n
`), 0o644))
		var got []string
		for _, r := range gitConfigRefs(cfg) {
			got = append(got, r.path)
		}
		if !slices.Contains(got, "tools/gzip.sh") {
			t.Fatalf("control: tar.tgz.command's program is not named: %q", got)
		}
		for _, want := range []string{"tools/fsmonitor", "tools/trailer.sh", "tools/ack.sh", "tools/header.sh"} {
			if !slices.Contains(got, want) {
				t.Errorf("%s, which git runs, is not named: %q", want, got)
			}
		}
	})
	f := requireKernel(t, true)
	for _, tc := range []struct {
		name, prog, key, value string
		act                    []string
		control                bool
	}{
		{"fsmonitor by path (control)", "tools/fsmonitor", "core.fsmonitor", "tools/fsmonitor", []string{"status", "--short"}, true},
		{"archive command (control)", "tools/gzip.sh", "tar.tgz.command", "tools/gzip.sh", []string{"archive", "--format=tgz", "-o", "/dev/null", "HEAD"}, true},
		{"fsmonitor through an interpreter", "tools/fsmonitor", "core.fsmonitor", "sh tools/fsmonitor", []string{"status", "--short"}, false},
		{"trailer command", "tools/trailer.sh", "trailer.sign.cmd", "tools/trailer.sh", []string{"commit", "-q", "--allow-empty", "-m", "x", "--trailer", "sign: x"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := tempWorkspace(t)
			body := "#!/bin/sh\ntouch \"$(git rev-parse --show-toplevel)/person-program-ran\"\ncat\nexit 0\n"
			if strings.Contains(tc.key, "fsmonitor") {
				// A hook that answers "no data": git scans as usual.
				body = "#!/bin/sh\ntouch \"$(git rev-parse --show-toplevel)/person-program-ran\"\nexit 1\n"
			}
			mkfiles(t, ws, map[string]string{tc.prog: body, "tools/build.sh": "x\n", "src/main.go": "x\n"})
			mustDo(t, os.Chmod(ws+"/"+tc.prog, 0o755))
			hostGit(t, ws, "init", "-q")
			hostGit(t, ws, "config", "user.name", "p")
			hostGit(t, ws, "config", "user.email", "p@example.com")
			hostGit(t, ws, "commit", "-q", "--allow-empty", "-m", "init")
			hostGit(t, ws, "config", tc.key, tc.value)
			if out, err := hostGitRun(t, ws, tc.act...); !exists(ws + "/person-program-ran") {
				t.Fatalf("premise: the person's program did not run on git %s: %v %s", tc.act[0], err, out)
			}
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
			if r := sh(t, s, "echo y >> tools/build.sh && echo y >> src/main.go"); r.ExitCode != 0 {
				t.Fatalf("control: tools/build.sh was not writable: %d %s", r.ExitCode, r.Stderr)
			}
			r := sh(t, s, "printf '#!/bin/sh\\ntouch "+ws+"/pwned\\nexit 1\\n' > "+tc.prog)
			out, err := hostGitRun(t, ws, tc.act...)
			if exists(ws + "/pwned") {
				t.Errorf("%s = %q: the person's next git %s ran the command's %s (command %d %s): %v %s",
					tc.key, tc.value, tc.act[0], tc.prog, r.ExitCode, strings.TrimSpace(string(r.Stderr)), err, out)
			}
		})
	}
}

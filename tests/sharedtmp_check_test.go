package tests

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestSharedTmpCheckLeavesOthersRepositories: after a command whose
// profile makes /tmp writable, the check sets aside what the command made
// there, never what another process made in /tmp meanwhile (its entries
// are neither the command's uid's nor world-writable: the command could
// not have written them). The twenty-sixth review's /tmp tests
// quarantined the repositories other tests made in /tmp beside them. The
// command also reaches its workspace, in /tmp below a directory of mode
// 0700 that only root may search. Control: a repository with the same
// untrusted config key that the command made in /tmp is quarantined.
func TestSharedTmpCheckLeavesOthersRepositories(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("the sandbox uid is a root server's")
	}
	file := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(file, []byte(attack26TmpProfiles), 0o644); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", file)
	root := workspace(t)
	if st, body := startProfileTurn(s, "shtmp", root, map[string]any{"profile": "tmpw26"}); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, body)
	}
	mine := fmt.Sprintf("/tmp/sharedtmp-mine-%d", os.Getpid())
	other := fmt.Sprintf("/tmp/sharedtmp-other-%d", os.Getpid())
	t.Cleanup(func() { os.RemoveAll(mine); os.RemoveAll(other) })
	started, release := filepath.Join(root, "started"), filepath.Join(root, "release")
	bg := execInBackground(s, "shtmp", map[string]any{"tool_call_id": "c", "timeout_ms": 60000, "argv": []string{"sh", "-c",
		fmt.Sprintf(`touch %s; while [ ! -e %s ]; do sleep 0.05; done; `+
			`mkdir %s && cd %s && git init -q && git config core.fsmonitor 'touch /tmp/x'`, started, release, mine, mine)}})
	pollUntil(t, "the command to start", func() bool {
		select {
		case d := <-bg:
			t.Fatalf("the command ended before it was released: %+v %+v", d, d.Result)
		default:
		}
		return exists(started)
	})
	// Another process's repository, made in /tmp while the command runs.
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"config", "core.fsmonitor", "touch /tmp/x"}} {
		if out, err := exec.Command("git", append([]string{"-C", other}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	d := <-bg
	if !d.Ran || d.Result == nil || d.Result.ExitCode != 0 {
		t.Fatalf("the command: %+v %+v", d, d.Result)
	}
	if !exists(filepath.Join(mine, ".git", "HEAD.turnstile-untrusted")) {
		t.Fatalf("control: the command's own repository in /tmp was not quarantined: %+v", d.Result.Quarantined)
	}
	if !exists(filepath.Join(other, ".git", "HEAD")) {
		t.Fatalf("another process's repository in /tmp was quarantined after the command: %+v", d.Result.Quarantined)
	}
}

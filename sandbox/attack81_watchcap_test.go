package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack81WatchedHomesCapPaddedByTheCommand (eighty-first review,
// low-medium: where a writable root holds the homes, the eightieth
// review's case): watchDenied expands a sensitive pattern's wildcard part
// (/home/*) by filepath.Glob, sorted, and watches the stores of the first
// maxWatchedMatches (4096) matches only. The matches are whatever the root
// holds when the command starts, and the root is the agent's to write: one
// command makes 4096 empty directories that sort first (/home/0000 …,
// harmless, nothing sets them aside), and from then on every real user's
// store (/home/bob/.kube/config, .docker/config.json) is past the bound
// and watched by nothing; the next command writes bob's kubeconfig with an
// exec plugin and it stays. The carve-outs (buildFSView's
// sensitiveMatches) have no such bound, so only the watch is defeated.
// The test uses a snapshot's extra sensitive pattern (WS/homes/*/…), the
// same code path as the built-in /home/* ones, so as not to fill the
// machine's /home.
//
// Control: before the padding, the same store made by a command is set
// aside.
//
// Fixed: past the bound the command is refused before it runs
// (sandbox_unavailable), as more than 4096 nested repositories refuse a
// turn's commands.
func TestAttack81WatchedHomesCapPaddedByTheCommand(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	ws := visibleWorkspace(t) + "/ws"
	if err := os.MkdirAll(ws+"/homes/zed", 0o755); err != nil {
		t.Fatal(err)
	}
	appRead := []string{filepathDir(testExe(t))}
	set := domain.ProfileSet{"p": {Name: "p", Extends: domain.BuiltinWorkspace}}
	cp, err := domain.CompileProfile(set, "p", domain.ProfileEnv{Cwd: ws, WorkspaceRoot: ws, AppReadRoots: appRead}, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := domain.SnapshotInputs{Cwd: ws, WorkspaceRoot: ws, AppReadRoots: appRead, Kernel: machine().Kernel,
		SensitivePaths: []string{ws + "/homes/*/.kube/config"}}
	s, err := domain.ResolveProfileSnapshot(cp, domain.SourceComposer, in)
	if err != nil {
		t.Fatal(err)
	}
	if writeDecision(&s, ws+"/homes/zed/.kube/config") == nil {
		t.Fatal("premise: write_file of zed's .kube/config allowed")
	}
	plant := `mkdir -p homes/zed/.kube && printf 'apiVersion: v1\nusers:\n- name: u\n  user:\n    exec:\n      command: /bin/sh\n' > homes/zed/.kube/config && echo planted`
	// Control: the store made by a command is set aside.
	r := sh(t, &s, plant)
	if string(r.Stdout) != "planted\n" || exists(ws+"/homes/zed/.kube/config") {
		t.Fatalf("control: the command did not run, or zed's store it made stayed (exit %d, stderr %q, set aside %+v)", r.ExitCode, r.Stderr, r.Quarantined)
	}
	// The padding: 4096 empty homes that sort before zed.
	r = sh(t, &s, `i=0; while [ $i -lt 4096 ]; do mkdir homes/a$i || exit 1; i=$((i+1)); done; echo padded`)
	if string(r.Stdout) != "padded\n" {
		t.Fatalf("premise: the padding failed (exit %d, stderr %q)", r.ExitCode, r.Stderr)
	}
	// Past the bound the command is refused before it runs, rather than
	// run with some stores unwatched.
	r, err = run(t, &s, SpawnRequest{Argv: []string{"/bin/sh", "-c", plant}}, nil)
	if err == nil || !strings.Contains(err.Error(), "sandbox_unavailable") || !strings.Contains(err.Error(), "more than the 4096") {
		t.Errorf("after 4096 directories padded the homes, the command ran: err %v, result %+v", err, r)
	}
	if exists(ws + "/homes/zed/.kube/config") {
		t.Errorf("after 4096 directories padded the homes, the command created zed's credential store %s/homes/zed/.kube/config and it stayed", ws)
	}
}

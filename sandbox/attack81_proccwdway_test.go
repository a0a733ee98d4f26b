package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack81ProcCwdLinkOnTheWayToADeny (eighty-first review, medium: a
// profile's deny entry is read by the agent; a credential store the
// person's tools read is the agent's): a deny entry or credential store
// missing when a command starts is watched as its full path (exact), and
// after the command the server asks whether that path exists by looking it
// up itself (typeMemo.typeOf: Lstat, which follows every component but the
// last). The command makes the missing directory on the way a symlink to
// /proc/self/cwd/stash: a link that leads, in each process, to that
// process's own working directory. The server, in its own cwd, finds no
// keys/prod there, takes the path as not made and leaves the link (and
// plantedLink never sees it). Then:
//
//   - the person's deploy script, run in the workspace as scripts are,
//     writes keys/prod/key: its process resolves keys to WS/stash, and the
//     key lands in WS/stash/prod/key, a name no deny covers. At the next
//     spawn the server cannot canonicalise the deny (a process link), keeps
//     its lexical path, and the helper masks wherever the link leads in the
//     helper's cwd: for a command started in WS/sub, WS/sub/stash/prod. The
//     command reads ../stash/prod/key: the person's key.
//   - a home-rooted turn (or ~/.kube writable) does the same with .kube ->
//     /proc/self/cwd/kdir and a kubeconfig in kdir: the person's kubectl,
//     run in that directory, reads the agent's exec plugin. (Shown with the
//     snapshot's extra sensitive paths for WS as a home, as the
//     seventy-eighth review's test does.)
//
// Control: the same link to a plain relative target on the way to the
// store (.kube -> kdir) is set aside after the command, and the person's
// key written through a plain relative link on the way to the deny
// (keys -> stash) stays masked from the next command started in WS/sub.
//
// Fix: judge a watched path's way as the person's programs will resolve
// it: in setAsideCreated, walk from the root to the watched path without
// following symlinks (openat2 RESOLVE_NO_SYMLINKS, as setAsidePath does)
// and set aside the first component the command made that is a symlink;
// more generally, treat a process-relative link met while canonicalising a
// deny or sensitive path as planted (set it aside, or refuse the command,
// as the decision path refuses it with processLinkRefusal).
func TestAttack81ProcCwdLinkOnTheWayToADeny(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	ws := visibleWorkspace(t) + "/ws"
	if err := os.MkdirAll(ws+"/sub", 0o755); err != nil {
		t.Fatal(err)
	}
	appRead := []string{filepathDir(testExe(t))}
	set := domain.ProfileSet{"p": {Name: "p", Extends: domain.BuiltinWorkspace, Filesystem: map[string]domain.Access{
		ws + "/keys/prod":     domain.AccessDeny,
		ws + "/ctl/keys/prod": domain.AccessDeny,
	}}}
	cp, err := domain.CompileProfile(set, "p", domain.ProfileEnv{Cwd: ws, WorkspaceRoot: ws, AppReadRoots: appRead}, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := domain.SnapshotInputs{Cwd: ws, WorkspaceRoot: ws, AppReadRoots: appRead, Kernel: machine().Kernel,
		SensitivePaths: []string{ws + "/.kube/config", ws + "/ctl/.kube/config"}}
	s, err := domain.ResolveProfileSnapshot(cp, domain.SourceComposer, in)
	if err != nil {
		t.Fatal(err)
	}
	// The person's tooling, run in the workspace directory.
	person := func(script string) string {
		t.Helper()
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Dir = ws
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the person's %q: %v: %s", script, err, out)
		}
		return string(out)
	}
	isLink := func(p string) bool {
		fi, err := os.Lstat(p)
		return err == nil && fi.Mode()&os.ModeSymlink != 0
	}
	kubeconfig := `printf 'apiVersion: v1\nusers:\n- name: u\n  user:\n    exec:\n      command: /bin/sh\n'`

	// Controls: a plain link on the way to a credential store is set
	// aside; the person's key written through a plain link on the way to
	// a deny entry (kept: TestAttack81DenyWaySymlinkRedirectsThePersonsKey)
	// stays masked from the turn's next command, wherever it starts.
	r := sh(t, &s, `mkdir -p ctl/stash ctl/kdir && ln -s stash ctl/keys && `+kubeconfig+` > ctl/kdir/config && ln -s kdir ctl/.kube && echo made`)
	if string(r.Stdout) != "made\n" {
		t.Fatalf("control: the command did not run (exit %d, stderr %q)", r.ExitCode, r.Stderr)
	}
	t.Logf("control: set aside %+v", r.Quarantined)
	if isLink(ws + "/ctl/.kube") {
		t.Fatalf("control: a plain link on the way to a credential store stayed (set aside %+v)", r.Quarantined)
	}
	person(`mkdir -p ctl/keys/prod && echo "person's secret" > ctl/keys/prod/key`)
	r, err = run(t, &s, SpawnRequest{Argv: []string{"/bin/sh", "-c", `cat ../ctl/keys/prod/key ../ctl/stash/prod/key 2>&1`}, Cwd: ws + "/sub"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(r.Stdout), "person's secret") {
		t.Fatalf("control: the person's key written through a plain link was read: %q", r.Stdout)
	}

	// The attack.
	r = sh(t, &s, `mkdir -p stash kdir && ln -s /proc/self/cwd/stash keys && `+kubeconfig+` > kdir/config && ln -s /proc/self/cwd/kdir .kube && echo planted`)
	t.Logf("attack: exit %d, stdout %q, stderr %q, set aside %+v", r.ExitCode, r.Stdout, r.Stderr, r.Quarantined)
	if string(r.Stdout) != "planted\n" {
		t.Fatalf("premise: the command did not run (exit %d, stderr %q)", r.ExitCode, r.Stderr)
	}
	if isLink(ws + "/keys") {
		t.Errorf("the process-relative link %s/keys on the way to the denied keys/prod stayed", ws)
	}
	if isLink(ws + "/.kube") {
		t.Errorf("the process-relative link %s/.kube on the way to the credential store .kube/config stayed", ws)
	}
	if got := person(`cat .kube/config 2>/dev/null || true`); strings.Contains(got, "exec:") {
		t.Errorf("the person's kubectl, run in the workspace, reads the agent's kubeconfig through .kube/config: %q", got)
	}
	person(`mkdir -p keys/prod && echo "person's secret" > keys/prod/key`)
	r, err = run(t, &s, SpawnRequest{Argv: []string{"/bin/sh", "-c", `cat ../keys/prod/key ../stash/prod/key 2>&1`}, Cwd: ws + "/sub"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("next command (in sub): exit %d, stdout %q", r.ExitCode, r.Stdout)
	if strings.Contains(string(r.Stdout), "person's secret") {
		t.Errorf("the agent's next command read the person's key written at the denied %s/keys/prod: %q", ws, r.Stdout)
	}
}

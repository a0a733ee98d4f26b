package sandbox

import (
	"os"
	"testing"

	"turnstile/domain"
)

// TestAttack73ToolSettingsCreatedAtTheTurnsCwdStay (seventy-third review,
// medium: the README promises it, the person's own directory): the README
// (limits table, files) says a tool setting or shell start-up file of the
// protected list that does not exist yet "can be created until the
// command ends (other than those four, which are held; at each writable
// root and the turn's cwd it is set aside after the command)", and
// plantcheck's doc names "a writable root, the turn's cwd or the top of a
// nested repository's work tree". The code protects at the cwd only the
// AtCwd items (domain.protectedEntries: .git, .agents, .codex, .claude),
// so nothing of the rest of the list is watched there: a turn rooted at a
// repository (ws) whose cwd is a package inside it (ws/app, where the
// person launched the agent and works) leaves behind an .envrc, a
// mise.toml ([hooks] enter, [env] _.source) or a .pre-commit-config.yaml
// (a local hook: any program, run by the person's next commit) that the
// command wrote at the cwd; the host's direnv, mise or pre-commit runs it
// there. (An existing one at the cwd is writable too, as the same list is
// not carved out there.)
//
// Fix: expand the whole protected list at the turn's cwd when it lies
// inside a writable root (protectedEntries: every item, not only AtCwd
// ones, or a second flag for "set aside when created"), so that existing
// ones are read-only and created ones are set aside, as the README says.
//
// Control: the same files created at the root are set aside, and the
// four AtCwd names are held at the cwd.
func TestAttack73ToolSettingsCreatedAtTheTurnsCwdStay(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	base := visibleWorkspace(t)
	ws := base + "/ws"
	cwd := ws + "/app"
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	appRead := []string{filepathDir(testExe(t))}
	set := domain.ProfileSet{"p": {Name: "p", Extends: domain.BuiltinWorkspace}}
	cp, err := domain.CompileProfile(set, "p", domain.ProfileEnv{Cwd: cwd, WorkspaceRoot: ws, AppReadRoots: appRead}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := domain.ResolveProfileSnapshot(cp, domain.SourceComposer, domain.SnapshotInputs{Cwd: cwd, WorkspaceRoot: ws, AppReadRoots: appRead, Kernel: machine().Kernel})
	if err != nil {
		t.Fatal(err)
	}
	files := []string{".envrc", "mise.toml", ".pre-commit-config.yaml"}
	script := ""
	for _, f := range files {
		script += "echo planted > " + f + "; echo planted > ../" + f + "; "
	}
	script += "mkdir .claude/x 2>/dev/null; echo ok > ok"
	r, err := run(t, &s, SpawnRequest{Argv: []string{"/bin/sh", "-c", script}, Cwd: cwd}, nil)
	if err != nil {
		t.Fatalf("%v (%+v)", err, r)
	}
	t.Logf("exit %d, stderr %q, set aside %+v", r.ExitCode, r.Stderr, r.Quarantined)
	// Control: the command ran at the cwd, the root's are set aside, the
	// cwd's .claude was held.
	if readFile(t, cwd+"/ok") != "ok\n" || exists(cwd+"/.claude/x") {
		t.Fatal("control: the command did not run at the cwd, or the cwd's .claude was not held")
	}
	for _, f := range files {
		if exists(ws + "/" + f) {
			t.Fatalf("control: %s created at the root stayed", f)
		}
	}
	for _, f := range files {
		if exists(cwd + "/" + f) {
			t.Errorf("%s created at the turn's cwd %s stayed (the README says it is set aside)", f, cwd)
		}
	}
}

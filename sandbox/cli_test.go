package sandbox

import (
	"bytes"
	"os"
	"testing"

	"turnstile/domain"
)

// TestSandboxCommandSkipsTheSelfTest: where the sysctls allow namespaces,
// `turnstile sandbox` starts no namespace probe child (the helper sets the
// namespaces up and fails closed), and still confines: a workspace write
// works in auto_accept_edits, a write outside is refused. Nor does it watch
// what its views looked up (a cache it never reuses). The controls: Probe
// does start one, and CheckFile in a server does watch the workspace.
func TestSandboxCommandSkipsTheSelfTest(t *testing.T) {
	f := requireKernel(t, true)
	if ok, sys := userNSSysctlsAllow(); !ok {
		missingPrerequisite(t, "the sysctls forbid user namespaces: %s", sys)
	}
	ws, outside := tempWorkspace(t), tempWorkspace(t)
	before := probeCount.Load()
	var out, errOut bytes.Buffer
	code := SandboxCommand([]string{"--mode", "auto_accept_edits", "--root", ws, "--", "/bin/sh", "-c", "echo in > in.txt; cat in.txt; echo x > " + outside + "/x"}, &out, &errOut)
	if n := probeCount.Load() - before; n != 0 {
		t.Errorf("turnstile sandbox ran %d namespace probes", n)
	}
	if code == 0 || out.String() != "in\n" || exists(outside+"/x") {
		t.Fatalf("exit %d %q %s", code, out.String(), errOut.String())
	}
	if _, err := os.Stat(ws + "/in.txt"); err != nil {
		t.Fatal(err)
	}
	watched := func() bool {
		viewWatch.mu.Lock()
		defer viewWatch.mu.Unlock()
		_, ok := viewWatch.byPath[ws]
		return ok
	}
	if watched() {
		t.Errorf("turnstile sandbox watched %s for a view cache it never reuses", ws)
	}
	if _, err := CheckFile(snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel), ws+"/in.txt", domain.AccessRead); err != nil || !watched() {
		t.Errorf("control: CheckFile (%v) did not watch %s", err, ws)
	}
	if p := Probe(); probeCount.Load()-before != 1 || p.Kernel != f.Kernel {
		t.Fatalf("control: Probe ran %d namespace probes and found %+v", probeCount.Load()-before, p.Kernel)
	}
}

// TestSandboxCommandBuildsOneView: `turnstile sandbox` canonicalises the
// snapshot's roots once, for the cwd check and for the names it holds (the
// snapshot of a command run in a subdirectory lists that directory's
// reserved names itself), and every reserved name stays uncreatable, at
// the root and at the cwd, while another directory can be made (the
// control). TestPrepareSpecRebuildsAGrownView covers entries added after
// the plan.
func TestSandboxCommandBuildsOneView(t *testing.T) {
	requireKernel(t, true)
	for _, sub := range []string{"", "sub"} {
		ws := tempWorkspace(t)
		cwd := ws
		if sub != "" {
			cwd = ws + "/" + sub
			if err := os.Mkdir(cwd, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		before := viewBuilds.Load()
		var out, errOut bytes.Buffer
		script := "for d in " + ws + "/.codex " + ws + "/.agents " + cwd + "/.codex " + cwd + "/.claude; do mkdir $d/x 2>/dev/null && echo made $d; done; mkdir " + cwd + "/ok && echo ok"
		code := SandboxCommand([]string{"--mode", "auto_accept_edits", "--root", ws, "--cwd", cwd, "--", "/bin/sh", "-c", script}, &out, &errOut)
		builds := viewBuilds.Load() - before
		if code != 0 || out.String() != "ok\n" {
			t.Errorf("cwd %q: exit %d, %q %s", sub, code, out.String(), errOut.String())
		}
		if builds != 1 {
			t.Errorf("cwd %q: %d views built in this process, want 1", sub, builds)
		}
	}
}

// TestPrepareSpecRebuildsAGrownView: the view a one-command plan carries is
// used only while the spec's entries are those it was built from; an entry
// added after the plan (here a deny entry, as a glob mask or the
// programs' own entries add them) makes prepareSpec build a view of the
// grown entries, whose holds include the new one. The control: without the
// added entry, the plan's view is used and nothing is built.
func TestPrepareSpecRebuildsAGrownView(t *testing.T) {
	f := requireKernel(t, false)
	noViewCache.Store(true)
	defer noViewCache.Store(false)
	for _, grow := range []bool{false, true} {
		ws := tempWorkspace(t)
		plan, err := PlanSpawn(snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel), SpawnRequest{Argv: []string{"/bin/true"}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		spec := plan.Sandbox
		if spec.view == nil {
			t.Fatal("a one-command plan carries no view")
		}
		if grow {
			spec.Entries = append(spec.Entries, domain.FilesystemEntry{Kind: domain.PathExplicit, Path: ws + "/secret",
				ResolvedPath: ws + "/secret", Access: domain.AccessDeny, Provenance: domain.ProvenanceRuntime})
		}
		before := viewBuilds.Load()
		release, err := prepareSpec(&spec)
		if err != nil {
			t.Fatal(err)
		}
		builds := viewBuilds.Load() - before
		heldSecret := exists(ws + "/secret")
		if release != nil {
			release()
		}
		if grow && (builds != 1 || !heldSecret) {
			t.Errorf("grown entries: %d views built, %s/secret held: %v", builds, ws, heldSecret)
		}
		if !grow && (builds != 0 || heldSecret) {
			t.Errorf("control: %d views built, secret held: %v", builds, heldSecret)
		}
	}
}

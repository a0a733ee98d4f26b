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

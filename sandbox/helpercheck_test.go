package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"turnstile/domain"
)

// protocolFake builds a program named HelperProgram into dir that speaks
// the checked-helper protocol with a made-up fingerprint (a helper built
// from other code): it writes "fingerprint 0000" on the status descriptor,
// then reads its plan descriptor to the end and appends to marker how many
// bytes of plan it received.
func protocolFake(t *testing.T, dir, marker string) string {
	t.Helper()
	src := t.TempDir()
	prog := `package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	os.NewFile(4, "status").WriteString("fingerprint 0000\n")
	b, _ := io.ReadAll(os.NewFile(3, "plan"))
	f, _ := os.OpenFile(` + strconv.Quote(marker) + `, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	fmt.Fprintf(f, "ran %v, plan of %d bytes\n", os.Args[1:], len(b))
	os.Exit(126)
}
`
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte("module fake\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, HelperProgram)
	cmd := exec.Command("go", "build", "-o", p, ".")
	cmd.Dir = src
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the fake helper: %v\n%s", err, b)
	}
	return p
}

// TestCheckedHelperVerifiedByItsRun: a lean helper nobody has verified yet
// (what `turnstile sandbox` has: no namespace probe ran) is verified by the
// run that uses it, with no run of its own just to report its fingerprint,
// and then enforces (a workspace write works, a write outside does not).
// Its output carries no trace of the check, and a helper refusal in checked
// mode still reports the helper's own reason.
func TestCheckedHelperVerifiedByItsRun(t *testing.T) {
	f := requireKernel(t, true)
	h := locateHelper(buildHelper(t, moduleRoot(t), t.TempDir()))
	if !h.lean || h.verified {
		t.Fatalf("located %+v: want a lean helper, not yet verified", h)
	}
	useHelper(t, h)
	runsBefore, probesBefore := fingerprintRuns.Load(), probeCount.Load()
	ws, outside := tempWorkspace(t), tempWorkspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r := sh(t, s, "echo in > in.txt; echo x > "+outside+"/x; echo done")
	if r.ExitCode != 0 || string(r.Stdout) != "done\n" || r.SandboxError != "" {
		t.Fatalf("run through the unverified lean helper: %+v stdout %q stderr %q", r, r.Stdout, r.Stderr)
	}
	if !exists(ws+"/in.txt") || exists(outside+"/x") {
		t.Fatalf("the checked helper did not enforce: workspace write %v, outside write %v", exists(ws+"/in.txt"), exists(outside+"/x"))
	}
	helperMu.Lock()
	cur := *helperCur
	helperMu.Unlock()
	if !cur.lean || !cur.verified || cur.path != h.path {
		t.Fatalf("after the run the helper is %+v: want the lean helper, verified", cur)
	}
	if n, p := fingerprintRuns.Load()-runsBefore, probeCount.Load()-probesBefore; n != 0 || p != 0 {
		t.Fatalf("the helper was run %d times for its fingerprint and %d namespace probes ran: want 0 and 0", n, p)
	}

	// A refusal by a checked helper: its reason, not the fingerprint line.
	useHelper(t, locateHelper(h.file))
	r, err := run(t, s, SpawnRequest{Argv: []string{"/bin/true"}}, func(p *Plan) { p.Sandbox.LandlockABI = 99 })
	if err == nil || r.ExitCode != ExitSandboxFailure || strings.Contains(r.SandboxError, "fingerprint") || !strings.Contains(r.SandboxError, "ABI") {
		t.Fatalf("a checked helper's refusal: err %v, %+v", err, r)
	}
}

// TestCheckedHelperRefused: a program next to the binary that reports
// another fingerprint in checked mode, and one that does not speak the
// protocol at all (a helper from before it, or any other program), are
// started once each, never receive the plan, and are dropped: the command
// runs through the running binary, still confined, and the refused program
// is not started again.
func TestCheckedHelperRefused(t *testing.T) {
	f := requireKernel(t, true)
	for _, kind := range []string{"other fingerprint", "no protocol"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			marker := filepath.Join(dir, "ran")
			var prog string
			if kind == "other fingerprint" {
				prog = protocolFake(t, dir, marker)
			} else {
				prog = fakeHelper(t, dir, marker)
			}
			useHelper(t, locateHelper(prog))
			ws, outside := tempWorkspace(t), tempWorkspace(t)
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
			for i := 0; i < 2; i++ {
				r := sh(t, s, "echo in > in.txt; echo x > "+outside+"/x; echo done")
				if r.ExitCode != 0 || string(r.Stdout) != "done\n" {
					t.Fatalf("run %d after refusing the helper: %+v stdout %q stderr %q", i, r, r.Stdout, r.Stderr)
				}
				if !exists(ws+"/in.txt") || exists(outside+"/x") {
					t.Fatalf("the fallback helper did not enforce: workspace write %v, outside write %v", exists(ws+"/in.txt"), exists(outside+"/x"))
				}
			}
			want := "ran [" + helperCheckedArg + "]\n"
			if kind == "other fingerprint" {
				want = "ran [" + helperCheckedArg + "], plan of 0 bytes\n"
			}
			if got := readFile(t, marker); got != want {
				t.Fatalf("the refused program's record: %q, want %q (started once, no plan)", got, want)
			}
			helperMu.Lock()
			cur := *helperCur
			helperMu.Unlock()
			if cur.lean || cur.path != selfExe || cur.note == "" {
				t.Fatalf("after the refusal the helper is %+v: want the running binary and a reason", cur)
			}
			t.Logf("reason: %s", cur.note)
		})
	}
}

package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"turnstile/domain"
)

// protocolFake builds a program named HelperProgram into dir that speaks
// the checked-helper protocol but was built from other code (its
// fingerprint is "0000"): it appends its arguments to marker, reports the
// mismatch on the status descriptor and exits 126, as a helper of another
// turnstile version does.
func protocolFake(t *testing.T, dir, marker string) string {
	t.Helper()
	prog := `package main

import (
	"fmt"
	"os"
)

func main() {
	f, _ := os.OpenFile(` + strconv.Quote(marker) + `, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	fmt.Fprintln(f, "ran", os.Args[1:])
	os.NewFile(4, "status").WriteString("` + helperMismatch + `helper 0000, caller " + os.Args[2] + "\n")
	os.Exit(126)
}
`
	return buildFakeHelper(t, dir, prog)
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
// protocol at all (a helper from before it, or any other program: it exits
// 0 having printed something), are started once each and dropped: the
// command runs exactly once, through the running binary, still confined;
// nothing the refused program printed reaches the result; and it is not
// started again.
func TestCheckedHelperRefused(t *testing.T) {
	f := requireKernel(t, true)
	for _, kind := range []string{"other fingerprint", "no protocol", "stale helper"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			marker := filepath.Join(dir, "ran")
			var prog string
			switch kind {
			case "other fingerprint":
				prog = protocolFake(t, dir, marker)
			case "no protocol":
				prog = fakeHelper(t, dir, marker)
			default:
				prog = staleHelper(t, dir)
			}
			useHelper(t, locateHelper(prog))
			ws, outside := tempWorkspace(t), tempWorkspace(t)
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
			for i := 0; i < 2; i++ {
				r := sh(t, s, "echo run >> runs; echo x > "+outside+"/x; echo done")
				if r.ExitCode != 0 || string(r.Stdout) != "done\n" || strings.Contains(string(r.Stderr), "0000") {
					t.Fatalf("run %d after refusing the helper: %+v stdout %q stderr %q", i, r, r.Stdout, r.Stderr)
				}
				if got := readFile(t, ws+"/runs"); got != strings.Repeat("run\n", i+1) || exists(outside+"/x") {
					t.Fatalf("after run %d: the command ran %q times (want once per run); outside write %v", i, got, exists(outside+"/x"))
				}
			}
			want := "ran [" + helperCheckedArg + " " + fingerprint() + "]\n"
			// A real stale helper keeps no record: the run count above and
			// the reason below show that it refused itself.
			if got, _ := os.ReadFile(marker); kind != "stale helper" && string(got) != want {
				t.Fatalf("the refused program's record: %q, want %q (started once)", got, want)
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

// staleHelper builds the real helper program into dir from a copy of the
// module with one comment added to package sandbox: a helper of another
// turnstile version, which speaks the checked protocol itself.
func staleHelper(t *testing.T, dir string) string {
	t.Helper()
	root, cp := moduleRoot(t), t.TempDir()
	for _, pat := range []string{"go.mod", "go.sum", "domain/*.go", "sandbox/*.go", "cmd/turnstile-sandbox/*.go"} {
		files, _ := filepath.Glob(filepath.Join(root, pat))
		for _, src := range files {
			if strings.HasSuffix(src, "_test.go") {
				continue
			}
			rel, _ := filepath.Rel(root, src)
			b, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			if rel == "sandbox/plan.go" {
				b = append(b, "\n// another version\n"...)
			}
			os.MkdirAll(filepath.Dir(filepath.Join(cp, rel)), 0o755)
			if err := os.WriteFile(filepath.Join(cp, rel), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return buildHelper(t, cp, dir)
}

// TestCheckedHelperKilledIsNotRefused: an unverified lean helper that Run
// kills before it confirmed its fingerprint (the caller's context is already
// cancelled) is not taken for a helper that refused: it stays the helper,
// and the plan is not run again through the running binary.
func TestCheckedHelperKilledIsNotRefused(t *testing.T) {
	f := requireKernel(t, true)
	h := locateHelper(buildHelper(t, moduleRoot(t), t.TempDir()))
	useHelper(t, h)
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	// The command outlasts the kill: a command done before Run's watch of
	// the context began exited 0 on its own (select then picks either of
	// the two ready cases), and the test failed once so.
	p, err := PlanSpawn(s, SpawnRequest{Argv: []string{"/bin/sh", "-c", "echo run >> runs; exec sleep 30"}}, os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := Run(ctx, p)
	if err != nil || r.ExitCode == 0 {
		t.Fatalf("a run with a cancelled context: %+v, %v", r, err)
	}
	helperMu.Lock()
	cur := *helperCur
	helperMu.Unlock()
	if !cur.lean || cur.path != h.path {
		t.Fatalf("after a killed run the helper is %+v: want the lean helper still", cur)
	}
	if got, _ := os.ReadFile(ws + "/runs"); len(got) > len("run\n") {
		t.Fatalf("the command ran %q", got)
	}
	// The control: the same helper, a live context, runs and is verified.
	r = sh(t, s, "echo ok")
	helperMu.Lock()
	cur = *helperCur
	helperMu.Unlock()
	if r.ExitCode != 0 || !cur.lean || !cur.verified {
		t.Fatalf("control: %+v; helper %+v", r, cur)
	}
}

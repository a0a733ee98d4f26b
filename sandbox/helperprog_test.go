package sandbox

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// moduleRoot is the directory of go.mod (the tests run in sandbox/).
func moduleRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod above the sandbox package: %v", err)
	}
	return root
}

// buildHelper builds cmd/turnstile-sandbox from the module at root into
// dir/turnstile-sandbox (mode 0755) and returns its path.
func buildHelper(t testing.TB, root, dir string) string {
	t.Helper()
	out := filepath.Join(dir, HelperProgram)
	cmd := exec.Command("go", "build", "-o", out, "./cmd/turnstile-sandbox")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/turnstile-sandbox: %v\n%s", err, b)
	}
	if err := os.Chmod(out, 0o755); err != nil {
		t.Fatal(err)
	}
	return out
}

// useHelper makes Run and Probe start h until the test ends.
func useHelper(t testing.TB, h *helperProg) {
	t.Helper()
	helperMu.Lock()
	old := helperCur
	helperCur = h
	helperMu.Unlock()
	t.Cleanup(func() {
		helperMu.Lock()
		cur := helperCur
		helperCur = old
		helperMu.Unlock()
		if cur != old && cur.fd >= 0 {
			unix.Close(cur.fd)
		}
	})
}

// fakeHelper builds a program named HelperProgram into dir that appends a
// line to marker each time it runs and reports a made-up fingerprint (a
// helper built from other code, as far as turnstile can tell).
func fakeHelper(t testing.TB, dir, marker string) string {
	t.Helper()
	prog := `package main

import (
	"fmt"
	"os"
)

func main() {
	f, _ := os.OpenFile(` + strconv.Quote(marker) + `, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	fmt.Fprintln(f, "ran", os.Args[1:])
	fmt.Println("fingerprint 0000")
	fmt.Println("namespaces ok") // what a working probe child says
	fmt.Println("carve-out ok")
}
`
	return buildFakeHelper(t, dir, prog)
}

// TestLeanHelperLinksNoServerCode: the helper program links neither net
// (nor the cgo resolver it brings) nor the server's packages, and is a
// static executable: this is what makes a spawn cheap. It fails when
// package sandbox imports net or net/http again.
func TestLeanHelperLinksNoServerCode(t *testing.T) {
	root := moduleRoot(t)
	list := exec.Command("go", "list", "-deps", "./cmd/turnstile-sandbox")
	list.Dir = root
	out, err := list.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	forbidden := []string{"net", "net/http", "runtime/cgo", "crypto/tls", "os/user", "google.golang.org/grpc",
		"github.com/prometheus/client_golang/prometheus", "turnstile/api", "turnstile/adapters/boltstore", "turnstile/sandbox/egress"}
	for _, f := range forbidden {
		for _, d := range deps {
			if d == f {
				t.Errorf("cmd/turnstile-sandbox links %s", f)
			}
		}
	}
	// The fingerprint covers the sources of sandbox and domain: a helper
	// that links another package of this module would need it added there.
	var own []string
	for _, d := range deps {
		if d == "turnstile" || strings.HasPrefix(d, "turnstile/") {
			own = append(own, d)
		}
	}
	slices.Sort(own)
	if strings.Join(own, " ") != "turnstile/cmd/turnstile-sandbox turnstile/domain turnstile/sandbox" {
		t.Fatalf("the helper links %v: the fingerprint (helperprog.go) covers only turnstile/domain and turnstile/sandbox", own)
	}
	bin := buildHelper(t, root, t.TempDir())
	ef, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s is dynamically linked (it has an ELF interpreter): every spawn would pay for ld.so and libc", bin)
		}
	}
}

// TestLeanHelperEnforces: a lean helper built next to nothing in particular
// is located, verified by the namespace probe (its fingerprint matches), and
// then enforces: in auto_accept_edits a workspace write works, a write
// outside and a write into the read-only .git carve-out are refused.
func TestLeanHelperEnforces(t *testing.T) {
	f := requireKernel(t, true)
	dir := t.TempDir()
	h := locateHelper(buildHelper(t, moduleRoot(t), dir))
	if !h.lean || h.verified {
		t.Fatalf("located %+v: want a lean helper, not yet verified", h)
	}
	useHelper(t, h)
	pf := Probe()
	if pf.Kernel.UserNamespaces != f.Kernel.UserNamespaces {
		t.Fatalf("the probe through the lean helper found user namespaces=%v, the test binary %v: %s", pf.Kernel.UserNamespaces, f.Kernel.UserNamespaces, pf.UserNamespacesDetail)
	}
	helperMu.Lock()
	cur := *helperCur
	helperMu.Unlock()
	if !cur.lean || !cur.verified || cur.path != h.path {
		t.Fatalf("after the probe the helper is %+v: want the lean helper, verified by the probe itself", cur)
	}
	if d := HelperDescription(); !strings.HasPrefix(d, "lean helper "+filepath.Join(dir, HelperProgram)) {
		t.Fatalf("description %q", d)
	}
	base := tempWorkspace(t)
	ws, outside := base+"/ws", base+"/outside"
	for _, d := range []string{ws + "/.git", outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, pf.Kernel)
	r := sh(t, s, "echo in > in.txt")
	if r.ExitCode != 0 || readFile(t, ws+"/in.txt") != "in\n" {
		t.Fatalf("workspace write through the lean helper failed: %+v %s", r, r.Stderr)
	}
	for _, target := range []string{outside + "/x", ws + "/.git/config"} {
		r := sh(t, s, "echo x > "+target)
		if r.ExitCode == 0 || exists(target) {
			t.Fatalf("write to %s through the lean helper succeeded: %+v", target, r)
		}
	}
}

// TestHelperFileChecks: a helper file that is a symlink, not executable,
// writable by group, or owned by another user is never started; the same
// file with mode 0755 owned by this user is (the control).
func TestHelperFileChecks(t *testing.T) {
	root := moduleRoot(t)
	dir := t.TempDir()
	real := buildHelper(t, root, dir)
	cases := []struct {
		name, want string
		prep       func(t *testing.T) string
	}{
		{"control", "", func(t *testing.T) string { return real }},
		{"symlink", "symlink", func(t *testing.T) string {
			p := filepath.Join(t.TempDir(), HelperProgram)
			if err := os.Symlink(real, p); err != nil {
				t.Fatal(err)
			}
			return p
		}},
		{"not executable", "not executable", func(t *testing.T) string { return copyHelper(t, real, 0o644, -1) }},
		{"group writable", "writable by group", func(t *testing.T) string { return copyHelper(t, real, 0o775, -1) }},
		{"other owner", "owned by uid 65534", func(t *testing.T) string {
			if os.Geteuid() != 0 {
				missingPrerequisite(t, "chown to another user needs root")
			}
			return copyHelper(t, real, 0o755, 65534)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := locateHelper(c.prep(t))
			if c.want == "" {
				if !h.lean {
					t.Fatalf("control refused: %s", h.note)
				}
				unix.Close(h.fd)
				return
			}
			if h.lean || h.path != selfExe || !strings.Contains(h.note, c.want) {
				t.Fatalf("got %+v, want the running binary and a note naming %q", h, c.want)
			}
		})
	}
}

// copyHelper copies src to a new directory with mode (and owner uid when
// uid >= 0).
func copyHelper(t *testing.T, src string, mode os.FileMode, uid int) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), HelperProgram)
	if err := os.WriteFile(p, b, 0o700); err != nil {
		t.Fatal(err)
	}
	if uid >= 0 {
		if err := os.Chown(p, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHelperWrongFingerprint: a program named turnstile-sandbox that is not
// built from this code is run once (to report its fingerprint, either from
// the namespace probe or on its own), refused, and never started as the
// helper: the probe's answer comes from the running binary and sandboxed
// commands go through it, still confined.
func TestHelperWrongFingerprint(t *testing.T) {
	f := requireKernel(t, true)
	for _, probeFirst := range []bool{true, false} {
		t.Run(map[bool]string{true: "probe first", false: "run first"}[probeFirst], func(t *testing.T) {
			dir := t.TempDir()
			marker := filepath.Join(dir, "ran")
			useHelper(t, locateHelper(fakeHelper(t, dir, marker)))
			want := "ran [" + fingerprintArg + "]\n"
			if probeFirst {
				pf := Probe()
				if pf.Kernel.UserNamespaces != f.Kernel.UserNamespaces {
					t.Fatalf("probe with a refused helper: user namespaces %v, want %v: %s", pf.Kernel.UserNamespaces, f.Kernel.UserNamespaces, pf.UserNamespacesDetail)
				}
				got := readFile(t, marker)
				if f.Kernel.UserNamespaces && !strings.HasPrefix(got, "ran ["+probeArg+" ") {
					t.Fatalf("the fake helper should have run once, as the probe child: %q", got)
				}
				want = got
			}
			h := currentHelper()
			if h.lean || h.path != selfExe || !strings.Contains(h.note, "built from other sandbox or domain code") {
				t.Fatalf("the fake helper was accepted: %+v", h)
			}
			if got := readFile(t, marker); got != want || strings.Count(got, "\n") != 1 {
				t.Fatalf("the fake helper should have run exactly once: %q", got)
			}
			ws := tempWorkspace(t)
			outside := tempWorkspace(t)
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
			if r := sh(t, s, "echo in > in.txt; echo x > "+outside+"/x"); !exists(ws+"/in.txt") || exists(outside+"/x") {
				t.Fatalf("fallback helper did not enforce: %+v %s", r, r.Stderr)
			}
			if got := readFile(t, marker); got != want {
				t.Fatalf("the refused helper ran again: %q", got)
			}
		})
	}
}

// TestHelperPinned: once verified, the helper is run from its descriptor:
// renaming another program over its path afterwards changes nothing (the
// command still runs, confined); locating the path again refuses the
// replacement (the control: the swap is detectable).
func TestHelperPinned(t *testing.T) {
	f := requireKernel(t, true)
	dir := t.TempDir()
	real := buildHelper(t, moduleRoot(t), dir)
	useHelper(t, locateHelper(real))
	if h := currentHelper(); !h.lean || !h.verified {
		t.Fatalf("the built helper was not accepted: %+v", h)
	}
	other := t.TempDir()
	marker := filepath.Join(other, "ran")
	if err := os.Rename(fakeHelper(t, other, marker), real); err != nil {
		t.Fatal(err)
	}
	ws, outside := tempWorkspace(t), tempWorkspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r := sh(t, s, "echo in > in.txt; echo x > "+outside+"/x")
	if !exists(ws+"/in.txt") || exists(outside+"/x") {
		t.Fatalf("the pinned helper did not enforce: %+v %s", r, r.Stderr)
	}
	if exists(marker) {
		t.Fatalf("the program renamed over the helper ran: %s", readFile(t, marker))
	}
	again := locateHelper(real)
	defer func() {
		if again.fd >= 0 {
			unix.Close(again.fd)
		}
	}()
	if got, err := runFingerprint(again.path); err != nil || got == fingerprint() {
		t.Fatalf("the replacement reported %q, %v: want a different fingerprint", got, err)
	}
}

// TestHelperFingerprintCoversSource: a helper built from a copy of the
// module is accepted when the copy is unchanged (the control), and refused
// when one comment in package sandbox or package domain differs: a stale
// helper left next to a newer server is never used.
func TestHelperFingerprintCoversSource(t *testing.T) {
	root := moduleRoot(t)
	cases := []struct{ name, edit string }{{"unchanged", ""}, {"sandbox changed", "sandbox/plan.go"}, {"domain changed", "domain/resolve.go"}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cp := t.TempDir()
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
					if rel == c.edit {
						b = append(b, "\n// a change\n"...)
					}
					os.MkdirAll(filepath.Dir(filepath.Join(cp, rel)), 0o755)
					if err := os.WriteFile(filepath.Join(cp, rel), b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			h := locateHelper(buildHelper(t, cp, t.TempDir()))
			useHelper(t, h)
			cur := currentHelper()
			if c.edit == "" && (!cur.lean || !cur.verified) {
				t.Fatalf("a helper built from an unchanged copy was refused: %s", cur.note)
			}
			if c.edit != "" && (cur.lean || !strings.Contains(cur.note, "built from other")) {
				t.Fatalf("a helper built with %s changed was accepted: %+v", c.edit, cur)
			}
		})
	}
}

// buildFakeHelper builds the Go program prog as a program named
// HelperProgram into dir and returns its path.
func buildFakeHelper(t testing.TB, dir, prog string) string {
	t.Helper()
	src := t.TempDir()
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

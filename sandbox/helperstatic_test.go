package sandbox

import (
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"turnstile/domain"
)

// staticHelperBuild is the lean helper built once per test binary (in a
// directory TestMain removes), for the tests that run full_access commands
// as root: those start only through a static helper (helperstatic.go).
var staticHelperBuild struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// useStaticHelper makes Run start the lean helper, statically linked and
// built from this module, until the test ends, and returns its path.
func useStaticHelper(t testing.TB) string {
	t.Helper()
	b := &staticHelperBuild
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", "turnstile-static-helper-"); b.err == nil {
			b.path = buildHelperErr(moduleRoot(t), b.dir)
			if b.path == "" {
				b.err = errors.New("go build ./cmd/turnstile-sandbox failed")
			}
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	h := locateHelper(b.path)
	if !h.lean || h.dynamic {
		t.Fatalf("the built helper %s: %+v", b.path, h)
	}
	useHelper(t, h)
	return b.path
}

// buildHelperErr builds cmd/turnstile-sandbox from the module at root into
// dir (as buildHelper, outside any one test): the path, or "".
func buildHelperErr(root, dir string) string {
	out := filepath.Join(dir, HelperProgram)
	cmd := exec.Command("go", "build", "-o", out, "./cmd/turnstile-sandbox")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build ./cmd/turnstile-sandbox: %v\n%s", err, b)
		return ""
	}
	return out
}

// useSelfHelper makes Run start this test binary as the helper (what a
// server without turnstile-sandbox next to it does) until the test ends.
func useSelfHelper(t testing.TB) helperProg {
	t.Helper()
	h := selfHelper("test: no lean helper")
	useHelper(t, h)
	return *h
}

// TestELFInterpreter: elfInterpreter agrees with debug/elf on this test
// binary (dynamically linked when cgo is on) and on the lean helper
// (static), and a script or a truncated file counts as dynamic.
func TestELFInterpreter(t *testing.T) {
	helper := useStaticHelper(t)
	for _, p := range []string{testExe(t), helper} {
		ef, err := elf.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		want := ""
		for _, ph := range ef.Progs {
			if ph.Type == elf.PT_INTERP {
				b := make([]byte, ph.Filesz)
				ph.ReadAt(b, 0)
				want = strings.TrimRight(string(b), "\x00")
			}
		}
		ef.Close()
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := elfInterpreter(f)
		f.Close()
		if err != nil || got != want {
			t.Errorf("%s: interpreter %q %v, debug/elf says %q", p, got, err, want)
		}
		if dyn, how := fileLinkage(p); dyn != (want != "") {
			t.Errorf("%s: dynamic=%v (%s), interpreter %q", p, dyn, how, want)
		}
	}
	if dyn, _ := fileLinkage(helper); dyn {
		t.Errorf("the lean helper %s counts as dynamically linked", helper)
	}
	dir := t.TempDir()
	script, short := filepath.Join(dir, "script"), filepath.Join(dir, "short")
	os.WriteFile(script, []byte("#!/bin/sh\necho hi\n"), 0o755)
	b, _ := os.ReadFile(helper)
	os.WriteFile(short, b[:40], 0o755)
	for _, p := range []string{script, short, filepath.Join(dir, "missing")} {
		if dyn, how := fileLinkage(p); !dyn {
			t.Errorf("%s counts as static (%s)", p, how)
		}
	}
}

// TestFullAccessDynamicHelperRefusedAsRoot: a root server whose helper
// would be a dynamically linked program (this test binary, as the server
// binary re-executes itself without turnstile-sandbox next to it) refuses a
// full_access command that hides gateway secrets: exit 126, the reason names
// the fix, and nothing ran. Control: the same command through the static
// lean helper runs.
func TestFullAccessDynamicHelperRefusedAsRoot(t *testing.T) {
	f := requireKernel(t, true)
	requireRoot(t)
	ws := tempWorkspace(t)
	data, marker := ws+"/data", ws+"/ran"
	os.Mkdir(data, 0o700)
	os.WriteFile(data+"/token", []byte("secret\n"), 0o600)
	if h := useSelfHelper(t); !h.dynamic {
		missingPrerequisite(t, "this test binary is statically linked (%s): build it with cgo to stand for the server", h.linkage)
	}
	out, code, err := runFullAccessScript(f.Kernel, []string{data}, ws, "touch "+marker)
	r, ok := err.(*Refusal)
	if !ok || r.Code != CodeSandboxFailed || code != ExitSandboxFailure || exists(marker) ||
		!strings.Contains(r.Message, "dynamically linked") || !strings.Contains(r.Message, "./cmd/turnstile-sandbox") {
		t.Fatalf("dynamic helper as root: exit %d %v ran=%v\n%s", code, err, exists(marker), out)
	}
	useStaticHelper(t)
	if out, code, err := runFullAccessScript(f.Kernel, []string{data}, ws, "touch "+marker+"; cat "+data+"/token"); err != nil || code == 0 || !exists(marker) || strings.Contains(out, "secret") {
		t.Fatalf("control: through the static helper: exit %d %v ran=%v\n%s", code, err, exists(marker), out)
	}
}

// TestHelperInWritableRootStaysReadOnly: the README builds turnstile and
// turnstile-sandbox into bin/ of the clone, which is often the workspace. A
// restricted command (as root its uid owns the root's files through the
// idmapped mount) must not rewrite the helper the server starts next, before
// any enforcement, nor the server's binary, nor move them aside; control:
// it writes, appends to and renames another file of the same directory.
func TestHelperInWritableRootStaysReadOnly(t *testing.T) {
	f := requireKernel(t, true)
	ws := visibleWorkspace(t)
	bin := filepath.Join(ws, "bin")
	os.Mkdir(bin, 0o755)
	helper := buildHelperErr(moduleRoot(t), bin)
	if helper == "" {
		t.Fatal("go build ./cmd/turnstile-sandbox failed")
	}
	useHelper(t, locateHelper(helper))
	os.WriteFile(bin+"/other", []byte("other\n"), 0o755)
	before := readFile(t, helper)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	for _, script := range []string{
		": >> " + helper,
		"echo x > " + helper,
		"mv " + helper + " " + helper + ".old",
		"rm -f " + helper,
		"mv " + bin + " " + ws + "/bin.old",
	} {
		if r := sh(t, s, script); r.ExitCode == 0 {
			t.Errorf("%s: exit 0 %s", script, r.Stderr)
		}
	}
	if got := readFile(t, helper); got != before {
		t.Fatal("the helper changed")
	}
	if r := sh(t, s, "echo y >> "+bin+"/other && mv "+bin+"/other "+bin+"/other2 && mv "+bin+"/other2 "+bin+"/other"); r.ExitCode != 0 || readFile(t, bin+"/other") != "other\ny\n" {
		t.Fatalf("control: another file of bin/: %+v %s", r, r.Stderr)
	}
}

// TestFullAccessFallbackToDynamicRefused: a lean helper that fails its
// check (built from other code) is dropped for the running binary during
// the spawn itself; as root that binary, dynamically linked, is then
// refused for the full_access command as well (the check runs on every
// spawn, not once at plan time): nothing ran.
func TestFullAccessFallbackToDynamicRefused(t *testing.T) {
	f := requireKernel(t, true)
	requireRoot(t)
	if h := selfHelper(""); !h.dynamic {
		missingPrerequisite(t, "this test binary is statically linked (%s)", h.linkage)
	}
	ws := tempWorkspace(t)
	data, marker := ws+"/data", ws+"/ran"
	os.Mkdir(data, 0o700)
	fake := locateHelper(fakeHelper(t, t.TempDir(), ws+"/fake-ran"))
	if !fake.lean || fake.dynamic {
		t.Fatalf("the fake helper: %+v", fake)
	}
	useHelper(t, fake)
	_, code, err := runFullAccessScript(f.Kernel, []string{data}, ws, "touch "+marker)
	r, ok := err.(*Refusal)
	if !ok || code != ExitSandboxFailure || !strings.Contains(r.Message, "dynamically linked") || exists(marker) {
		t.Fatalf("exit %d %v ran=%v", code, err, exists(marker))
	}
	if !exists(ws + "/fake-ran") {
		t.Fatal("control: the fake lean helper was not started first")
	}
}

package tests

import (
	"debug/elf"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// cgoBuilt is the directory of turnstile (built with cgo: dynamically
// linked, as `go build` leaves it) and turnstile-sandbox, built once.
var cgoBuilt struct {
	once sync.Once
	dir  string
	err  error
}

// cgoBuild builds them next to bin (TestMain removes that directory).
func cgoBuild(t *testing.T) string {
	t.Helper()
	c := &cgoBuilt
	c.once.Do(func() {
		c.dir = filepath.Join(filepath.Dir(bin), "cgo")
		build := exec.Command("go", "build", "-o", c.dir+"/", "../cmd/turnstile", "../cmd/turnstile-sandbox")
		build.Env = append(os.Environ(), "CGO_ENABLED=1")
		if out, err := build.CombinedOutput(); err != nil {
			c.err = fmt.Errorf("go build with cgo: %v\n%s", err, out)
		}
	})
	if c.err != nil {
		t.Fatal(c.err)
	}
	if interp := elfInterp(t, filepath.Join(c.dir, "turnstile")); interp == "" {
		t.Fatal("cmd/turnstile built with cgo is statically linked: the attack needs the dynamic binary")
	}
	if interp := elfInterp(t, filepath.Join(c.dir, "turnstile-sandbox")); interp != "" {
		t.Fatalf("turnstile-sandbox is dynamically linked (%s)", interp)
	}
	return c.dir
}

// TestFullAccessPlantedPreloadNeverReachesTheToken: a full_access command of
// a root server can write /etc/ld.so.preload. Whatever dynamically linked
// program the server starts next in the host's view loads the planted
// library before any mask, and the library reads the token. Each server runs
// in a private mount namespace whose /etc is an overlay on a tmpfs (the
// real /etc is never written), built with cgo as `go build` leaves it
// (dynamically linked).
//
//   - The server alone (it would re-execute itself as the helper) refuses
//     full_access commands: the plant is not run, and with a preload planted
//     anyway (by the test) the next command is refused too, its answer
//     without the token.
//   - Control, the same binary with the static turnstile-sandbox next to it
//     (what the README's start command builds): the command plants the
//     preload (full_access works, /etc is writable to it), the next command
//     runs, the library loads in it (after the masks) and reads nothing.
//   - Control: a dynamic program started by root in the server's mount
//     namespace (nsenter) loads the library and prints the token.
func TestFullAccessPlantedPreloadNeverReachesTheToken(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("the attack needs a root server (its command writes /etc)")
	}
	needTools(t, "the planted-preload test", "gcc", "unshare", "nsenter", "mount")
	dir := t.TempDir()
	both, alone := cgoBuild(t), filepath.Join(dir, "alone")
	os.Mkdir(alone, 0o755)
	b, err := os.ReadFile(filepath.Join(both, "turnstile"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(alone, "turnstile"), b, 0o755); err != nil {
		t.Fatal(err)
	}

	// newServer starts the binary in dir in a mount namespace of its own
	// whose /etc is an overlay (upper layer on a tmpfs), with a library
	// that prints the server's token from its constructor.
	newServer := func(name, binDir string) (s *Server, lib string) {
		t.Helper()
		data, ov := filepath.Join(dir, name+"-data"), filepath.Join(dir, name+"-ov")
		os.Mkdir(ov, 0o755)
		lib = filepath.Join(dir, name+"-evil.so")
		src := filepath.Join(dir, name+"-evil.c")
		os.WriteFile(src, []byte(`#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
__attribute__((constructor)) static void steal(void) {
	char b[200];
	int fd = open(`+strconv.Quote(filepath.Join(data, "token"))+`, O_RDONLY);
	int n = fd < 0 ? -1 : read(fd, b, sizeof b - 1);
	if (n > 0) { b[n] = 0; dprintf(2, "EVIL-TOKEN:%s\n", b); } else dprintf(2, "EVIL-LOADED: no token\n");
}
`), 0o644)
		if out, err := exec.Command("gcc", "-shared", "-fPIC", "-o", lib, src).CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, out)
		}
		wrapper := filepath.Join(dir, name+"-serve")
		os.WriteFile(wrapper, []byte(fmt.Sprintf(`#!/bin/sh
exec unshare --mount --propagation private sh -c 'set -e
mount -t tmpfs t "$0"; mkdir "$0/u" "$0/w"
mount -t overlay overlay -o "lowerdir=/etc,upperdir=$0/u,workdir=$0/w" /etc
exec "$@"' %s %s "$@"
`, ov, filepath.Join(binDir, "turnstile"))), 0o755)
		return StartServerBin(t, wrapper, data), lib
	}
	// Its /etc/ld.so.preload, seen from outside its mount namespace.
	preload := func(s *Server) string {
		return fmt.Sprintf("/proc/%d/root/etc/ld.so.preload", s.cmd.Process.Pid)
	}
	// A dynamic program run by root in the server's mount namespace: the
	// planted library, loaded before any mask, prints the token.
	control := func(s *Server) {
		t.Helper()
		out, _ := exec.Command("nsenter", "-t", strconv.Itoa(s.cmd.Process.Pid), "-m", "cat", "/dev/null").CombinedOutput()
		if !strings.Contains(string(out), "EVIL-TOKEN:"+s.Token) {
			t.Fatalf("control: a dynamic program in the server's view with the preload planted: %q", out)
		}
	}
	ws := workspace(t)

	// The server alone re-executes itself: full_access is refused.
	s, lib := newServer("alone", alone)
	s.startTurn("fa-alone", "ws", "full_access", ws)
	status, d := s.exec("fa-alone", "", map[string]any{"tool_call_id": "plant", "argv": []string{"sh", "-c", "echo " + lib + " > /etc/ld.so.preload"}, "cwd": ws})
	if status != http.StatusOK || d.Ran || d.Refusal != "sandbox_failed" || !strings.Contains(d.Message, "./cmd/turnstile-sandbox") || exists(preload(s)) {
		t.Errorf("plant through the server alone: %d %+v planted=%v", status, d, exists(preload(s)))
	}
	if !exists(preload(s)) {
		if err := os.WriteFile(preload(s), []byte(lib+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	status, d = s.exec("fa-alone", "", map[string]any{"tool_call_id": "next", "argv": []string{"echo", "hi"}, "cwd": ws})
	if status != http.StatusOK || d.Ran || d.Result != nil && strings.Contains(d.Result.Stderr, s.Token) {
		t.Fatalf("next command, preload planted, server alone: %d %+v %+v", status, d, d.Result)
	}
	control(s)

	// Control: with the static helper next to it.
	s, lib = newServer("both", both)
	s.startTurn("fa-both", "ws", "full_access", ws)
	status, d = s.exec("fa-both", "", map[string]any{"tool_call_id": "plant", "argv": []string{"sh", "-c", "echo " + lib + " > /etc/ld.so.preload"}, "cwd": ws})
	if status != http.StatusOK || !d.Ran || d.Result.ExitCode != 0 || !exists(preload(s)) {
		t.Fatalf("control: plant through the static helper: %d %+v planted=%v", status, d, exists(preload(s)))
	}
	status, d = s.exec("fa-both", "", map[string]any{"tool_call_id": "next", "argv": []string{"sh", "-c", "echo hi"}, "cwd": ws})
	if status != http.StatusOK || !d.Ran || d.Result.Stdout != "hi\n" || strings.Contains(d.Result.Stdout+d.Result.Stderr, s.Token) ||
		!strings.Contains(d.Result.Stderr, "EVIL-LOADED: no token") {
		t.Fatalf("next command, preload planted, static helper: %d %+v", status, d.Result)
	}
	control(s)
}

// elfInterp returns the ELF interpreter the program at p names ("" for a
// static executable).
func elfInterp(t *testing.T, p string) string {
	t.Helper()
	f, err := elf.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, ph := range f.Progs {
		if ph.Type == elf.PT_INTERP {
			b := make([]byte, ph.Filesz)
			ph.ReadAt(b, 0)
			return strings.TrimRight(string(b), "\x00")
		}
	}
	return ""
}

// TestNoPlantedNSSModuleLoads: the same root command can write
// /etc/nsswitch.conf and a libnss_*.so next to the C library; a
// dynamically linked turnstile that resolved names through getaddrinfo
// would load it into the running server (the egress proxy and the decision
// checks look up names the agent chooses) or a client. In a private mount
// namespace with both planted (overlays on /etc and the C library's
// directory), the cgo-built client looks a name up and loads nothing.
// Control: glibc's getent, in the same namespace, loads the module.
func TestNoPlantedNSSModuleLoads(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("the overlays need root")
	}
	needTools(t, "the NSS test", "gcc", "unshare", "mount", "getent", "ldd")
	tool := filepath.Join(cgoBuild(t), "turnstile")
	// The C library's directory, where NSS looks its modules up: ldd of
	// the dynamically linked binary names it.
	ldd, err := exec.Command("ldd", tool).Output()
	libdir := ""
	for _, l := range strings.Split(string(ldd), "\n") {
		if _, p, ok := strings.Cut(l, "=> "); ok && strings.Contains(p, "/libc.so.6 ") {
			libdir = filepath.Dir(strings.Fields(p)[0])
		}
	}
	if err != nil || libdir == "" {
		t.Fatalf("the C library's directory: %v\n%s", err, ldd)
	}
	dir := t.TempDir()
	src, mod := filepath.Join(dir, "nss.c"), filepath.Join(dir, "libnss_evil.so.2")
	os.WriteFile(src, []byte(`#include <unistd.h>
__attribute__((constructor)) static void hit(void) { dprintf(2, "EVIL-NSS loaded\n"); }
`), 0o644)
	if out, err := exec.Command("gcc", "-shared", "-fPIC", "-o", mod, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	script := `set -e
mount -t tmpfs t "$0"; mkdir "$0/u" "$0/w" "$0/lu" "$0/lw"
mount -t overlay overlay -o "lowerdir=/etc,upperdir=$0/u,workdir=$0/w" /etc
mount -t overlay overlay -o "lowerdir=$1,upperdir=$0/lu,workdir=$0/lw" "$1"
cp "$2" "$1/"
echo "hosts: evil files dns" > /etc/nsswitch.conf
echo "== getent"; getent hosts nosuchhost.invalid 2>&1 || :
echo "== turnstile"; TURNSTILE_TOKEN=0123456789abcdef0123 "$3" replay t1 --server http://nosuchhost.invalid:1 2>&1 || :
`
	ov := filepath.Join(dir, "ov")
	os.Mkdir(ov, 0o755)
	b, err := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c", script, ov, libdir, mod, tool).CombinedOutput()
	got := string(b)
	ctl, mine, _ := strings.Cut(got, "== turnstile")
	if err != nil || !strings.Contains(ctl, "EVIL-NSS loaded") {
		t.Fatalf("control: getent with the module planted: %v\n%s", err, got)
	}
	if strings.Contains(mine, "EVIL-NSS") || !strings.Contains(mine, "nosuchhost.invalid") {
		t.Fatalf("turnstile with the module planted:\n%s", got)
	}
}

// needTools skips t when a program it needs is missing (a C compiler is
// not part of a fresh machine with Go), or fails it under CI=true, where
// .ci/run installs them.
func needTools(t *testing.T, what string, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("CI=true: %s needs %s: %v", what, tool, err)
			}
			t.Skipf("%s needs %s (set CI=true to make this a failure): %v", what, tool, err)
		}
	}
}

package sandbox

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// TestRunNamespaceStartFailsClosed: when the namespaces cannot be created at
// spawn time (here: an invalid id map), Run refuses with sandbox_failed and
// exit 126 instead of running the command with less than the snapshot
// claims. Control: the same plan runs when the namespaces can be made.
func TestRunNamespaceStartFailsClosed(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	if r := sh(t, s, "touch ran-control"); r.ExitCode != 0 || !exists(ws+"/ran-control") {
		t.Fatalf("control: %+v %s", r, r.Stderr)
	}
	saved := newNamespaceAttr
	t.Cleanup(func() { newNamespaceAttr = saved })
	newNamespaceAttr = func() *syscall.SysProcAttr {
		a := namespaceAttr()
		a.Cloneflags |= syscall.CLONE_NEWUSER
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 0}} // refused by the kernel
		return a
	}
	r, err := run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c", "touch ran"}}, nil)
	var ref *Refusal
	if !errors.As(err, &ref) || ref.Code != CodeSandboxFailed || r == nil || r.ExitCode != ExitSandboxFailure ||
		!strings.Contains(r.SandboxError, "namespaces") {
		t.Fatalf("got %+v, %v", r, err)
	}
	if exists(ws + "/ran") {
		t.Fatal("the command ran without its namespaces")
	}
}

// requireRoot fails (CI=true) or skips a test that needs the server to run
// as root.
func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		missingPrerequisite(t, "this test needs the server to run as root")
	}
}

// visibleWorkspace returns a canonical temporary directory (0755) outside
// /tmp, which the root view hides: under /var/tmp, removed afterwards.
func visibleWorkspace(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/var/tmp", "turnstile-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		clearKilledMarks(d)
		os.RemoveAll(d)
	})
	if err := os.Chmod(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// probeIn runs probe program kind under s and returns its result.
func probeIn(t *testing.T, s *domain.TurnExecutionSecuritySnapshot, kind string, args ...string) *Result {
	t.Helper()
	r, err := run(t, s, SpawnRequest{Argv: probeCmd(t, kind, args...)}, nil)
	if err != nil {
		t.Fatalf("%s %v: %v (%+v)", kind, args, err, r)
	}
	return r
}

// TestViewMetadataOutsideWritableRoots (issue 9.1): chmod, chown, utimes and
// setxattr fail with EROFS on a file in a sibling directory, through a
// symlink in the workspace, on the test binary in an app read root, and, as
// root, on a file under /usr, and on the workspace itself when it is read
// only (supervised); the same calls work on a file of a writable root.
func TestViewMetadataOutsideWritableRoots(t *testing.T) {
	f := requireKernel(t, true)
	exeDir := filepathDir(testExe(t))
	var usrFile string
	if os.Geteuid() == 0 {
		usrFile = "/usr/local/share/turnstile-meta-" + token()
		if err := os.WriteFile(usrFile, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(usrFile) })
	}
	ops := []string{"chmod", "chown", "utime", "setxattr"}
	for _, mode := range []domain.Mode{domain.ModeAutoAcceptEdits, domain.ModeSupervised} {
		t.Run(string(mode), func(t *testing.T) {
			base := visibleWorkspace(t)
			ws, sib := base+"/ws", base+"/sibling"
			for _, d := range []string{ws, sib} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for _, p := range []string{ws + "/f", sib + "/f"} {
				if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			os.Symlink(sib+"/f", ws+"/link")
			s := snapshotFor(t, mode, ws, f.Kernel, exeDir)
			targets := []string{sib + "/f", ws + "/link", testExe(t)}
			if usrFile != "" {
				targets = append(targets, usrFile)
			}
			if mode == domain.ModeSupervised {
				targets = append(targets, ws+"/f")
			}
			for _, op := range ops {
				for _, target := range targets {
					r := probeIn(t, s, op, target)
					if r.ExitCode != 1 || !strings.Contains(string(r.Stdout), unix.EROFS.Error()) {
						t.Errorf("%s %s: exit %d, %s %s", op, target, r.ExitCode, r.Stdout, r.Stderr)
					}
				}
				if mode == domain.ModeAutoAcceptEdits {
					if r := probeIn(t, s, op, ws+"/f"); r.ExitCode != 0 {
						t.Errorf("control: %s in the writable root: %s %s", op, r.Stdout, r.Stderr)
					}
				}
			}
			var st unix.Stat_t
			if err := unix.Stat(sib+"/f", &st); err != nil || st.Mode&0o7777 != 0o644 || st.Mtim.Sec == 0 {
				t.Errorf("the sibling file changed: %+v %v", st, err)
			}
			if _, err := unix.Getxattr(sib+"/f", "user.turnstile", make([]byte, 8)); err == nil {
				t.Error("the sibling file got an xattr")
			}
			if mode == domain.ModeAutoAcceptEdits {
				if err := unix.Stat(ws+"/f", &st); err != nil || st.Mode&0o777 != 0o777 || st.Mtim.Sec != 0 {
					t.Errorf("control: the workspace file did not change: %+v %v", st, err)
				}
			}
		})
	}
}

// TestKeyringRefused (issue 9.5): a key the caller added outside cannot be
// read from the sandbox and no key can be added (EPERM from seccomp), in
// every restricted mode; control: an unsandboxed command reads it.
func TestKeyringRefused(t *testing.T) {
	f := requireKernel(t, true)
	id, err := unix.AddKey("user", "turnstile-test-"+token(), []byte("s3cret-key"), unix.KEY_SPEC_SESSION_KEYRING)
	if err != nil {
		t.Fatalf("add_key outside the sandbox: %v", err)
	}
	t.Cleanup(func() { unix.KeyctlInt(unix.KEYCTL_INVALIDATE, id, 0, 0, 0) })
	// Possessor and owner may read it (the owner: a child that does not
	// possess the caller's session keyring still reads it by id).
	if err := unix.KeyctlSetperm(id, 0x3f3f0000); err != nil {
		t.Fatal(err)
	}
	ws := tempWorkspace(t)
	exeDir := filepathDir(testExe(t))
	for _, mode := range []domain.Mode{domain.ModeAutoAcceptEdits, domain.ModeSupervised} {
		s := snapshotFor(t, mode, ws, f.Kernel, exeDir)
		for _, args := range [][]string{{"read-key", strconv.Itoa(id)}, {"add-key", "planted"}} {
			r := probeIn(t, s, args[0], args[1:]...)
			if r.ExitCode != 1 || !strings.Contains(string(r.Stdout), unix.EPERM.Error()) || strings.Contains(string(r.Stdout), "s3cret") {
				t.Errorf("%s %v: exit %d, %s", mode, args, r.ExitCode, r.Stdout)
			}
		}
	}
	open := snapshotFor(t, domain.ModeFullAccess, ws, f.Kernel)
	if r := probeIn(t, open, "read-key", strconv.Itoa(id)); r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "payload s3cret-key") {
		t.Fatalf("control: unsandboxed read-key: %s %s", r.Stdout, r.Stderr)
	}
}

// TestPIDNamespaceHidesHostProcesses (issue 9.5): a host process with a
// secret in its argv is invisible; /proc/self works; enumerating /proc shows
// the command alone, as pid 1. Control: unsandboxed, the secret shows.
func TestPIDNamespaceHidesHostProcesses(t *testing.T) {
	f := requireKernel(t, true)
	secret := "--password=" + token()
	host := exec.Command("/bin/sh", "-c", "sleep 1000; :", secret)
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { host.Process.Kill(); host.Wait() })
	for deadline := time.Now().Add(30 * time.Second); len(processesWith(secret)) == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the host process never showed its argv")
		}
	}
	ws := tempWorkspace(t)
	exeDir := filepathDir(testExe(t))
	for _, mode := range []domain.Mode{domain.ModeAutoAcceptEdits, domain.ModeSupervised} {
		r := probeIn(t, snapshotFor(t, mode, ws, f.Kernel, exeDir), "procs")
		out := string(r.Stdout)
		var pids []string
		for _, line := range strings.Split(out, "\n") {
			if rest, ok := strings.CutPrefix(line, "pid "); ok {
				pids = append(pids, rest)
			}
		}
		if r.ExitCode != 0 || strings.Contains(out, secret) || !strings.Contains(out, "self 1\n") ||
			len(pids) != 1 || !strings.HasPrefix(pids[0], "1 ") || !strings.Contains(pids[0], "procs") {
			t.Errorf("%s: exit %d, pids %q:\n%s%s", mode, r.ExitCode, pids, out, r.Stderr)
		}
	}
	r := probeIn(t, snapshotFor(t, domain.ModeFullAccess, ws, f.Kernel), "procs")
	if !strings.Contains(string(r.Stdout), secret) {
		t.Fatalf("control: unsandboxed, the host process is not listed:\n%s", r.Stdout)
	}
}

// TestPIDNamespaceKillsDaemons (issue 9.6): a setsid daemon that keeps
// appending to a file is gone once Run returns, whether the command timed
// out, was cancelled (turn end, interrupt) or exited; in full_access too
// when the server is root (a cgroup per command). Control: full_access
// with the process group kill only, the same daemon survives.
func TestPIDNamespaceKillsDaemons(t *testing.T) {
	f := requireKernel(t, true)
	daemon := func(tok string) string {
		return "setsid sh -c 'while :; do echo x >> grow; sleep 0.05; done' " + tok + " </dev/null >/dev/null 2>&1 & " +
			"while [ ! -s grow ]; do sleep 0.01; done; echo up > up; "
	}
	for _, c := range []string{"timeout", "cancel", "exit"} {
		t.Run(c, func(t *testing.T) {
			ws := tempWorkspace(t)
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
			tok := token()
			script := daemon(tok) + "sleep 1000"
			if c == "exit" {
				script = daemon(tok) + "exit 0"
			}
			req := SpawnRequest{Argv: []string{"/bin/sh", "-c", script}}
			if c == "timeout" {
				req.TimeoutMs = 3000
			}
			p, err := PlanSpawn(s, req, os.Environ())
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan *Result, 1)
			go func() { r, _ := Run(ctx, p); done <- r }()
			if c == "cancel" {
				for deadline := time.Now().Add(30 * time.Second); !exists(ws + "/up"); time.Sleep(5 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatal("the daemon never started")
					}
				}
				cancel()
			}
			r := <-done
			if r == nil || !exists(ws+"/up") || (c == "timeout") != r.TimedOut || (c == "exit") != (r.ExitCode == 0) {
				t.Fatalf("result %+v", r)
			}
			waitNoProcess(t, tok)
			size := func() int64 { fi, _ := os.Stat(ws + "/grow"); return fi.Size() }
			before := size()
			if len(processesWith(tok)) != 0 || size() != before {
				t.Fatal("the daemon is back")
			}
		})
	}
	// full_access has no PID namespace: as root, the command runs in a
	// cgroup of its own that is killed with it (killgroup.go).
	t.Run("full_access", func(t *testing.T) {
		requireRoot(t)
		ws := tempWorkspace(t)
		tok := token()
		r := sh(t, snapshotFor(t, domain.ModeFullAccess, ws, f.Kernel), daemon(tok)+"exit 0")
		if r.ExitCode != 0 || !exists(ws+"/up") {
			t.Fatalf("result %+v %s", r, r.Stderr)
		}
		waitNoProcess(t, tok)
	})
	t.Run("control_full_access_without_kill_group", func(t *testing.T) {
		killGroupsEnabled = false
		t.Cleanup(func() { killGroupsEnabled = true })
		ws := tempWorkspace(t)
		tok := token()
		r := sh(t, snapshotFor(t, domain.ModeFullAccess, ws, f.Kernel), daemon(tok)+"exit 0")
		pids := processesWith(tok)
		for _, pid := range pids {
			unix.Kill(pid, unix.SIGKILL)
		}
		if r.ExitCode != 0 || len(pids) == 0 {
			t.Fatalf("the unsandboxed daemon did not survive the group kill (exit %d): the test would prove nothing", r.ExitCode)
		}
		waitNoProcess(t, tok)
	})
}

// TestRootCommandRunsUnprivileged (issue 9.7): as root, a sandboxed command
// runs as SandboxUID: /etc/shadow and a root-only file of an app read root
// cannot be read, while the writable root stays writable (idmapped: what it
// creates belongs to the root's owner on the host) and is reachable through
// a 0700 ancestor (replaced in the view by a skeleton). Control: outside the
// sandbox, and unsandboxed, /etc/shadow is readable.
func TestRootCommandRunsUnprivileged(t *testing.T) {
	requireRoot(t)
	f := requireKernel(t, true)
	if _, err := os.ReadFile("/etc/shadow"); err != nil {
		t.Fatalf("control: root cannot read /etc/shadow outside the sandbox: %v", err)
	}
	base := visibleWorkspace(t)
	if err := os.Chmod(base, 0o700); err != nil {
		t.Fatal(err)
	}
	ws, app := base+"/ws", base+"/app"
	for _, d := range []string{ws, app} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(app+"/secret", []byte("root only"), 0o600)
	os.WriteFile(app+"/public", []byte("public"), 0o644)
	os.WriteFile(ws+"/mine", []byte("x"), 0o600)
	want := strconv.Itoa(SandboxUID)
	for _, mode := range []domain.Mode{domain.ModeAutoAcceptEdits, domain.ModeSupervised} {
		t.Run(string(mode), func(t *testing.T) {
			s := snapshotFor(t, mode, ws, f.Kernel, app)
			r := sh(t, s, "id -u; id -g; cat /etc/shadow")
			if r.ExitCode == 0 || !strings.HasPrefix(string(r.Stdout), want+"\n"+want+"\n") || strings.Contains(string(r.Stdout), "root:") {
				t.Errorf("/etc/shadow: exit %d, %s %s", r.ExitCode, r.Stdout, r.Stderr)
			}
			if r := sh(t, s, "cat "+app+"/secret"); r.ExitCode == 0 {
				t.Errorf("read a root-only file of a read root: %s", r.Stdout)
			}
			if r := sh(t, s, "cat "+app+"/public"); r.ExitCode != 0 || string(r.Stdout) != "public" {
				t.Errorf("control: read a public file of a read root: %s %s", r.Stdout, r.Stderr)
			}
			if mode == domain.ModeSupervised {
				if r := sh(t, s, "echo new > new-ro"); r.ExitCode == 0 || exists(ws+"/new-ro") {
					t.Errorf("wrote to a read-only workspace")
				}
				return
			}
			r = sh(t, s, "cat mine && echo new > new && mkdir -p d && echo y > d/f && chmod 600 new")
			var st unix.Stat_t
			if r.ExitCode != 0 || unix.Stat(ws+"/d/f", &st) != nil || st.Uid != 0 {
				t.Fatalf("writable root as %s: %s %s (owner %d)", want, r.Stdout, r.Stderr, st.Uid)
			}
		})
	}
	r := sh(t, snapshotFor(t, domain.ModeFullAccess, ws, f.Kernel), "cat /etc/shadow")
	if r.ExitCode != 0 {
		t.Fatalf("control: unsandboxed cat /etc/shadow: %s", r.Stderr)
	}
}

// TestTurnstileEnvRemoved: no TURNSTILE_* variable reaches a command, from
// the server's environment or the request, in any mode (full_access
// inherits everything else).
func TestTurnstileEnvRemoved(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	server := append(os.Environ(), "TURNSTILE_TOKEN=tok-secret", "TURNSTILE_DATA_DIR=/var/lib/turnstile", "OTHER_SETTING=kept")
	for _, mode := range []domain.Mode{domain.ModeFullAccess, domain.ModeAutoAcceptEdits, domain.ModeSupervised} {
		p, err := PlanSpawn(snapshotFor(t, mode, ws, f.Kernel), SpawnRequest{Argv: []string{"env"}, Env: map[string]string{"TURNSTILE_X": "1", "LANG": "C"}}, server)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Run(context.Background(), p)
		if err != nil || r.ExitCode != 0 {
			t.Fatalf("%s: %v %+v", mode, err, r)
		}
		out := string(r.Stdout)
		if strings.Contains(out, "TURNSTILE_") || strings.Contains(out, "tok-secret") || !strings.Contains(out, "LANG=C") {
			t.Errorf("%s: environment:\n%s", mode, out)
		}
		if mode == domain.ModeFullAccess && !strings.Contains(out, "OTHER_SETTING=kept") {
			t.Errorf("control: full_access lost an ordinary variable:\n%s", out)
		}
	}
}

// TestUnprivilegedServer: a server running as an ordinary user (created for
// the test) gets the user + mount + PID namespaces: its command runs as that
// user, writes its workspace, cannot chmod the workspace's parent (EROFS)
// sees only its own processes and cannot connect to a host socket in its
// workspace. Controls: the same chmod and connect outside the sandbox, as
// that user, work.
func TestUnprivilegedServer(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	name := "ts-test-" + strconv.Itoa(os.Getpid())
	if out, err := exec.Command("useradd", "-M", "-s", "/bin/false", name).CombinedOutput(); err != nil {
		t.Fatalf("useradd: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("userdel", name).Run() })
	out, err := exec.Command("id", "-u", name).Output()
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	base := visibleWorkspace(t)
	exe, ws := base+"/sandbox.test", base+"/home/ws"
	data, err := os.ReadFile(testExe(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(ws, 0o755)
	for _, d := range []string{base + "/home", ws} {
		os.Chown(d, uid, uid)
	}
	asUser := func(argv ...string) *exec.Cmd {
		c := exec.Command(argv[0], argv[1:]...)
		c.Dir, c.Env = ws, []string{"PATH=/usr/bin:/bin"}
		c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
		return c
	}
	ln, err := net.Listen("unix", ws+"/host.sock") // a host daemon's socket, open to all
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	os.Chmod(ws+"/host.sock", 0o777)
	connect := exe + " " + testProbeArg + " unix-connect " + ws + "/host.sock"
	script := `id -u; echo x > f && echo wrote; chmod 700 .. 2>&1; ls /proc | grep -c '^[0-9]'; ` + connect
	b, err := asUser(exe, testProbeArg, "sandboxed-sh", ws, script).CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if err == nil || len(lines) < 5 || lines[0] != strconv.Itoa(uid) || lines[1] != "wrote" ||
		!strings.Contains(lines[2], "Read-only file system") || (lines[3] != "2" && lines[3] != "3") || // sh, ls, grep
		!strings.Contains(lines[4], "refused") {
		t.Fatalf("sandboxed as user %d: %v\n%s", uid, err, b)
	}
	if b, err := asUser(strings.Fields(connect)...).CombinedOutput(); err != nil {
		t.Fatalf("control: the host socket from outside as the user: %v %s", err, b)
	}
	if b, err := asUser("chmod", "700", base+"/home").CombinedOutput(); err != nil {
		t.Fatalf("control: chmod outside the sandbox as the user: %v %s", err, b)
	}
}

package sandbox

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// faFixture is a host layout for the full_access attacks: a data directory
// (token, credentials, events.db, each holding marker) next to an
// ordinary file, the same filesystem reachable a second time (a bind of
// the base, a bind of the data directory itself and one of a directory
// inside it), a second data directory on an ext4 image behind a loop
// device, with a block node of that device outside /dev, and a host
// directory outside the base.
type faFixture struct {
	marker                       string
	base, data, ws, outside, exe string
	base2, dataAlias, subAlias   string
	loopData, loopDev, loopNode  string
	handleType                   int
	handleHex, handleMount       string
	rootOnly                     string
	helper                       string // the program the server starts as the helper
	port                         int
}

func run1(t *testing.T, argv ...string) string {
	t.Helper()
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// newFAFixture builds the layout (as root), owned by uid:gid.
func newFAFixture(t *testing.T, uid, gid int) *faFixture {
	t.Helper()
	requireRoot(t)
	for _, tool := range []string{"mkfs.ext4", "losetup", "unshare", "nsenter", "mount", "umount", "mknod"} {
		if _, err := exec.LookPath(tool); err != nil {
			missingPrerequisite(t, "%s is not installed: %v", tool, err)
		}
	}
	base := visibleWorkspace(t)
	fx := &faFixture{marker: fmt.Sprintf("GATEWAY-SECRET-%d-%d", os.Getpid(), len(t.Name())), base: base,
		data: base + "/data", ws: base + "/ws", outside: visibleWorkspace(t), base2: visibleWorkspace(t),
		dataAlias: base + "/alias", subAlias: base + "/subalias", rootOnly: base + "/root-only.txt"}
	write := func(p, s string, mode os.FileMode) {
		if err := os.WriteFile(p, []byte(s), mode); err != nil {
			t.Fatal(err)
		}
		os.Chown(p, uid, gid)
	}
	for _, d := range []string{fx.data, fx.data + "/sub", fx.ws, fx.dataAlias, fx.subAlias} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		os.Chown(d, uid, gid)
	}
	os.Chmod(fx.ws, 0o755)
	os.Chown(base, uid, gid) // the server's user writes next to its data directory
	os.Chown(fx.outside, uid, gid)
	for _, n := range []string{"token", "credentials.json", "events.db", "sub/secret"} {
		write(fx.data+"/"+n, fx.marker+" "+n+"\n", 0o600)
	}
	write(base+"/neighbour.txt", "neighbour\n", 0o644)
	write(fx.rootOnly, "root-only, not a secret\n", 0o600)
	os.Chown(fx.rootOnly, 0, 0)
	exe, err := os.ReadFile(testExe(t))
	if err != nil {
		t.Fatal(err)
	}
	fx.exe = base + "/sandbox.test"
	write(fx.exe, string(exe), 0o755)
	// The helper: as root the static lean helper (a root server starts no
	// dynamically linked helper for full_access: helperstatic.go); for the
	// unprivileged user the copy of this test binary that plays the server,
	// re-executed (its own file, writable by it but for the view).
	if uid == 0 {
		fx.helper = useStaticHelper(t)
	} else {
		fx.helper = fx.exe
	}
	// The same filesystem, mounted again: the whole base, the data
	// directory alone, and a directory inside it.
	for _, b := range [][2]string{{base, fx.base2}, {fx.data, fx.dataAlias}, {fx.data + "/sub", fx.subAlias}} {
		run1(t, "mount", "--bind", b[0], b[1])
		t.Cleanup(func() { exec.Command("umount", "-l", b[1]).Run() })
	}
	// A data directory on its own block device.
	img, mnt := base+"/disk.img", base+"/disk"
	os.Mkdir(mnt, 0o755)
	run1(t, "truncate", "-s", "8M", img)
	run1(t, "mkfs.ext4", "-q", "-F", img)
	fx.loopDev = run1(t, "losetup", "-f", "--show", img)
	t.Cleanup(func() { exec.Command("losetup", "-d", fx.loopDev).Run() })
	run1(t, "mount", fx.loopDev, mnt)
	t.Cleanup(func() { exec.Command("umount", "-l", mnt).Run() })
	fx.loopData = mnt + "/data"
	os.Mkdir(fx.loopData, 0o700)
	os.Chown(fx.loopData, uid, gid)
	write(fx.loopData+"/token", fx.marker+" loop token\n", 0o600)
	unix.Sync()
	var st unix.Stat_t
	if err := unix.Stat(fx.loopDev, &st); err != nil {
		t.Fatal(err)
	}
	fx.loopNode = base + "/blk"
	if err := unix.Mknod(fx.loopNode, unix.S_IFBLK|0o666, int(st.Rdev)); err != nil {
		t.Fatal(err)
	}
	// A file handle of the token, as an attacker could forge one.
	h, _, err := unix.NameToHandleAt(unix.AT_FDCWD, fx.data+"/token", 0)
	if err != nil {
		t.Fatal(err)
	}
	fx.handleType, fx.handleHex, fx.handleMount = int(h.Type()), hex.EncodeToString(h.Bytes()), base
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	fx.port = ln.Addr().(*net.TCPAddr).Port
	return fx
}

// secrets are the gateway secrets the snapshot names.
func (fx *faFixture) secrets() []string {
	return []string{fx.data, fx.data + "/token", fx.loopData}
}

// attackScript tries every attack (a line "safe NAME" or "leak NAME") and
// every control ("ok NAME" or "broken NAME").
func (fx *faFixture) attackScript(root bool) string {
	D, P := fx.data, fx.exe+" "+testProbeArg
	var b strings.Builder
	fmt.Fprintf(&b, `export M=%q
leak() { n=$1; shift; if ( "$@" ) 2>/dev/null | grep -q "$M"; then echo "leak $n"; else echo "safe $n"; fi; }
refused() { n=$1; shift; if ( "$@" ) >/dev/null 2>&1; then echo "leak $n"; else echo "safe $n"; fi; }
ok() { n=$1; shift; if ( "$@" ) >/dev/null 2>&1; then echo "ok $n"; else echo "broken $n"; fi; }
`, fx.marker)
	lines := []string{
		"leak cat-token cat " + D + "/token",
		"leak cat-credentials cat " + D + "/credentials.json",
		"leak cat-events cat " + D + "/events.db",
		"leak grep-data grep -r . " + D,
		"leak umount sh -c 'umount " + D + "; cat " + D + "/token'",
		"leak umount-lazy sh -c 'umount -l " + D + "; cat " + D + "/token'",
		"leak move sh -c 'mkdir -p " + fx.ws + "/mv; mount --move " + D + " " + fx.ws + "/mv; cat " + fx.ws + "/mv/token'",
		"leak nested-umount unshare -Urm sh -c 'umount -l " + D + "; umount " + D + "; cat " + D + "/token'",
		"leak nested-move unshare -Urm sh -c 'mkdir -p " + fx.ws + "/mv2; mount --move " + D + " " + fx.ws + "/mv2; cat " + fx.ws + "/mv2/token'",
		"leak nested-bind-parent unshare -Urm sh -c 'mkdir -p " + fx.ws + "/bp; mount --bind " + fx.base + " " + fx.ws + "/bp; cat " + fx.ws + "/bp/data/token'",
		"leak nested-rbind-umount unshare -Urm sh -c 'mkdir -p " + fx.ws + "/rbp; mount --rbind " + fx.base + " " + fx.ws + "/rbp; umount -l " + fx.ws + "/rbp/data; cat " + fx.ws + "/rbp/data/token'",
		"leak nested-remount unshare -Urm sh -c 'mount -o remount,bind,rw " + D + "; echo x > " + D + "/planted; cat " + D + "/token'",
		"leak second-mount cat " + fx.base2 + "/data/token",
		"leak data-alias cat " + fx.dataAlias + "/token",
		"leak sub-alias cat " + fx.subAlias + "/secret",
		"leak loop-data cat " + fx.loopData + "/token",
		"leak loop-device sh -c 'cat " + fx.loopDev + " /dev/vda'",
		"leak loop-node-outside-dev cat " + fx.loopNode,
		"leak mknod sh -c 'mknod " + fx.ws + "/b b 7 0 && cat " + fx.ws + "/b'",
		"leak nested-mount-device unshare -Urm sh -c 'mkdir -p " + fx.ws + "/m; mount " + fx.loopNode + " " + fx.ws + "/m; cat " + fx.ws + "/m/data/token'",
		"leak proc1-root cat /proc/1/root" + D + "/token",
		"leak proc-server-root cat /proc/$FA_SERVER_PID/root" + D + "/token",
		"leak proc-server-fd sh -c 'cat /proc/$FA_SERVER_PID/fd/*'",
		"leak nsenter nsenter -t 1 -m cat " + D + "/token",
		"leak nsenter-server nsenter -t $FA_SERVER_PID -m cat " + D + "/token",
		"leak setns-server-ns nsenter --mount=/proc/$FA_SERVER_PID/ns/mnt cat " + D + "/token",
		"leak nested-nsenter unshare -Urm nsenter -t 1 -m -U --preserve-credentials cat " + D + "/token",
		"refused write-helper sh -c ': >> " + fx.helper + "'",
		"refused touch-helper touch " + fx.helper,
		"refused nested-write-helper unshare -Urm sh -c 'umount " + fx.helper + "; : >> " + fx.helper + "'",
		fmt.Sprintf("leak open-by-handle %s fa-handle %s %d %s", P, fx.handleMount, fx.handleType, fx.handleHex),
		fmt.Sprintf("leak nested-open-by-handle unshare -Urm %s fa-handle %s %d %s", P, fx.handleMount, fx.handleType, fx.handleHex),
		fmt.Sprintf("leak nested-bind-open-by-handle unshare -Urm sh -c 'mkdir -p %s/hb; mount --bind %s %s/hb; %s fa-handle %s/hb %d %s'", fx.ws, fx.ws, fx.ws, P, fx.ws, fx.handleType, fx.handleHex),
		"leak core-pattern sh -c 'echo core > /proc/sys/kernel/core_pattern && echo $M'",
		"leak sysfs-write sh -c 'echo change > /sys/kernel/uevent_helper 2>/dev/null || touch /sys/fs/cgroup/x && echo $M'",
		"refused env-turnstile sh -c 'env | grep -q ^TURNSTILE_'",
		"ok env-inherited sh -c 'env | grep -q ^FA_SERVER_PID='",
		"refused kill-server kill -0 $FA_SERVER_PID",
		"refused see-server-proc test -e /proc/$FA_SERVER_PID/status",
		"refused ptrace-server " + P + " fa-ptrace $FA_SERVER_PID",
		// Controls: the same kinds of action, where they are allowed.
		"ok read-neighbour grep -q neighbour " + fx.base + "/neighbour.txt",
		"ok write-neighbour sh -c 'echo w > " + fx.base + "/neighbour-w.txt'",
		"ok read-second-mount grep -q neighbour " + fx.base2 + "/neighbour.txt",
		"ok write-workspace sh -c 'echo w > " + fx.ws + "/w.txt'",
		"ok write-outside sh -c 'echo w > " + fx.outside + "/w.txt'",
		fmt.Sprintf("ok network %s tcp-connect %d", P, fx.port),
		"ok nested-mount-works unshare -Urm sh -c 'mkdir -p " + fx.ws + "/t; mount -t tmpfs t " + fx.ws + "/t && touch " + fx.ws + "/t/x'",
		"ok nested-bind-works unshare -Urm sh -c 'mkdir -p " + fx.ws + "/b2; mount --bind " + fx.ws + " " + fx.ws + "/b2 && test -f " + fx.ws + "/b2/w.txt'",
		"ok ptrace-own sh -c 'sleep 30 & p=$!; " + P + " fa-ptrace $p; r=$?; kill $p; exit $r'",
		"ok kill-own sh -c 'sleep 30 & kill $!'",
		"ok pty " + P + " fa-pty",
		"ok dev-null sh -c 'echo x > /dev/null && head -c 4 /dev/urandom | wc -c | grep -q 4'",
	}
	if root {
		lines = append(lines, "ok root-only-file grep -q root-only "+fx.rootOnly)
	}
	b.WriteString(strings.Join(lines, "\n"))
	return b.String()
}

// checkAttacks fails t for every leak, broken control or missing line.
func (fx *faFixture) checkAttacks(t *testing.T, script, out string) {
	t.Helper()
	got := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if verdict, name, ok := strings.Cut(l, " "); ok {
			got[name] = verdict
		}
	}
	for _, l := range strings.Split(script, "\n") {
		f := strings.Fields(l)
		if len(f) < 2 || (f[0] != "leak" && f[0] != "refused" && f[0] != "ok") {
			continue
		}
		want := "safe"
		if f[0] == "ok" {
			want = "ok"
		}
		if got[f[1]] != want {
			t.Errorf("%s: %q, want %q", f[1], got[f[1]], want)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}
	for _, p := range []string{fx.base + "/neighbour-w.txt", fx.ws + "/w.txt", fx.outside + "/w.txt"} {
		if !exists(p) {
			t.Errorf("control: %s was not written on the host", p)
		}
	}
	if b, err := os.ReadFile(fx.data + "/token"); err != nil || !strings.Contains(string(b), fx.marker) || exists(fx.data+"/planted") {
		t.Errorf("the data directory changed: %v %q planted=%v", err, b, exists(fx.data+"/planted"))
	}
}

// TestFullAccessHidesGatewaySecretsAsRoot: a full_access command of a root
// server, root in its namespace, tries every way to the data directory and
// the token — cat, umount, move, a bind of the parent, nested namespaces,
// a second mount of the filesystem, a loop device and a block node outside
// /dev, /proc/1/root and the server's /proc entries, nsenter,
// open_by_handle_at, core_pattern and sysfs — and finds none; it still
// reads and writes next to them, in the workspace and elsewhere on the
// host, keeps the network, mounts in a namespace of its own, traces and
// signals its own processes and reads a root-only file that is no secret.
// The controls outside the sandbox show each attack would have worked.
func TestFullAccessHidesGatewaySecretsAsRoot(t *testing.T) {
	f := requireKernel(t, true)
	fx := newFAFixture(t, 0, 0)
	for _, c := range [][]string{{"cat", fx.data + "/token"}, {"cat", fx.base2 + "/data/token"}, {"cat", fx.loopNode}} {
		if out, err := exec.Command(c[0], c[1:]...).Output(); err != nil || !bytes.Contains(out, []byte(fx.marker)) {
			t.Fatalf("control outside the sandbox: %v: marker not read (%v)", c, err)
		}
	}
	if out, err := exec.Command(fx.exe, testProbeArg, "fa-handle", fx.handleMount, strconv.Itoa(fx.handleType), fx.handleHex).Output(); err != nil || !bytes.Contains(out, []byte(fx.marker)) {
		t.Fatalf("control: open_by_handle_at outside the sandbox: %v %s", err, out)
	}
	script := fx.attackScript(true)
	out, code, err := runFullAccessScript(f.Kernel, fx.secrets(), fx.ws, script)
	if err != nil || code != 0 {
		t.Fatalf("run: exit %d, %v\n%s", code, err, out)
	}
	fx.checkAttacks(t, script, out)
	// The command inherits no descriptor of the server (the held secrets,
	// the helper's pipes): ls sees its output pipes and its own directory.
	if out, code, err := runFullAccessScript(f.Kernel, fx.secrets(), fx.ws, "exec ls /proc/self/fd"); err != nil || code != 0 || out != "0\n1\n2\n3\n" {
		t.Errorf("descriptors of a full_access command: exit %d %v\n%s", code, err, out)
	}
}

// TestFullAccessHidesGatewaySecretsUnprivileged: the same attacks and
// controls from a server running as an ordinary user (created for the
// test), whose own files the secrets are: outside the sandbox that user
// reads the token (the control); inside, nothing.
func TestFullAccessHidesGatewaySecretsUnprivileged(t *testing.T) {
	requireKernel(t, true)
	uid, gid := unprivilegedUser(t)
	fx := newFAFixture(t, uid, gid)
	as := func(argv ...string) *exec.Cmd {
		c := exec.Command(argv[0], argv[1:]...)
		c.Dir, c.Env = fx.ws, []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "CI="}
		c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
		return c
	}
	if out, err := as("cat", fx.data+"/token", fx.dataAlias+"/token").Output(); err != nil || !bytes.Contains(out, []byte(fx.marker)) {
		t.Fatalf("control: the user reads its token outside the sandbox: %v %s", err, out)
	}
	script := fx.attackScript(false)
	server := as(fx.exe, testProbeArg, "fa-sh", strings.Join(fx.secrets(), ","), fx.ws, script)
	var out bytes.Buffer
	server.Stdout, server.Stderr = &out, &out
	if err := server.Run(); err != nil {
		t.Fatalf("run as user %d: %v\n%s", uid, err, out.String())
	}
	fx.checkAttacks(t, script, out.String())
}

// TestFullAccessRefusedWithoutUserNamespaces: with no user namespaces a
// full_access command with gateway secrets to hide is refused (nothing
// runs) unless the operator accepted running it unisolated; the snapshot
// then names the degradation. Control: with nothing to hide it runs.
func TestFullAccessRefusedWithoutUserNamespaces(t *testing.T) {
	ws := tempWorkspace(t)
	data := ws + "/data"
	os.Mkdir(data, 0o700)
	k := domain.KernelFeatures{LandlockABI: 7, Seccomp: true}
	marker := filepath.Join(ws, "ran")
	_, _, err := runFullAccessScript(k, []string{data}, ws, "touch "+marker)
	if r, ok := err.(*Refusal); !ok || r.Code != CodeSandboxUnavailable || !strings.Contains(r.Message, "--full-access-unisolated") || exists(marker) {
		t.Fatalf("no user namespaces: %v, ran=%v", err, exists(marker))
	}
	k.FullAccessUnisolated = true
	if out, code, err := runFullAccessScript(k, []string{data}, ws, "touch "+marker); err != nil || code != 0 || !exists(marker) {
		t.Fatalf("opted out: exit %d %v %s", code, err, out)
	}
	s := snapshotFor(t, domain.ModeFullAccess, ws, k)
	if s.Enforcement.Status != domain.EnforcementPartiallyActive || len(s.Enforcement.Degradations) != 1 || s.Enforcement.Degradations[0].Dimension != "gateway_secrets" {
		t.Fatalf("opted out: enforcement %+v", s.Enforcement)
	}
	k.FullAccessUnisolated = false
	os.Remove(marker)
	if out, code, err := runFullAccessScript(k, nil, ws, "touch "+marker); err != nil || code != 0 || !exists(marker) {
		t.Fatalf("control: nothing to hide: exit %d %v %s", code, err, out)
	}
	if s := snapshotFor(t, domain.ModeFullAccess, ws, k); s.Enforcement.Status != domain.EnforcementActive {
		t.Fatalf("without the opt-out the snapshot claims no degradation: %+v", s.Enforcement)
	}
}

// TestFullAccessPinsAndFollowsSecrets: a full_access command cannot move
// the data directory, its parent or the token aside (each directory above
// a secret is a mount point in its view: EBUSY), nor plant a directory at
// their path; control: it renames a sibling directory. When the data
// directory is moved anyway, by a process outside the sandbox, the next
// command finds it where it now is (the descriptor the server holds), and a
// directory planted at the old path is masked too; control: the host reads
// the token at its new path, so the move happened.
func TestFullAccessPinsAndFollowsSecrets(t *testing.T) {
	f := requireKernel(t, true)
	requireRoot(t)
	useStaticHelper(t)
	base := visibleWorkspace(t)
	marker := fmt.Sprintf("RENAMED-SECRET-%d", os.Getpid())
	data := base + "/parent/data"
	os.MkdirAll(data, 0o700)
	os.MkdirAll(base+"/ws", 0o755)
	os.MkdirAll(base+"/parent/sibling", 0o755)
	os.WriteFile(data+"/token", []byte(marker+"\n"), 0o600)
	secrets := []string{data, data + "/token"}
	if out, code, err := runFullAccessScript(f.Kernel, secrets, base+"/ws", "cat "+data+"/token"); err != nil || code == 0 || strings.Contains(out, marker) {
		t.Fatalf("first command read the token: exit %d %v %s", code, err, out)
	}
	for _, script := range []string{
		"mv " + base + "/parent " + base + "/moved",
		"mv " + data + " " + base + "/parent/data.old",
		"mv " + data + "/token " + base + "/token.old",
		"rm -rf " + data,
		"unshare -Urm mv " + base + "/parent " + base + "/moved",
	} {
		if out, code, err := runFullAccessScript(f.Kernel, secrets, base+"/ws", script); err != nil || code == 0 {
			t.Errorf("%s: exit %d %v %s", script, code, err, out)
		}
	}
	if b, err := os.ReadFile(data + "/token"); err != nil || !strings.Contains(string(b), marker) {
		t.Fatalf("the token moved: %v %q", err, b)
	}
	script := "mv " + base + "/parent/sibling " + base + "/parent/sibling2 && test -d " + base + "/parent/sibling2"
	if out, code, err := runFullAccessScript(f.Kernel, secrets, base+"/ws", script); err != nil || code != 0 {
		t.Fatalf("control: renaming a sibling: exit %d %v %s", code, err, out)
	}
	// Moved by a process outside the sandbox, and a directory planted.
	if err := os.Rename(base+"/parent", base+"/moved"); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(data, 0o700)
	os.WriteFile(data+"/token", []byte("planted\n"), 0o600)
	if b, err := os.ReadFile(base + "/moved/data/token"); err != nil || !strings.Contains(string(b), marker) {
		t.Fatalf("control: the token did not move: %v %q", err, b)
	}
	out, _, err := runFullAccessScript(f.Kernel, secrets, base+"/ws", "cat "+base+"/moved/data/token "+data+"/token; ls "+base+"/moved/data")
	if err != nil || strings.Contains(out, marker) || strings.Contains(out, "planted") {
		t.Fatalf("after the move: %v\n%s", err, out)
	}
	if out, code, err := runFullAccessScript(f.Kernel, secrets, base+"/ws", "echo ok > "+base+"/moved/next.txt"); err != nil || code != 0 || !exists(base+"/moved/next.txt") {
		t.Fatalf("control: writing next to the moved data directory: exit %d %v %s", code, err, out)
	}
}

// TestReadMountinfo: mount points and roots with escaped characters are
// decoded; a malformed line is an error, not a skipped mount.
func TestReadMountinfo(t *testing.T) {
	p := filepath.Join(t.TempDir(), "mountinfo")
	os.WriteFile(p, []byte("27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"+
		"42 27 254:0 /var/a\\040b /mnt/x\\134y rw shared:1 - ext4 /dev/vda rw\n"), 0o644)
	ms, err := readMountinfo(p)
	if err != nil || len(ms) != 2 || ms[1].root != "/var/a b" || ms[1].point != `/mnt/x\y` || ms[1].fstype != "ext4" || ms[1].dev != "254:0" || ms[1].id != 42 {
		t.Fatalf("%v %+v", err, ms)
	}
	targets := aliasTargets(secretLoc{path: "/var/a b/data", dev: 1, ino: 2}, ms)
	if len(targets) != 2 || targets[1].path != `/mnt/x\y/data` {
		t.Fatalf("aliases of /var/a b/data: %+v", targets)
	}
	os.WriteFile(p, []byte("27 1 254:0 / /\n"), 0o644)
	if _, err := readMountinfo(p); err == nil {
		t.Fatal("a malformed line was accepted")
	}
}

// TestDoctorFullAccess: doctor says what becomes of a server's full_access
// commands: isolated with user namespaces, refused without them, and, with
// the operator's opt-out, unisolated with the snapshot's named degradation;
// as root, refused when the helper would be dynamically linked (the control
// is the static helper of the first case).
func TestDoctorFullAccess(t *testing.T) {
	useStaticHelper(t)
	for _, tc := range []struct {
		k    domain.KernelFeatures
		want []string
	}{
		{domain.KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true}, []string{"full_access        active", "own user, mount and PID namespaces with its data directory and token masked"}},
		{domain.KernelFeatures{LandlockABI: 7, Seccomp: true}, []string{"full_access        active", "a server's commands are refused (sandbox_unavailable)", "--full-access-unisolated"}},
		{domain.KernelFeatures{LandlockABI: 7, Seccomp: true, FullAccessUnisolated: true}, []string{"full_access        partially_active", "- gateway_secrets: no user namespaces", "can read the data directory and token"}},
	} {
		var b bytes.Buffer
		Doctor(&b, Features{Kernel: tc.k})
		out := b.String()
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%+v: doctor lacks %q:\n%s", tc.k, w, out)
			}
		}
		if strings.Contains(out, "statically linked helper") {
			t.Errorf("%+v: doctor refuses full_access through the static helper:\n%s", tc.k, out)
		}
	}
	if os.Geteuid() != 0 {
		return
	}
	if h := useSelfHelper(t); !h.dynamic {
		t.Skipf("this test binary is statically linked (%s)", h.linkage)
	}
	var b bytes.Buffer
	Doctor(&b, Features{Kernel: domain.KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true}})
	for _, w := range []string{"full_access        active", "a server's commands are refused (sandbox_failed, 126)", "dynamically linked", "./cmd/turnstile-sandbox"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("dynamic helper as root: doctor lacks %q:\n%s", w, b.String())
		}
	}
	if strings.Contains(b.String(), "with its data directory and token masked") {
		t.Errorf("dynamic helper as root: doctor claims the masks:\n%s", b.String())
	}
}

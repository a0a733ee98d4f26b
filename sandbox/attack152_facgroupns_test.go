package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestAttack152_FullAccessNestedCgroupMount (hundred-and-fifty-second
// review): fullaccess.go makes the kernel's control filesystems read-only
// for a full_access command of a root server (step 3: "a process whose
// kernel uid is 0 passes their permission checks from any user namespace,
// and core_pattern, uevent_helper or cgroup.kill would run code as the real
// root or kill the server"), and the README's secrets row says "`/sys`,
// cgroups and `/proc/sys` read-only". The read-only flag is on the view's
// mounts, not on the hierarchies: the command makes a user namespace and a
// cgroup namespace of its own (unshare -UrmC, which needs no capability)
// and mounts cgroup2 (and any cgroup v1 hierarchy) afresh. cgroup and
// cgroup2 are FS_USERNS_MOUNT; the new mount's root is the command's
// cgroup, which is the server's own (a namespaced full_access command gets
// no kill group: killgroup.go), and the files there belong to kernel uid 0,
// which the full_access id map keeps, so they are writable. The command
// then writes cgroup.kill of any cgroup below the server's (the server's
// own at the namespace's root, without nsdelegate), its memory limits
// (memory.max, v1 memory.limit_in_bytes: an OOM kill of the gateway) or
// cgroup.freeze.
//
// The test makes a victim cgroup below its own (the server's) with a
// sleeping process in it: the command kills it through a fresh cgroup2
// mount. It also rewrites (with the value it holds) the v1 memory soft
// limit of the server's memory cgroup where the host has that hierarchy.
// Controls: the direct write through the view's cgroupfs is refused (the
// stated guarantee), a nested tmpfs mount works in the same command, and
// after the attempt the host's own write to cgroup.kill does kill the
// victim (so a survivor is not an artefact of the set-up).
func TestAttack152_FullAccessNestedCgroupMount(t *testing.T) {
	f := requireKernel(t, true)
	requireRoot(t)
	useStaticHelper(t) // the lean helper a root server starts (helperstatic.go)
	if _, err := exec.LookPath("unshare"); err != nil {
		missingPrerequisite(t, "unshare is not installed: %v", err)
	}
	mnt, err := cgroup2Mount()
	if err != nil {
		missingPrerequisite(t, "no cgroup2 mount: %v", err)
	}
	own, err := ownCgroup()
	if err != nil {
		missingPrerequisite(t, "own cgroup: %v", err)
	}
	name := fmt.Sprintf("turnstile-attack152-victim-%d", os.Getpid())
	victim := filepath.Join(mnt, own, name)
	if err := os.Mkdir(victim, 0o755); err != nil {
		missingPrerequisite(t, "cannot make a cgroup below the server's: %v", err)
	}
	t.Cleanup(func() { os.Remove(victim) })
	if _, err := os.Stat(victim + "/cgroup.kill"); err != nil {
		missingPrerequisite(t, "no cgroup.kill (Linux 5.14): %v", err)
	}
	sleep := exec.Command("sleep", "300")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	died := make(chan struct{})
	go func() { sleep.Wait(); close(died) }()
	t.Cleanup(func() { sleep.Process.Kill(); <-died })
	if err := os.WriteFile(victim+"/cgroup.procs", []byte(strconv.Itoa(sleep.Process.Pid)), 0o644); err != nil {
		t.Fatalf("moving the victim into %s: %v", victim, err)
	}

	base := visibleWorkspace(t)
	data, ws := base+"/data", base+"/ws"
	for _, d := range []string{data, ws} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(ws, 0o755)
	os.WriteFile(data+"/token", []byte("GATEWAY-SECRET-152\n"), 0o600)

	// The v1 memory hierarchy, where the host has one: the command's
	// (the server's) memory cgroup.
	v1mem, v1dir := "", ""
	if b, err := os.ReadFile("/proc/self/cgroup"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if p := strings.SplitN(l, ":", 3); len(p) == 3 && p[1] == "memory" {
				v1mem = p[2]
			}
		}
	}
	if v1mem != "" {
		if b, err := os.ReadFile("/proc/self/mountinfo"); err == nil {
			for _, l := range strings.Split(string(b), "\n") {
				pre, post, ok := strings.Cut(l, " - ")
				f, g := strings.Fields(pre), strings.Fields(post)
				if ok && len(f) >= 5 && len(g) >= 3 && g[0] == "cgroup" && f[3] == "/" && strings.Contains(","+g[2]+",", ",memory,") {
					v1dir = filepath.Join(f[4], v1mem)
				}
			}
		}
	}
	// A child the command makes at its cgroup namespace's root: below the
	// server's own memory cgroup, as the host sees it.
	v1child := name + "-v1"
	if v1dir != "" {
		t.Cleanup(func() { os.Remove(filepath.Join(v1dir, v1child)) })
	}
	script := strings.Join([]string{
		// The stated guarantee: the view's cgroupfs is read-only.
		fmt.Sprintf("if echo 1 > %s/cgroup.kill 2>/dev/null; then echo DIRECT-KILL-WRITTEN; else echo direct-refused; fi", victim),
		// Control: the command mounts in a namespace of its own.
		fmt.Sprintf("unshare -Urm sh -c 'mkdir -p %[1]s/t && mount -t tmpfs t %[1]s/t && touch %[1]s/t/x' && echo nested-tmpfs-ok", ws),
		// The attack: a fresh cgroup2 mount in a cgroup namespace of its own.
		fmt.Sprintf("unshare -UrmC sh -c 'mkdir -p %[1]s/cg && mount -t cgroup2 none %[1]s/cg && echo 1 > %[1]s/cg/%[2]s/cgroup.kill' 2>&1 && echo NESTED-KILL-WRITTEN", ws, name),
	}, "\n")
	if v1dir != "" {
		script += "\n" + fmt.Sprintf("unshare -UrmC sh -c 'mkdir -p %[1]s/m && mount -t cgroup -o memory none %[1]s/m && mkdir %[1]s/m/%[2]s && v=$(cat %[1]s/m/memory.soft_limit_in_bytes) && echo $v > %[1]s/m/memory.soft_limit_in_bytes' 2>&1 && echo V1-MEMORY-WRITTEN", ws, v1child)
	}
	out, code, err := runFullAccessScript(f.Kernel, []string{data, data + "/token"}, ws, script)
	if err != nil {
		t.Fatalf("run: exit %d %v\n%s", code, err, out)
	}
	t.Logf("command output:\n%s", out)
	if !strings.Contains(out, "nested-tmpfs-ok") {
		t.Fatalf("control: a nested tmpfs mount failed in the full_access command:\n%s", out)
	}
	if strings.Contains(out, "DIRECT-KILL-WRITTEN") {
		t.Errorf("the view's cgroupfs took a write (the stated guarantee is broken outright)")
	}
	killed := false
	select {
	case <-died:
		killed = true
	case <-time.After(2 * time.Second):
	}
	if killed || strings.Contains(out, "NESTED-KILL-WRITTEN") {
		t.Errorf("a full_access command wrote cgroup.kill of a cgroup below the server's through a cgroup2 mount of its own (unshare -UrmC): victim killed=%v", killed)
	}
	if v1dir != "" && exists(filepath.Join(v1dir, v1child)) {
		t.Errorf("a full_access command made a cgroup below the server's v1 memory cgroup (%s) and rewrote its memory.soft_limit_in_bytes (wrote=%v) through a cgroup mount of its own: memory.limit_in_bytes there is an OOM kill of the gateway", v1dir, strings.Contains(out, "V1-MEMORY-WRITTEN"))
	}
	if !killed {
		// Control: the victim dies when cgroup.kill is written.
		if err := os.WriteFile(victim+"/cgroup.kill", []byte("1"), 0o644); err != nil {
			t.Fatalf("control: the host's cgroup.kill write: %v", err)
		}
		select {
		case <-died:
		case <-time.After(5 * time.Second):
			t.Fatalf("control: the victim survived the host's own cgroup.kill")
		}
	}
}

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// attack152CgroupArg makes the test binary the probe of
// TestAttack152_UnrestrictedTreeNestedCgroupMount: "outer DIR VICTIM"
// starts itself again twice in a new user namespace (no id map needed: the
// kernel uid stays 0), keeping that namespace's CAP_SYS_ADMIN (ambient):
// "inner-tmpfs" (a new mount namespace) mounts a tmpfs in DIR, the control;
// "inner-cgroup" (new mount and cgroup namespaces) mounts cgroup2 in DIR
// and writes VICTIM/cgroup.kill.
const attack152CgroupArg = "attack152-cgroup-probe"

func init() {
	if len(os.Args) < 5 || os.Args[1] != attack152CgroupArg {
		return
	}
	stage, dir, victim := os.Args[2], os.Args[3], os.Args[4]
	switch stage {
	case "outer":
		// The control (a tmpfs) and the attack (cgroup2) each in
		// namespaces of their own: a fix that refuses the cgroup
		// namespace leaves the control working.
		for _, c := range []struct {
			stage string
			flags uintptr
		}{{"inner-tmpfs", unix.CLONE_NEWUSER | unix.CLONE_NEWNS}, {"inner-cgroup", unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP}} {
			cmd := exec.Command("/proc/self/exe", attack152CgroupArg, c.stage, dir, victim)
			cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
			// CAP_SYS_ADMIN of the new user namespace, kept across the
			// exec (an unmapped uid loses its capabilities on exec
			// otherwise).
			cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: c.flags, AmbientCaps: []uintptr{unix.CAP_SYS_ADMIN}}
			if err := cmd.Run(); err != nil {
				fmt.Println(c.stage+":", err)
			}
		}
		os.Exit(0)
	case "inner-tmpfs":
		t := filepath.Join(dir, "t")
		os.MkdirAll(t, 0o755)
		if err := unix.Mount("t", t, "tmpfs", 0, ""); err != nil {
			fmt.Println("tmpfs:", err)
		} else {
			fmt.Println("nested-tmpfs-ok")
		}
		os.Exit(0)
	case "inner-cgroup":
		cg := filepath.Join(dir, "cg")
		os.MkdirAll(cg, 0o755)
		if err := unix.Mount("none", cg, "cgroup2", 0, ""); err != nil {
			fmt.Println("cgroup2:", err)
			os.Exit(0)
		}
		if err := os.WriteFile(filepath.Join(cg, victim, "cgroup.kill"), []byte("1"), 0o644); err != nil {
			fmt.Println("cgroup.kill:", err)
			os.Exit(0)
		}
		fmt.Println("NESTED-KILL-WRITTEN")
		os.Exit(0)
	}
	os.Exit(2)
}

// TestAttack152_UnrestrictedTreeNestedCgroupMount (hundred-and-fifty-second
// review): the README's processes row gives a command that keeps the
// server's uid 0 (a writable "/", or a filesystem left unrestricted while
// the network is confined: a profile's ":root" = "write" without a network
// table) "what a full_access command's gets, ... the kernel's controls and
// /proc/sys read-only". That command has no capabilities but kernel uid 0,
// in the host's user namespace. It makes a user namespace without any id
// map (no capability needed; the kernel uid stays 0, so the root-owned
// cgroup files still pass its permission checks as their owner), a mount
// and a cgroup namespace there, mounts cgroup2 afresh (FS_USERNS_MOUNT;
// the read-only flag was on the view's mount, not the hierarchy) and
// writes cgroup.kill of a cgroup below the server's: the server's own one
// when it is the namespace's root (no nsdelegate), or memory limits, or
// cgroup.freeze.
//
// The victim is a sleeping process in a cgroup the test makes below its
// own. Controls: the direct write through the view's cgroupfs is refused
// (the stated guarantee), the probe's nested tmpfs mount works, and the
// host's own cgroup.kill then kills the victim.
func TestAttack152_UnrestrictedTreeNestedCgroupMount(t *testing.T) {
	f := requireKernel(t, true)
	requireRoot(t)
	useStaticHelper(t) // the lean helper a root server starts (helperstatic.go)
	mnt, err := cgroup2Mount()
	if err != nil {
		missingPrerequisite(t, "no cgroup2 mount: %v", err)
	}
	own, err := ownCgroup()
	if err != nil {
		missingPrerequisite(t, "own cgroup: %v", err)
	}
	name := fmt.Sprintf("turnstile-attack152-open-victim-%d", os.Getpid())
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

	ws, data := visibleWorkspace(t), visibleWorkspace(t)
	os.WriteFile(data+"/token", []byte("GATEWAY-SECRET-152\n"), 0o600)
	secret := domain.FilesystemEntry{Kind: domain.PathSensitive, Path: data, ResolvedPath: data, Access: domain.AccessDeny, Provenance: domain.ProvenanceSystem}
	open := snapshotFor(t, domain.ModeFullAccess, ws, f.Kernel)
	open.Sandbox.Filesystem.Entries = append(open.Sandbox.Filesystem.Entries, secret)
	open.Network = domain.NetworkPolicy{Mode: domain.NetworkDisabled} // as TestAttack113_WholeTreeTasksUnbounded
	script := fmt.Sprintf("id -u; if echo 1 > %s/cgroup.kill 2>/dev/null; then echo DIRECT-KILL-WRITTEN; else echo direct-refused; fi; %s %s outer %s %s",
		victim, testExe(t), attack152CgroupArg, ws, name)
	r := sh(t, open, script)
	out := string(r.Stdout) + string(r.Stderr)
	t.Logf("exit %d, output:\n%s", r.ExitCode, out)
	if !strings.Contains(out, "nested-tmpfs-ok") {
		t.Fatalf("control: the probe's nested namespaces or tmpfs mount failed:\n%s", out)
	}
	if strings.Contains(out, "DIRECT-KILL-WRITTEN") {
		t.Errorf("the view's cgroupfs took a write")
	}
	killed := false
	select {
	case <-died:
		killed = true
	case <-time.After(2 * time.Second):
	}
	if killed || strings.Contains(out, "NESTED-KILL-WRITTEN") {
		t.Errorf("a command of an unrestricted filesystem (kernel uid 0, no capabilities) wrote cgroup.kill of a cgroup below the server's through a cgroup2 mount in a user and cgroup namespace of its own: victim killed=%v", killed)
	}
	if !killed {
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

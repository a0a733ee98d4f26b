package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// nsProbe runs the probe programs of the namespace tests (see testProbe).
func nsProbe(kind string, args []string) error {
	arg := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	switch kind {
	case "chmod": // PATH: chmod 0777 (a set-ID mode is refused by seccomp before the view is reached)
		return unix.Chmod(arg(0), 0o777)
	case "chown": // PATH: chown to the caller's own uid and gid
		return unix.Chown(arg(0), os.Getuid(), os.Getgid())
	case "utime": // PATH: set the times to the epoch
		return unix.UtimesNano(arg(0), []unix.Timespec{{}, {}})
	case "setxattr": // PATH
		return unix.Setxattr(arg(0), "user.turnstile", []byte("x"), 0)
	case "add-key": // DESC: add a user key to the session keyring
		_, err := unix.AddKey("user", arg(0), []byte("probe"), unix.KEY_SPEC_SESSION_KEYRING)
		return err
	case "read-key": // ID: read a key's payload and print it
		id, _ := strconv.Atoi(arg(0))
		buf := make([]byte, 256)
		n, err := unix.KeyctlBuffer(unix.KEYCTL_READ, id, buf, 0)
		if err != nil {
			return err
		}
		fmt.Printf("payload %s\n", buf[:min(n, len(buf))])
		return nil
	case "shm-read": // ID: attach a System V shared memory segment and print it
		id, _ := strconv.Atoi(arg(0))
		b, err := unix.SysvShmAttach(id, 0, unix.SHM_RDONLY)
		if err != nil {
			return err
		}
		defer unix.SysvShmDetach(b)
		fmt.Printf("shm %s\n", strings.TrimRight(string(b), "\x00"))
		return nil
	case "procs": // print every visible pid and its argv, one per line
		ents, err := os.ReadDir("/proc")
		if err != nil {
			return err
		}
		self, err := os.Readlink("/proc/self")
		if err != nil {
			return fmt.Errorf("/proc/self: %w", err)
		}
		if _, err := os.ReadFile("/proc/self/status"); err != nil {
			return fmt.Errorf("/proc/self/status: %w", err)
		}
		fmt.Printf("self %s\n", self)
		for _, e := range ents {
			if _, err := strconv.Atoi(e.Name()); err != nil {
				continue
			}
			b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			fmt.Printf("pid %s %s\n", e.Name(), strings.ReplaceAll(string(b), "\x00", " "))
		}
		return nil
	case "overlay-mount": // LOWER fd|path (overlayMountProbe)
		return overlayMountProbe(arg(0), arg(1))
	case "overlay-sh": // WS CACHE SCRIPT: run SCRIPT ($0 = CACHE) with CACHE an overlay (overlayProbe)
		return overlayProbe(arg(0), arg(1), arg(2))
	case "sandboxed-sh": // WS SCRIPT: probe, then run SCRIPT under auto_accept_edits over WS; print its output
		f := Probe()
		if !f.Kernel.UserNamespaces {
			return fmt.Errorf("no namespaces: %s", f.UserNamespacesDetail)
		}
		s, err := domain.ResolveSnapshot(domain.SnapshotInputs{
			Profile:       domain.ResolveProfile(&domain.ProfileRequest{Mode: domain.ModeAutoAcceptEdits}, domain.SourceComposer),
			WorkspaceRoot: arg(0), Kernel: f.Kernel, AppReadRoots: []string{filepath.Dir(os.Args[0])},
		})
		if err != nil {
			return err
		}
		return runPrinting(&s, "/bin/sh", "-c", arg(1))
	case "unix-own": // DIR: bind, listen, connect to and accept an own socket
		p := filepath.Join(arg(0), "own.sock")
		ln, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			return err
		}
		defer unix.Close(ln)
		if err := unix.Bind(ln, &unix.SockaddrUnix{Name: p}); err != nil {
			return fmt.Errorf("bind: %w", err)
		}
		defer os.Remove(p)
		if err := unix.Listen(ln, 1); err != nil {
			return err
		}
		c, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			return err
		}
		defer unix.Close(c)
		if err := unix.Connect(c, &unix.SockaddrUnix{Name: p}); err != nil {
			return fmt.Errorf("connect: %w", err)
		}
		a, _, err := unix.Accept(ln)
		if err != nil {
			return err
		}
		return unix.Close(a)
	}
	return fullAccessProbe(kind, args)
}

// runPrinting runs argv under s and prints its output; a non-zero exit
// is an error.
func runPrinting(s *domain.TurnExecutionSecuritySnapshot, argv ...string) error {
	p, err := PlanSpawn(s, SpawnRequest{Argv: argv}, os.Environ())
	if err != nil {
		return err
	}
	r, err := Run(context.Background(), p)
	if err != nil {
		return err
	}
	os.Stdout.Write(r.Stdout)
	os.Stdout.Write(r.Stderr)
	if r.ExitCode != 0 {
		return fmt.Errorf("exit %d", r.ExitCode)
	}
	return nil
}

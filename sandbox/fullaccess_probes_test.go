package sandbox

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// fullAccessProbe runs the full_access test probes (see testProbe).
func fullAccessProbe(kind string, args []string) error {
	arg := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	switch kind {
	case "fa-sh": // SECRETS(,-separated) WS SCRIPT: probe, then run SCRIPT under full_access over WS with SECRETS as the gateway's secrets
		f := Probe()
		out, code, err := runFullAccessScript(f.Kernel, strings.Split(arg(0), ","), arg(1), arg(2))
		os.Stdout.WriteString(out)
		if err != nil {
			return err
		}
		if code != 0 {
			return fmt.Errorf("exit %d", code)
		}
		return nil
	case "fa-handle": // MOUNTDIR TYPE HEX: open_by_handle_at through MOUNTDIR; print the file
		mfd, err := unix.Open(arg(0), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(mfd)
		typ, _ := strconv.Atoi(arg(1))
		b, err := hex.DecodeString(arg(2))
		if err != nil {
			return err
		}
		fd, err := unix.OpenByHandleAt(mfd, unix.NewFileHandle(int32(typ), b), unix.O_RDONLY)
		if err != nil {
			return fmt.Errorf("open_by_handle_at: %w", err)
		}
		f := os.NewFile(uintptr(fd), "handle")
		defer f.Close()
		_, err = io.Copy(os.Stdout, f)
		return err
	case "fa-ptrace": // PID: attach and detach
		runtime.LockOSThread()
		pid, _ := strconv.Atoi(arg(0))
		if err := unix.PtraceAttach(pid); err != nil {
			return fmt.Errorf("ptrace attach %d: %w", pid, err)
		}
		var ws unix.WaitStatus
		unix.Wait4(pid, &ws, unix.WALL, nil)
		return unix.PtraceDetach(pid)
	case "fa-pty": // open a pseudo-terminal pair through /dev/ptmx
		m, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(m)
		if err := unix.IoctlSetPointerInt(m, unix.TIOCSPTLCK, 0); err != nil {
			return err
		}
		n, err := unix.IoctlGetInt(m, unix.TIOCGPTN)
		if err != nil {
			return err
		}
		s, err := unix.Open("/dev/pts/"+strconv.Itoa(n), unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		return unix.Close(s)
	}
	return fmt.Errorf("unknown probe %q", kind)
}

// runFullAccessScript runs script with /bin/sh under a full_access snapshot
// over ws whose gateway secrets are secrets, and returns its output
// (stdout then stderr) and exit code.
func runFullAccessScript(k domain.KernelFeatures, secrets []string, ws, script string) (string, int, error) {
	s, err := domain.ResolveSnapshot(domain.SnapshotInputs{
		Profile:       domain.ResolveProfile(&domain.ProfileRequest{Mode: domain.ModeFullAccess}, domain.SourceComposer),
		Cwd:           ws,
		WorkspaceRoot: ws,
		Kernel:        k,
	})
	if err != nil {
		return "", 0, err
	}
	domain.AddSensitivePaths(&s, secrets)
	// FA_SERVER_PID: the process that plays the server (whose /proc entries
	// and signals the attacks try); TURNSTILE_TOKEN: one of its settings.
	p, err := PlanSpawn(&s, SpawnRequest{Argv: []string{"/bin/sh", "-c", script}}, append(os.Environ(), "FA_SERVER_PID="+strconv.Itoa(os.Getpid()), "TURNSTILE_TOKEN=server-only-token-0123456789"))
	if err != nil {
		return "", 0, err
	}
	r, err := Run(context.Background(), p)
	if r == nil {
		return "", 0, err
	}
	return string(r.Stdout) + string(r.Stderr), r.ExitCode, err
}

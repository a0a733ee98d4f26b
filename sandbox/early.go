package sandbox

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The helper's plan travels on a unix socket pair (descriptor 3 in the
// helper), so that descriptors can travel with it: a helper started before
// its plan existed (startEarlyHelper) receives its idmap user namespaces
// that way, since they were not known when it was started.

// specChannel returns the two ends of a plan channel: the child's, to pass
// as descriptor 3, and the parent's, to send the plan on.
func specChannel() (child, parent *os.File, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("plan channel: %w", err)
	}
	return os.NewFile(uintptr(fds[0]), "plan"), os.NewFile(uintptr(fds[1]), "plan"), nil
}

// writePlan sends msg on w, fds with its first bytes, and closes w (the
// helper reads to end of file).
func writePlan(w *os.File, msg []byte, fds []*os.File) {
	defer w.Close()
	if len(fds) > 0 {
		ints := make([]int, len(fds))
		for i, f := range fds {
			ints[i] = int(f.Fd())
		}
		n, err := unix.SendmsgN(int(w.Fd()), msg, unix.UnixRights(ints...), nil, 0)
		if err != nil {
			return // the helper reads a short plan and refuses
		}
		msg = msg[n:]
	}
	w.Write(msg)
}

// maxPlanFDs bounds the descriptors a helper accepts with its plan.
const maxPlanFDs = 64

// readPlan reads the helper's plan from descriptor fd to end of file, at
// most 16 MiB, with the descriptors sent with it (close-on-exec).
func readPlan(fd int) ([]byte, []int, error) {
	// Read in place, into one buffer that grows: no second copy of the
	// plan (a spawn's fresh pages are most of its cost, codec.go).
	b := make([]byte, 0, 64<<10)
	var fds []int
	oob := make([]byte, unix.CmsgSpace(maxPlanFDs*4))
	for {
		if len(b) == cap(b) {
			// Doubling, and one byte past the limit at most.
			b = slices.Grow(b, max(1, min(len(b), 16<<20+1-len(b))))
		}
		n, oobn, flags, _, err := unix.Recvmsg(fd, b[len(b):cap(b)], oob, unix.MSG_CMSG_CLOEXEC)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, fds, fmt.Errorf("read plan: %w", err)
		}
		if oobn > 0 {
			msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
			if err != nil {
				return nil, fds, fmt.Errorf("read plan: %w", err)
			}
			for i := range msgs {
				rights, err := unix.ParseUnixRights(&msgs[i])
				if err != nil {
					return nil, fds, fmt.Errorf("read plan: %w", err)
				}
				fds = append(fds, rights...)
			}
		}
		if flags&unix.MSG_CTRUNC != 0 {
			return nil, fds, errors.New("read plan: too many descriptors")
		}
		if n == 0 {
			return b, fds, nil
		}
		if b = b[:len(b)+n]; len(b) > 16<<20 {
			return nil, fds, errors.New("read plan: larger than 16 MiB")
		}
	}
}

// receivedIdmaps, in a helper, are the idmap user namespaces received with
// its plan, one per SandboxSpec.Idmaps entry (nil when they were passed as
// descriptors from helperIdmapFD on).
var receivedIdmaps []int

// acceptPlanFDs checks the descriptors received with a plan: only the
// idmap user namespaces of a restricted spec come that way, one for each.
func acceptPlanFDs(sp *SandboxSpec, fds []int) error {
	if len(fds) == 0 {
		return nil
	}
	if sp.FullAccess || len(fds) != len(sp.Idmaps) {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return fmt.Errorf("plan came with %d descriptors for %d idmap owners", len(fds), len(sp.Idmaps))
	}
	receivedIdmaps = fds
	return nil
}

// earlyHelper is a helper started before its plan (startEarlyHelper).
type earlyHelper struct {
	p          *process
	specW      *os.File
	dir        string // "": a spare, for any working directory
	cloneflags uintptr
	prog       helperProg
	// A spare's: this process's mount table, opened before the helper
	// started (-1 for an early helper), and when it started (fresh).
	mounts   int
	started  time.Time
	deadline time.Time // a spare's: started + spareMaxAge
	stale    bool      // found stale (fresh)
	// The watcher's own open of the mount table and its wake-up pipe
	// (watchMounts); expired once it found a change or the age.
	watch, wakeR, wakeW int
	expired             atomic.Bool
}

// earlyStats counts early helpers started, taken by Run and ended unused,
// for tests.
var earlyStats struct{ started, taken, abandoned atomic.Int64 }

// earlyHelpers holds the helper startEarlyHelper started, until Run takes
// it (startProcess) or the command line ends it (AbandonEarlyHelper).
var earlyHelpers atomic.Pointer[earlyHelper]

// startEarlyHelper starts the helper of a restricted command of this
// process (one command per process: `turnstile sandbox`) before the command
// is planned, so that the helper's start (its runtime, its namespaces,
// about 1.5 ms) runs beside the planning instead of after it. It starts the
// helper in the namespaces a restricted spec with no egress proxy gets on
// this kernel, in cwd; Run uses it only when the plan asks for exactly that
// (same namespaces, same program, same working directory, no input) and
// sends its idmap user namespaces with the plan; otherwise the helper is
// ended having run nothing, and Run starts one as usual. Only a verified
// helper program is started early.
func startEarlyHelper(cwd string, f Features) {
	if !helperWired.Load() || !f.Kernel.UserNamespaces {
		return
	}
	// The plan's working directory is canonical.
	cwd, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		return
	}
	// A restricted mode's network is restricted, with no unix sockets and
	// no proxy.
	attr := helperAttr(&SandboxSpec{InNamespace: true, RestrictNetwork: true, LandlockABI: f.Kernel.LandlockABI})
	if e := startParkedHelper(cwd, attr); e != nil {
		earlyHelpers.Store(e)
	}
}

// startParkedHelper starts a verified helper program in the namespaces of
// attr, in dir ("": in "/", for a plan with any working directory: a spare,
// spare.go), waiting for its plan; nil when none could be started.
func startParkedHelper(dir string, attr *syscall.SysProcAttr) *earlyHelper {
	prog := probeHelper()
	if !prog.verified {
		return nil
	}
	var opened []*os.File
	// A spare's: the mount table of the thread that clones it (locked to
	// this goroutine until the clone), opened twice before the helper's
	// mount namespace is copied from it (any mount or unmount there after
	// the copy shows on both, spare.go), and a pipe that wakes its
	// watcher. /proc/thread-self, not /proc/self: that is the thread-group
	// leader's, which may be in a mount namespace of its own (a locked
	// thread that unshared and could not end is kept by the runtime when
	// it is the leader: in CI's whole-package run, a test's left the
	// spare's poll blind to every mount made by the others). Not
	// *os.File: the runtime's poller would take the change (a poll
	// reports it once on each open file).
	raw := []int{-1, -1, -1, -1} // mounts, watch, wake's read end, its write end
	fail := func() *earlyHelper {
		for _, f := range opened {
			f.Close()
		}
		for _, fd := range raw {
			if fd >= 0 {
				unix.Close(fd)
			}
		}
		return nil
	}
	if dir == "" {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for i := range 2 {
			fd, err := unix.Open("/proc/thread-self/mountinfo", unix.O_RDONLY|unix.O_CLOEXEC, 0)
			if err != nil {
				return fail()
			}
			raw[i] = fd
		}
		var p [2]int
		if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
			return fail()
		}
		raw[2], raw[3] = p[0], p[1]
	}
	specR, specW, err := specChannel()
	if err != nil {
		return fail()
	}
	opened = append(opened, specR, specW)
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return fail()
	}
	opened = append(opened, statusR, statusW)
	outR, outW, err := os.Pipe()
	if err != nil {
		return fail()
	}
	opened = append(opened, outR, outW)
	errR, errW, err := os.Pipe()
	if err != nil {
		return fail()
	}
	opened = append(opened, errR, errW)
	env := helperEnv()
	if dir == "" {
		env = append(env, spareEnv) // it warms its heap while it waits (warmheap.go)
	}
	cmd := &exec.Cmd{Path: prog.path, Args: helperArgs(prog), Env: env, Dir: cmp.Or(dir, "/"), SysProcAttr: attr,
		Stdout: outW, Stderr: errW, ExtraFiles: []*os.File{specR, statusW}, WaitDelay: drainGrace}
	// In a cgroup of its own, as Run starts a helper (killgroup.go); none
	// where Run would have none.
	kg, _ := newKillGroup()
	if kg != nil {
		attr.UseCgroupFD, attr.CgroupFD = true, kg.fd
	}
	if err := startMapped(cmd.SysProcAttr, cmd.Start); err != nil {
		if kg != nil {
			kg.release()
		}
		return fail()
	}
	for _, f := range []*os.File{specR, statusW, outW, errW} {
		f.Close()
	}
	earlyStats.started.Add(1)
	p := &process{cmd: cmd, outR: outR, errR: errR, statusR: statusR, prog: prog, kg: kg}
	return &earlyHelper{p: p, specW: specW, dir: dir, cloneflags: attr.Cloneflags, prog: prog, started: time.Now(),
		mounts: raw[0], watch: raw[1], wakeR: raw[2], wakeW: raw[3]}
}

// startEarlyHelperSoon runs startEarlyHelper on a goroutine: starting a
// process waits until it has exec'd (about a millisecond here, more under
// load), and the command can be planned meanwhile. takeEarlyHelper waits
// for it.
func startEarlyHelperSoon(cwd string, f Features) {
	earlyStarting.Add(1)
	go func() {
		defer earlyStarting.Done()
		startEarlyHelper(cwd, f)
	}()
}

// earlyStarting counts the startEarlyHelper calls still running.
var earlyStarting sync.WaitGroup

// takeEarlyHelper returns the helper started early, if any, once its start
// has returned; the caller owns it (finish or abandon).
func takeEarlyHelper() *earlyHelper {
	earlyStarting.Wait()
	return earlyHelpers.Swap(nil)
}

// AbandonEarlyHelper ends a helper started early that Run did not take.
func AbandonEarlyHelper() {
	if e := takeEarlyHelper(); e != nil {
		e.abandon()
	}
}

// fits reports whether the early helper is the one startProcess would start
// for plan and spec.
func (e *earlyHelper) fits(plan *Plan, spec *SandboxSpec, prog helperProg, attr *syscall.SysProcAttr, kg *killGroup) bool {
	return spec.InNamespace && !spec.FullAccess && spec.ProxyPort == 0 && (kg != nil) == (e.p.kg != nil) && plan.Stdin == nil &&
		(plan.Cwd == e.dir || e.dir == "" && e.fresh()) && prog.path == e.prog.path && prog.verified && attr.Cloneflags == e.cloneflags
}

// finish gives the early helper its plan, with the idmap user namespaces
// the plan needs.
func (e *earlyHelper) finish(plan *Plan, env []string, spec *SandboxSpec, stdout, stderr io.Writer, release *func()) (*process, error) {
	earlyStats.taken.Add(1)
	e.closeMounts()
	var fds []*os.File
	if spec.UID != 0 {
		spec.Idmaps = writableOwners(spec)
		var err error
		if fds, err = idmapFiles(spec.Idmaps); err != nil {
			e.abandon()
			return nil, err
		}
	}
	return e.p.sendPlan(plan, env, spec, e.specW, fds, stdout, stderr, release)
}

// abandon ends the early helper having run nothing.
func (e *earlyHelper) abandon() {
	earlyStats.abandoned.Add(1)
	e.closeMounts()
	abandonHelper(e.p.cmd, e.specW)
	e.p.close()
	e.p.releaseGroup()
}

package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

type earlyCounts struct{ started, taken, abandoned int64 }

func earlyNow() earlyCounts {
	return earlyCounts{earlyStats.started.Load(), earlyStats.taken.Load(), earlyStats.abandoned.Load()}
}

func (a earlyCounts) since(b earlyCounts) earlyCounts {
	return earlyCounts{a.started - b.started, a.taken - b.taken, a.abandoned - b.abandoned}
}

// TestSandboxCommandTakesTheEarlyHelper: `turnstile sandbox` starts its
// helper before it plans the command and Run gives that helper the plan
// (with the idmap user namespaces over the plan's socket when run as
// root): one helper started, taken, none ended unused; the command is
// confined as ever (a workspace write works and, as root, lands owned by
// the workspace's owner; a write outside is refused).
func TestSandboxCommandTakesTheEarlyHelper(t *testing.T) {
	requireKernel(t, true)
	for _, mode := range []string{"supervised", "auto_accept_edits"} {
		t.Run(mode, func(t *testing.T) {
			ws, outside := tempWorkspace(t), tempWorkspace(t)
			before := earlyNow()
			var out, errOut bytes.Buffer
			code := SandboxCommand([]string{"--mode", mode, "--root", ws, "--", "/bin/sh", "-c",
				"echo in > in.txt; echo x > " + outside + "/x; echo ran"}, &out, &errOut)
			if got := earlyNow().since(before); got != (earlyCounts{1, 1, 0}) {
				t.Fatalf("early helpers started/taken/ended unused: %+v", got)
			}
			if !strings.HasSuffix(out.String(), "ran\n") || exists(outside+"/x") {
				t.Fatalf("exit %d %q %s", code, out.String(), errOut.String())
			}
			wrote := exists(ws + "/in.txt")
			if wrote != (mode == "auto_accept_edits") {
				t.Fatalf("%s: workspace write landed: %v (%s)", mode, wrote, errOut.String())
			}
			if wrote {
				var st unix.Stat_t
				if err := unix.Stat(ws+"/in.txt", &st); err != nil || int(st.Uid) != os.Geteuid() {
					t.Fatalf("the file is owned by uid %d, want the workspace owner %d (%v)", st.Uid, os.Geteuid(), err)
				}
			}
		})
	}
}

// TestEarlyHelperThatDoesNotFitIsEnded: an early helper started in another
// working directory than the plan's is ended having run nothing (its
// status says nothing ran), and Run starts the helper the plan needs: the
// command runs where it was planned, confined. One that nothing takes is
// ended by AbandonEarlyHelper.
func TestEarlyHelperThatDoesNotFitIsEnded(t *testing.T) {
	f := requireKernel(t, true)
	ws, other := tempWorkspace(t), tempWorkspace(t)
	before := earlyNow()
	startEarlyHelper(other, f)
	e := earlyHelpers.Load()
	if e == nil || earlyNow().since(before).started != 1 {
		t.Fatal("no early helper was started")
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r := sh(t, s, "pwd; echo in > in.txt; echo x > "+other+"/x")
	if got := earlyNow().since(before); got != (earlyCounts{1, 0, 1}) {
		t.Fatalf("early helpers started/taken/ended unused: %+v", got)
	}
	if strings.TrimSpace(string(r.Stdout)) != ws || !exists(ws+"/in.txt") || exists(other+"/x") {
		t.Fatalf("%+v %s", r, r.Stderr)
	}
	if !e.p.cmd.ProcessState.Exited() || e.p.cmd.ProcessState.ExitCode() != ExitSandboxFailure {
		t.Fatalf("the unused helper: %v", e.p.cmd.ProcessState)
	}
	// Nothing reaches Run (the plan is refused, the command line ends):
	// the command line's AbandonEarlyHelper ends it.
	before = earlyNow()
	startEarlyHelper(ws, f)
	e = earlyHelpers.Load()
	AbandonEarlyHelper()
	if got := earlyNow().since(before); got != (earlyCounts{1, 0, 1}) || earlyHelpers.Load() != nil {
		t.Fatalf("early helpers started/taken/ended unused: %+v", got)
	}
	if !e.p.cmd.ProcessState.Exited() || e.p.cmd.ProcessState.ExitCode() != ExitSandboxFailure {
		t.Fatalf("the abandoned helper: %v", e.p.cmd.ProcessState)
	}
}

// TestPlanChannelCarriesDescriptors: a plan sent with descriptors arrives
// whole with them, close-on-exec; the helper accepts descriptors only as
// the idmap user namespaces of a restricted spec, one per owner, and
// refuses (closing them) any other count or a full_access spec.
func TestPlanChannelCarriesDescriptors(t *testing.T) {
	child, parent, err := specChannel()
	if err != nil {
		t.Fatal(err)
	}
	defer child.Close()
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	var files []*os.File
	for _, p := range []string{a, b} {
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		files = append(files, f)
	}
	msg := bytes.Repeat([]byte("plan-"), 100_000) // several reads
	wrote := make(chan struct{})
	go func() { writePlan(parent, msg, files); close(wrote) }()
	got, fds, err := readPlan(int(child.Fd()))
	<-wrote // before the deferred closes of the files it sent
	if err != nil || !bytes.Equal(got, msg) || len(fds) != 2 {
		t.Fatalf("read %d bytes (equal %v), %d descriptors: %v", len(got), bytes.Equal(got, msg), len(fds), err)
	}
	for i, fd := range fds {
		flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		link, _ := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
		if err != nil || flags&unix.FD_CLOEXEC == 0 || link != []string{a, b}[i] {
			t.Fatalf("descriptor %d: %s, flags %#x, %v", fd, link, flags, err)
		}
	}
	spec := &SandboxSpec{Idmaps: []IdmapOwner{{UID: 1, GID: 1}}}
	if err := acceptPlanFDs(spec, fds); err == nil {
		t.Fatal("two descriptors for one idmap owner were accepted")
	}
	if _, err := unix.FcntlInt(uintptr(fds[0]), unix.F_GETFD, 0); err == nil {
		t.Fatal("refused descriptors were left open")
	}
	one, err := unix.Open(a, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	full := &SandboxSpec{FullAccess: true, Idmaps: []IdmapOwner{{UID: 1, GID: 1}}}
	if err := acceptPlanFDs(full, []int{one}); err == nil {
		t.Fatal("descriptors for a full_access spec were accepted")
	}
	// The control: one descriptor for one owner is taken.
	one, _ = unix.Open(a, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	defer func() { receivedIdmaps = nil; unix.Close(one) }()
	if err := acceptPlanFDs(spec, []int{one}); err != nil || passedIdmap(spec, IdmapOwner{UID: 1, GID: 1}) != one {
		t.Fatalf("one descriptor for one owner: %v, passed %d", err, passedIdmap(spec, IdmapOwner{UID: 1, GID: 1}))
	}
}

// TestReadPlanLimit: a plan of 16 MiB arrives whole, one byte more is
// refused (the buffer read in place grows to the limit and one byte past).
func TestReadPlanLimit(t *testing.T) {
	for _, tc := range []struct {
		size int
		ok   bool
	}{{16 << 20, true}, {16<<20 + 1, false}, {0, true}, {64 << 10, true}} {
		child, parent, err := specChannel()
		if err != nil {
			t.Fatal(err)
		}
		msg := bytes.Repeat([]byte{'p'}, tc.size)
		go writePlan(parent, msg, nil)
		got, _, err := readPlan(int(child.Fd()))
		child.Close() // a refused read leaves the writer blocked: this ends it
		if tc.ok && (err != nil || !bytes.Equal(got, msg)) {
			t.Fatalf("%d bytes: read %d, %v", tc.size, len(got), err)
		}
		if !tc.ok && (err == nil || !strings.Contains(err.Error(), "larger than 16 MiB")) {
			t.Fatalf("%d bytes: read %d, %v; want refused", tc.size, len(got), err)
		}
	}
}

package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// TestAttack103_FIFOWorkspaceFileDir (hundred-and-third review): the check
// of the workspace files (workspacefiles.go namedIn) opens each directory
// of namedFiles at the top of every writable root ("mise", ".mise",
// ".config") with os.Open, which follows a symlink and, on a FIFO, blocks
// in open(2) until some process opens the other end. Every other opener of
// the checks (hold.go, plantcheck.go, plantjudge.go, canon.go
// readPointer) passes O_NOFOLLOW|O_NONBLOCK; this one does not, and it
// runs in the server: after each command (setAsideWorkspaceFiles) and
// before each command (withWorkspaceFiles, noteWorkspaceFiles); the write
// decisions' workspaceFileRefusal → linkedWorkspaceFile call it too.
//
// A tool-setting directory the command creates (mise/, .mise/, .config/)
// is set aside whatever its type (setAsideCreated: the first missing
// component of mise/config.toml, …), but one that existed before the
// command, a workspace's own .config/ (cargo-nextest's nextest.toml,
// dotnet-tools.json) without the protected items under it, is not held:
// the agent runs `rm -rf .config && mkfifo .config` in its writable root
// (the check after it tries each protected item under .config, gets
// ENOTDIR, and leaves the FIFO). The command ends, and the server's check after it blocks
// forever in open(2) on the FIFO: the exec never returns (no timeout or
// turn end reaches a goroutine stuck in a syscall: the command's context
// is not looked at there), and every later exec on the workspace, of any
// turn, blocks the same way before its command starts (the sibling test).
//
// Root cause: sandbox/workspacefiles.go namedIn opens root/sub with
// os.Open (O_RDONLY, following symlinks, blocking) before it checks
// (Fstat) that it is a directory.
//
// Fix: open it as the other checks do: unix.Open(dir,
// O_RDONLY|O_DIRECTORY|O_NOFOLLOW|O_NONBLOCK|O_CLOEXEC) (O_DIRECTORY alone
// refuses a FIFO before it blocks; a symlinked mise/ can then be resolved
// with canonicalPath first, as linkedWorkspaceFile does), and audit the
// remaining os.Open calls on paths a command can shape (canon.go
// dirLists.names, placeholderOrMissing).
//
// Detection without a timer (readerOpened): the test opens the FIFO's
// write end, which returns only once a reader has opened it, and an
// inotify watch records each close of a reader. The command cannot be
// that reader (it has ended: Run waits for all its processes), nor can the
// test (it opens one only after Run returned and the queue was read).
//
// Control: the same command making .config a directory again returns,
// and a mise config for an environment it puts there is set aside.
func TestAttack103_FIFOWorkspaceFileDir(t *testing.T) {
	f := requireKernel(t, true)
	// A workspace with a .config directory of its own (cargo-nextest's
	// .config/nextest.toml, dotnet's .config/dotnet-tools.json), none of
	// the protected items under it.
	workspace := func() string {
		ws := tempWorkspace(t)
		if err := os.MkdirAll(filepath.Join(ws, ".config"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, ".config", "nextest.toml"), []byte("[profile.default]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return ws
	}

	// Control: the same command making a directory .config again, with a
	// mise config for an environment in it, returns, and the config is set
	// aside.
	ws := workspace()
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r := sh(t, s, `cd `+ws+` && rm -rf .config && mkdir .config && echo '[hooks]' > .config/mise.dev.toml && echo made`)
	if r.ExitCode != 0 || string(r.Stdout) != "made\n" {
		t.Fatalf("control: the command remaking .config did not run: exit %d %q %q", r.ExitCode, r.Stdout, r.Stderr)
	}
	if exists(filepath.Join(ws, ".config", "mise.dev.toml")) {
		t.Fatalf("control: the mise config for an environment the command made was not set aside")
	}

	// Attack: .config replaced by a FIFO.
	ws = workspace()
	s = snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	syncFIFO := filepath.Join(ws, "made-fifo")
	if err := unix.Mkfifo(syncFIFO, 0o666); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(ws, ".config")
	type runOut struct {
		r   *Result
		err error
	}
	runDone := make(chan runOut, 1)
	go func() {
		r, err := run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c", `cd ` + ws + ` && rm -rf .config && mkfifo .config && echo made > made-fifo`}}, nil)
		runDone <- runOut{r, err}
	}()
	// The command has made the FIFO once it writes to made-fifo.
	b, err := os.ReadFile(syncFIFO)
	if err != nil || string(b) != "made\n" {
		t.Fatalf("the command did not report the FIFO made: %q %v", b, err)
	}
	done := make(chan struct{})
	var out runOut
	go func() { out = <-runDone; close(done) }()
	byServer := readerOpened(t, fifo, done)
	if out.err != nil {
		t.Fatalf("Run: %v", out.err)
	}
	if out.r != nil {
		t.Logf("Run: exit %d, %d quarantine items, the first: %+v", out.r.ExitCode, len(out.r.Quarantined), out.r.Quarantined[:min(1, len(out.r.Quarantined))])
	}
	if byServer {
		t.Errorf("the server opened for reading the FIFO %s the command left at the top of its writable root, and "+
			"stayed blocked in open(2) until another process (here the test) opened its write end: without one, the exec "+
			"never returns, nor does any later exec on this workspace", fifo)
	}
}

// openWriter opens fifo's write end, blocking until a reader opens it (the
// runtime's preemption signals interrupt the wait: EINTR is retried).
func openWriter(fifo string) (int, error) {
	for {
		fd, err := unix.Open(fifo, unix.O_WRONLY|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// readerOpened reports whether something other than the test opened the
// FIFO fifo for reading before done was closed. An inotify watch for
// IN_CLOSE_NOWRITE (a close of a file opened without write) is set on it
// first, and the test opens its write end (which returns once a reader
// has opened it, releasing that reader's blocking open) and then keeps a
// writer open, so that the reader's further opens return. Once done is
// closed, the watch's queue is read before the test opens a reader itself
// (to release its own writer when nothing else did): a close event then
// is another reader's, whatever the order the goroutines ran in.
func readerOpened(t *testing.T, fifo string, done <-chan struct{}) bool {
	t.Helper()
	in, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(in)
	if _, err := unix.InotifyAddWatch(in, fifo, unix.IN_CLOSE_NOWRITE); err != nil {
		t.Fatal(err)
	}
	writer := make(chan int, 1)
	go func() {
		fd, err := openWriter(fifo)
		if err != nil {
			fd = -1
		}
		writer <- fd
	}()
	var fds []int
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	select {
	case fd := <-writer:
		if fd >= 0 {
			fds = append(fds, fd) // kept: a writer stays open
		}
		<-done
	case <-done:
	}
	buf := make([]byte, 4096)
	n, err := unix.Read(in, buf)
	opened := err == nil && n > 0
	if !opened {
		// Nothing else opened it: release the test's writer.
		fd, err := unix.Open(fifo, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != nil {
			t.Fatalf("open %s: %v", fifo, err)
		}
		fds = append(fds, fd)
		if w := <-writer; w >= 0 {
			fds = append(fds, w)
		}
	}
	return opened
}

// opensFIFO runs fn and reports whether it opened the FIFO fifo for reading
// (readerOpened).
func opensFIFO(t *testing.T, fifo string, fn func()) bool {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	return readerOpened(t, fifo, done)
}

// TestAttack103_FIFOWorkspaceFileDirLater: the FIFO stays where the
// command left it (nothing sets it aside), in the workspace every later
// turn of it uses: a new turn's (a person's, the next session's) write
// decision on an ordinary source file (CheckFile → workspaceFileRefusal →
// linkedWorkspaceFile) and its command (Run → prepareSpec →
// newPlantCheck → noteWorkspaceFiles, before anything runs) block in
// open(2) on it the same way. Each such
// blocked call holds an OS thread of the server (a goroutine in a
// blocking syscall keeps its thread) and never records exec.finished.
//
// Control: with .config a directory, the same decision allows the write
// and the same command runs.
func TestAttack103_FIFOWorkspaceFileDirLater(t *testing.T) {
	f := requireKernel(t, true)
	type workspace struct {
		fifoLeft bool
		ws, cfg  string
		s        *domain.TurnExecutionSecuritySnapshot
		opens    func(fn func()) bool
	}
	var wss []workspace
	for _, fifoLeft := range []bool{false, true} {
		w := workspace{fifoLeft: fifoLeft, ws: tempWorkspace(t)}
		w.cfg = filepath.Join(w.ws, ".config")
		if fifoLeft {
			if err := unix.Mkfifo(w.cfg, 0o644); err != nil { // as the earlier command left it
				t.Fatal(err)
			}
		} else if err := os.Mkdir(w.cfg, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(w.ws, "main.go"), []byte("package main\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		w.s = snapshotFor(t, domain.ModeAutoAcceptEdits, w.ws, f.Kernel)
		w.opens = func(fn func()) bool {
			if !fifoLeft {
				fn() // control: nothing to open
				return false
			}
			return opensFIFO(t, w.cfg, fn)
		}
		wss = append(wss, w)
	}

	for _, w := range wss {
		src := filepath.Join(w.ws, "main.go")
		var checkErr error
		if w.opens(func() { _, checkErr = CheckFile(w.s, src, domain.AccessWrite) }) {
			t.Errorf("a later turn's write decision on %s opened the FIFO %s for reading and blocked until its write end was opened", src, w.cfg)
		} else if !w.fifoLeft && checkErr != nil {
			t.Fatalf("control: the write decision on %s is refused: %v", src, checkErr)
		}
	}
	for _, w := range wss {
		var r *Result
		var runErr error
		if w.opens(func() {
			r, runErr = run(t, w.s, SpawnRequest{Argv: []string{"/bin/sh", "-c", "echo ran"}, Cwd: w.ws}, nil)
		}) {
			t.Errorf("a later turn's command (echo ran) opened the FIFO %s for reading before it ran, and blocked until its write end was opened", w.cfg)
		} else if !w.fifoLeft && (runErr != nil || r.ExitCode != 0 || string(r.Stdout) != "ran\n") {
			t.Fatalf("control: the command did not run: %v %+v", runErr, r)
		}
	}
}

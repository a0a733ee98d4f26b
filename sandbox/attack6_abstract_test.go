package sandbox

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// attack6ProbeArg runs the test binary as this file's probe program (inside
// the sandbox), dispatched from an init function before TestMain.
const attack6ProbeArg = "__attack6-probe"

func init() {
	if len(os.Args) > 2 && os.Args[1] == attack6ProbeArg {
		os.Exit(attack6Abstract(os.Args[2], os.Args[3:]))
	}
}

func attack6ProbeCmd(t *testing.T, kind string, args ...string) []string {
	return append([]string{testExe(t), attack6ProbeArg, kind}, args...)
}

// attack6Abstract: "abstract-listen NAME SECONDS" binds the abstract unix
// socket NAME, answers the first client and exits 0 (1 when it could not
// bind or no client came in time); "abstract-connect NAME" connects to it.
func attack6Abstract(kind string, args []string) int {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		fmt.Println("refused: socket:", err)
		return 1
	}
	addr := &unix.SockaddrUnix{Name: "@" + args[0]}
	if kind == "abstract-self" {
		// Its own abstract socket, bound and reached from inside.
		if err := unix.Bind(fd, addr); err != nil {
			fmt.Println("refused: bind:", err)
			return 1
		}
		unix.Listen(fd, 1)
		c, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err == nil {
			err = unix.Connect(c, addr)
		}
		if err != nil {
			fmt.Println("refused: connect to its own:", err)
			return 1
		}
		fmt.Println("reached its own")
		return 0
	}
	if kind == "abstract-connect" {
		if err := unix.Connect(fd, addr); err != nil {
			fmt.Println("refused: connect:", err)
			return 1
		}
		fmt.Println("connected")
		return 0
	}
	if err := unix.Bind(fd, addr); err != nil {
		fmt.Println("refused: bind:", err)
		return 1
	}
	if err := unix.Listen(fd, 1); err != nil {
		fmt.Println("refused: listen:", err)
		return 1
	}
	secs, _ := strconv.Atoi(args[1])
	tv := unix.NsecToTimeval(int64(secs) * int64(time.Second))
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	c, _, err := unix.Accept(fd)
	if err != nil {
		fmt.Println("no client:", err)
		return 1
	}
	unix.Write(c, []byte("the sandbox answers\n"))
	fmt.Println("accepted a client from outside")
	return 0
}

// TestAttack6AbstractSocketSquatting (fixed: a command whose network is off
// and that may not use the host's unix sockets gets a network namespace of
// its own, whatever the Landlock ABI): a command whose network is off kept
// the host's network namespace (AF_UNIX only, by seccomp), and Landlock's
// abstract-socket scope (ABI 6) stops it from connecting out to the host's
// abstract sockets, not from binding its own: a name it binds is the host's
// name for as long as it runs, and any host process that connects to that
// name talks to the command. A command squats a name a host client will
// use — an X display's @/tmp/.X11-unix/X<n> when that display's server is
// not up (the client then renders into, and takes its input events from,
// the command), a daemon's abstract name while that daemon restarts (which
// then fails to bind) — and answers as that service.
//
// Control: the command cannot connect to an abstract socket the host binds.
func TestAttack6AbstractSocketSquatting(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeSupervised, ws, f.Kernel, filepathDir(testExe(t)))

	hostName := "turnstile-attack6-host-" + token()
	ln, err := net.Listen("unix", "@"+hostName)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	r, err := run(t, s, SpawnRequest{Argv: attack6ProbeCmd(t, "abstract-connect", hostName)}, nil)
	if err != nil || r.ExitCode != 1 {
		t.Fatalf("control: the command connected to the host's abstract socket: %v exit %d %s", err, r.ExitCode, r.Stdout)
	}

	// Control: its own abstract sockets work.
	if r, err := run(t, s, SpawnRequest{Argv: attack6ProbeCmd(t, "abstract-self", "turnstile-attack6-own-"+token())}, nil); err != nil || r.ExitCode != 0 {
		t.Fatalf("control: the command could not use an abstract socket of its own: %v exit %d %s", err, r.ExitCode, r.Stdout)
	}

	name := "/tmp/.X11-unix/X" + strconv.Itoa(200+int(time.Now().UnixNano()%500))
	got := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				got <- ""
				return
			case <-time.After(50 * time.Millisecond):
			}
			c, err := net.Dial("unix", "@"+name)
			if err != nil {
				continue
			}
			b := make([]byte, 64)
			n, _ := c.Read(b)
			c.Close()
			got <- string(b[:n])
			return
		}
	}()
	r, err = run(t, s, SpawnRequest{Argv: attack6ProbeCmd(t, "abstract-listen", name, "2")}, nil)
	close(done)
	answer := <-got
	if err != nil {
		t.Fatalf("listen probe: %v", err)
	}
	if r.ExitCode == 0 || strings.Contains(answer, "sandbox") {
		t.Errorf("a supervised command bound the host's abstract socket @%s and a host client reached it: %q (command: %s)", name, strings.TrimSpace(answer), strings.TrimSpace(string(r.Stdout)))
	}
}

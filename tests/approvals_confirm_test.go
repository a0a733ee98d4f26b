package tests

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY returns a pseudo-terminal's controller and its terminal.
func openPTY(t *testing.T) (ctl, term *os.File) {
	t.Helper()
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	ctl = os.NewFile(uintptr(fd), "ptmx")
	t.Cleanup(func() { ctl.Close() })
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	term, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { term.Close() })
	return ctl, term
}

// TestApprovalsRespondConfirmsAPrefix: `approvals respond PREFIX` on a
// terminal shows the request the prefix names and resolves it only on "y";
// "n" leaves it pending. (Without a terminal a prefix is refused:
// TestAttack7PrefixLandsOnAnotherRequest; a full id needs no confirmation:
// TestCLIApprovals.)
func TestApprovalsRespondConfirmsAPrefix(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	s.startTurn("cf", "ws", "supervised", workspace(t))
	respond := func(call, answer string) (string, approvalView) {
		ask := s.decide("cf", call, "exec_command", map[string]any{"cmd": "make " + call})
		id := ask.Request.RequestID
		ctl, term := openPTY(t)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "approvals", "respond", "--server", s.URL, id[:13], "allow_once")
		cmd.Env = append(envWithout("TURNSTILE_TOKEN"), "TURNSTILE_TOKEN="+s.Token, "TURNSTILE_SERVER_KEY="+s.Key())
		var out, errOut strings.Builder
		cmd.Stdin, cmd.Stdout, cmd.Stderr = term, &out, &errOut
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The answer waits in the terminal's input until the CLI reads it.
		if _, err := ctl.Write([]byte(answer + "\n")); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		var got approvalView
		s.JSON("GET", "/v1/approvals/"+id, nil, http.StatusOK, &got)
		return out.String() + errOut.String(), got
	}
	if text, got := respond("no", "n"); got.Status != "pending" || !strings.Contains(text, "make no") || !strings.Contains(text, "not resolved") {
		t.Fatalf("answered n: %s, %s\n%s", got.Status, got.Resolution, text)
	}
	if text, got := respond("yes", "y"); got.Status != "resolved" || got.Resolution != "allow_once" || !strings.Contains(text, "make yes") {
		t.Fatalf("answered y: %s, %s\n%s", got.Status, got.Resolution, text)
	}
}

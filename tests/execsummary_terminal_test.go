package tests

import (
	"strings"
	"testing"
)

// TestExecWaitingLineIsTerminalSafe: `turnstile exec` of a call that waits
// for approval prints the request's summary, which is the agent's command,
// on the terminal of whoever runs it; an escape sequence in it (erase the
// line, back to its start) is printed as a visible escape, not as a
// terminal control. Control: the line names a plain command as it is.
func TestExecWaitingLineIsTerminalSafe(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	s.startTurn("sv", "ws", "supervised", workspace(t))
	_, errOut, code := s.CLI("exec", "--turn", "sv", "--tool-call-id", "plain", "--", "echo", "later")
	if code != 3 || !strings.Contains(errOut, "(Run echo later)") {
		t.Fatalf("control: a plain command waiting: %d %q", code, errOut)
	}
	_, errOut, code = s.CLI("exec", "--turn", "sv", "--tool-call-id", "hidden", "--", "sh", "-c", "rm -rf ~ #\x1b[2K\recho later")
	if code != 3 {
		t.Fatalf("exec: %d %q", code, errOut)
	}
	if strings.ContainsAny(errOut, "\x1b\r") || !strings.Contains(errOut, `\x1b[2K\recho later`) {
		t.Errorf("the waiting line carries the agent's terminal controls: %q", errOut)
	}
}

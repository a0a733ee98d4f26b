package api_test

import (
	"bytes"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"turnstile/api"
)

// TestAttack183_TurnStartPromptRedactionCost (review 183, medium):
// JSON-RPC turn/start takes the reference's input (the prompt) and kept
// fields (cli_runtime_options, capabilities, sandbox_policy…), which
// decideStart redacts before they are recorded (domain.RedactJSON →
// RedactText on every string value, twice for an object member: as itself
// and as "key=value"). RedactText's cost is quadratic in a text's length
// when it repeats a secret-named plain assignment ("token=x "): namedAgain
// scans the whole text for each assignment's name, and exposedVars runs
// for each match (replaceClipped). 16 KB cost 0.3 s, 64 KB 8 s here, and the
// prompt is bounded only by the 1 MiB body: one turn/start costs the server
// about half an hour of CPU (the work reads no context; the command timeout
// does not stop it), the agent's 256 requests in flight hold every core
// for hours, and meanwhile every other caller's decisions wait for the CPU:
// a Claude Code http hook not answered before its timeout lets the call run
// unchecked (REFERENCE §11). Review 147 bounded this cost for a command of
// secret-named options ("--api-key=x "); a command of plain assignments
// ("echo token=x token=x …", up to the 128 KiB argument cap) still costs
// it, in the engine's load hook, under the turn's lock (3.5 s at 64 KB).
//
// Controls: a turn/start whose prompt has the same length and shape but
// names no secret is answered at once, and so is a decision of a command
// of review 147's "--api-key=x " of the same length.
func TestAttack183_TurnStartPromptRedactionCost(t *testing.T) {
	// The server's command bound past the test's own (under the race
	// detector the 96 KiB command's decision outlasted the 10 s default,
	// answered store_unavailable): the time is judged against bound.
	s := startInProcessOn(t, filepath.Join(t.TempDir(), "events.db"), func(c *api.Config) { c.CommandTimeout = 5 * time.Minute })
	agent := s.credential("agent183p", "runtime")
	root := t.TempDir()
	const size = 64 << 10
	bound := 3 * time.Second * raceScale
	call := timedPost(t, s, agent)
	start := func(id, text string) ([]byte, time.Duration) {
		st, b, took := call("/rpc", rpcStartWithPrompt(id, "ws183", root, text))
		if st != http.StatusOK || !bytes.Contains(b, []byte(`"result"`)) {
			t.Fatalf("turn/start %s: %d %.300s", id, st, b)
		}
		return b, took
	}

	// decide decides an exec_command of cmd in turn p183-plain.
	decide := func(id, cmd string) time.Duration {
		st, b, took := call("/v1/turns/p183-plain/decisions", map[string]any{"tool_call_id": id, "tool_name": "exec_command",
			"arguments": map[string]any{"cmd": cmd}})
		if st != http.StatusOK || !bytes.Contains(b, []byte(`"decision"`)) {
			t.Fatalf("decide %s: %d %.300s", id, st, b)
		}
		return took
	}

	// Controls: a prompt of the same length and shape naming no secret,
	// and a command of review 147's secret-named options.
	if _, took := start("p183-plain", strings.Repeat("plain=x ", size/8)); took > bound {
		t.Fatalf("control: a %d-byte prompt naming no secret took %v: the machine, not the prompt, is slow", size, took)
	}
	if took := decide("c-147", "echo "+strings.Repeat("--api-key=x ", size/12)); took > bound {
		t.Fatalf("control: a %d-byte command of review 147's secret-named options took %v", size, took)
	}

	_, promptTook := start("p183-secret", strings.Repeat("token=x ", size/8))
	// A command may be longer (up to the 128 KiB argument cap): 96 KiB.
	const cmdSize = 96 << 10
	commandTook := decide("c-183", "echo "+strings.Repeat("token=x ", cmdSize/8))
	t.Logf("a %d-byte prompt of \"token=x \": turn/start answered after %v; a %d-byte command of it decided after %v",
		size, promptTook.Round(time.Millisecond), cmdSize, commandTook.Round(time.Millisecond))
	if promptTook > bound {
		t.Errorf("a turn/start whose %d-byte prompt repeats \"token=x \" held the server's CPU for %v (bound %v): the cost grows with the square "+
			"of the prompt's length, which only the 1 MiB body bounds", size, promptTook.Round(time.Millisecond), bound)
	}
	if commandTook > bound {
		t.Errorf("a decision of a %d-byte command repeating \"token=x \" held the turn's lock and the server's CPU for %v (bound %v)",
			cmdSize, commandTook.Round(time.Millisecond), bound)
	}
}

package api_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestAttack185_QuotedMemberRedactionCost (review 185, medium): review
// 183 made namedAgain linear, but RedactText is still quadratic (worse:
// 16 KiB 1.7 s, 32 KiB 8 s, 64 KiB 42 s here) in a text that repeats a
// quoted secret-named member, `"token":"x" ` (JSON members, as a prompt
// pastes them, or a command echoes them): each match of the member
// pattern goes through memberInShell → nestedUnquoted → quoteOpen and
// shellScript, which runs the nestedShell regexp over the whole text
// before the match (s[:open]) — once per member. The agent holding the
// runtime's credential sends it as a turn/start's prompt (bounded by the
// 1 MiB body: hours of one core, which the command timeout does not stop),
// or as an exec_command's command, redacted in the decision under the
// turn's lock; 256 requests in flight hold every core, and every other
// caller's decision waits (a Claude Code hook not answered before its
// timeout lets the call run unchecked).
//
// Controls: the same prompt and command with a name that is no secret's
// ("plain") are answered at once.
func TestAttack185_QuotedMemberRedactionCost(t *testing.T) {
	s := startInProcess(t)
	agent := s.credential("agent185m", "runtime")
	root := t.TempDir()
	const size = 20 << 10
	bound := 3 * time.Second * raceScale
	call := timedPost(t, s, agent)
	start := func(id, text string, must bool) time.Duration {
		st, b, took := call("/rpc", rpcStartWithPrompt(id, "ws185", root, text))
		if !bytes.Contains(b, []byte(`"result"`)) {
			if must {
				t.Fatalf("turn/start %s: %d %.300s", id, st, b)
			}
			t.Logf("turn/start %s: %d %.300s", id, st, b)
		}
		return took
	}
	decide := func(id, cmd string) time.Duration {
		st, b, took := call("/v1/turns/m185-plain/decisions", map[string]any{"tool_call_id": id, "tool_name": "exec_command",
			"arguments": map[string]any{"cmd": cmd}})
		if st != http.StatusOK || !bytes.Contains(b, []byte(`"decision"`)) {
			t.Logf("decide %s: %d %.300s", id, st, b)
		}
		return took
	}
	members := func(name string) string { return strings.Repeat(`"`+name+`":"x" `, size/(len(name)+7)) }

	if took := start("m185-plain", members("plain"), true); took > bound {
		t.Fatalf("control: a %d-byte prompt of \"plain\" members took %v: the machine, not the prompt, is slow", size, took)
	}
	if took := decide("c-plain", "echo '"+members("plain")+"'"); took > bound {
		t.Fatalf("control: a %d-byte command of \"plain\" members took %v", size, took)
	}

	promptTook := start("m185-secret", members("token"), false)
	afterTook := decide("c-plain-after", "echo '"+members("plain")+"'")
	t.Logf("a plain decision right after took %v", afterTook)
	commandTook := decide("c-secret", "echo '"+members("token")+"'")
	t.Logf("a %d-byte prompt of \"token\" members: turn/start answered after %v; a command of them decided after %v",
		size, promptTook.Round(time.Millisecond), commandTook.Round(time.Millisecond))
	if promptTook > bound {
		t.Errorf("a turn/start whose %d-byte prompt repeats `\"token\":\"x\" ` held the server's CPU for %v (bound %v): the cost grows faster than the square "+
			"of the prompt's length, which only the 1 MiB body bounds", size, promptTook.Round(time.Millisecond), bound)
	}
	if commandTook > bound {
		t.Errorf("a decision of a %d-byte command repeating `\"token\":\"x\" ` held the turn's lock and the server's CPU for %v (bound %v)",
			size, commandTook.Round(time.Millisecond), bound)
	}
}

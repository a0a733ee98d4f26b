package tests

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestAttack24UnreadExecAnswersHoldMemory: an exec's answer carries the
// command's stdout and stderr, up to 1 MiB each, as JSON strings, and the
// server encodes it whole before writing it (writeJSON: one buffer). A
// control byte is six bytes in JSON (\u0001), so a command that prints
// 1 MiB of them on each stream makes a 12 MiB answer from a request of a
// hundred bytes. The server has no write timeout (http.Server.WriteTimeout
// is unset, and a plain response sets no write deadline, unlike the event
// stream), and nothing counts an answer against --max-body-memory (a
// JSON-RPC batch's answers are counted; an exec's are not) or bounds the
// execs one credential has running at once. So the agent posts execs on
// connections it never reads: each answer, and the command's buffers
// behind it, stay in the server's memory for as long as the agent keeps
// the connection, and the agent opens as many as it likes, until the
// server is killed for its memory and every other credential's turns,
// approvals and audits go with it. Here 16 such answers, under a
// --max-body-memory of 32 MiB, hold some 400 MiB of resident memory (12 MiB
// of JSON each and the buffers behind it; a live heap of 211 MB after a
// collection, by GODEBUG=gctrace=1).
// Wanted: the answers a credential has not yet been sent count against
// the body budget (its half of it) like a batch's, or its execs at once
// are bounded; and a response write that makes no progress ends its
// connection, as an event stream's does.
// Control: an exec whose answer the agent reads gets its whole output.
func TestAttack24UnreadExecAnswersHoldMemory(t *testing.T) {
	// GOGC=100: the collector at its default pacing (serve's tuner lets
	// garbage grow to a ceiling of its own), so that the resident memory
	// follows what the server holds.
	s := StartServerEnv(t, []string{"GOGC=100"}, "--max-body-memory", "33554432")
	agent := roAs(s, s.credential("agent", "runtime"))
	root := workspace(t)
	agent.startTurn("big", "ws", "full_access", root)
	script := `head -c 1048576 /dev/zero | tr '\000' '\001'; head -c 1048576 /dev/zero | tr '\000' '\001' >&2`
	// Control: read normally, the answer is whole.
	st, d := agent.exec("big", "", map[string]any{"tool_call_id": "control", "argv": []string{"/bin/sh", "-c", script}})
	if st != http.StatusOK || !d.Ran || d.Result == nil || len(d.Result.Stdout) != 1<<20 || len(d.Result.Stderr) != 1<<20 {
		t.Fatalf("control: an exec read normally: %d ran=%v", st, d.Ran)
	}
	pid := s.cmd.Process.Pid
	base := rssKB(t, pid)
	addr := strings.TrimPrefix(s.URL, "http://")
	const n = 16
	conns := sendUnread(t, addr, n, func(i int) string {
		body, _ := json.Marshal(map[string]any{"tool_call_id": fmt.Sprintf("unread-%d", i), "argv": []string{"/bin/sh", "-c", script}})
		return fmt.Sprintf("POST /v1/turns/big/exec HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
			addr, agent.Token, len(body), body)
	})
	// Each answer has begun (its status line arrived): the server encoded
	// it and is blocked writing the rest to a client that reads no more.
	statuses := map[string]int{}
	for _, c := range conns {
		c.SetReadDeadline(time.Now().Add(60 * time.Second)) // a hang guard
		line, err := bufio.NewReaderSize(c, 16).ReadString('\n')
		if err != nil {
			t.Fatalf("an unread exec's answer never began: %v", err)
		}
		statuses[strings.TrimSpace(line)]++
	}
	grew := rssKB(t, pid) - base
	if grew > 128<<10 {
		t.Errorf("%d exec answers the agent left unread (%v) hold %d MiB more of the server's memory, under --max-body-memory 32 MiB; want them counted against the budget (or the agent's execs bounded)", n, statuses, grew>>10)
	}
}

// rssKB is the resident set of process pid, in KiB.
func rssKB(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// TestAttack24UnreadListsHoldMemory: the same through a list the agent may
// read. GET /v1/approvals?status=pending answers every pending request of
// every turn in one unpaged answer, encoded whole before it is written, and
// a request's view holds its command twice (summary and details): a
// 100 KB command makes a 200 KB entry. The quotas allow a runtime
// credential 256 pending requests a turn in 1,024 turns, bounded in bytes
// only by --max-open-turn-bytes (256 MiB stored: a list of some 500 MB).
// The agent opens such requests, then asks for the list on connections it
// never reads: each answer stays whole in the server's memory, from a
// request of a hundred bytes. Here 48 requests (a 10 MB list) and 16
// unread lists. Wanted: the pending list pages (a limit and a cursor, as
// GET /v1/turns has), and answers not yet sent count against the body
// budget.
// Control: the list read normally holds every request. (Since the fix: a
// credential's lists are built and written one at a time, and a large
// answer is held against its share of the body budget while it is
// written, within 30 s: the agent's unread lists wait behind its first.)
func TestAttack24UnreadListsHoldMemory(t *testing.T) {
	// GOGC=100, as TestAttack24UnreadExecAnswersHoldMemory.
	s := StartServerEnv(t, []string{"GOGC=100"}, "--max-body-memory", "33554432")
	agent := roAs(s, s.credential("agent", "runtime"))
	root := workspace(t)
	agent.startTurn("asks", "ws", "supervised", root)
	const asks = 48
	for i := range asks {
		if d := agent.decide("asks", fmt.Sprintf("c%d", i), "exec_command", map[string]any{"cmd": fmt.Sprintf("echo %d %s", i, strings.Repeat("A", 100_000))}); d.Decision != "ask" {
			t.Fatalf("c%d: %s, want ask", i, d.Decision)
		}
	}
	var list struct {
		Approvals []json.RawMessage `json:"approvals"`
	}
	st, raw := agent.Request("GET", "/v1/approvals?status=pending", nil)
	if err := json.Unmarshal(raw, &list); st != http.StatusOK || err != nil || len(list.Approvals) != asks {
		t.Fatalf("control: the pending list: %d, %d requests", st, len(list.Approvals))
	}
	pid := s.cmd.Process.Pid
	base := rssKB(t, pid)
	addr := strings.TrimPrefix(s.URL, "http://")
	const n = 16
	sendUnread(t, addr, n, func(int) string {
		return fmt.Sprintf("GET /v1/approvals?status=pending HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n", addr, agent.Token)
	})
	// Every request has reached the server: one list is being written to
	// a client that reads no more, the others wait for their credential's
	// turn (turnstile_approval_lists_waiting), holding nothing.
	waitUntil(t, "the agent's other lists waiting", func() (bool, string) {
		st, m := s.Do("GET", "/metrics", nil)
		for _, line := range strings.Split(string(m), "\n") {
			if v, ok := strings.CutPrefix(line, "turnstile_approval_lists_waiting "); ok {
				return v == strconv.Itoa(n-1), v
			}
		}
		return false, strconv.Itoa(st)
	})
	grew := rssKB(t, pid) - base
	if grew > 96<<10 {
		t.Errorf("%d pending lists of %d bytes the agent left unread hold %d MiB more of the server's memory, under --max-body-memory 32 MiB; want the list paged and answers counted against the budget", n, len(raw), grew>>10)
	}
}

// sendUnread opens n connections to addr and sends request(i) on the i-th,
// reading nothing; they are closed when the test ends.
func sendUnread(t *testing.T, addr string, n int, request func(i int) string) []net.Conn {
	t.Helper()
	var conns []net.Conn
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	for i := range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		if _, err := c.Write([]byte(request(i))); err != nil {
			t.Fatal(err)
		}
	}
	return conns
}

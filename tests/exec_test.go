package tests

import (
	"encoding/json"
	"net/http"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// exec posts an exec request and returns the status and the answer.
func (s *Server) exec(turnID, query string, body map[string]any) (int, decisionAnswer) {
	s.t.Helper()
	status, raw := s.Request("POST", "/v1/turns/"+turnID+"/exec"+query, body)
	var out decisionAnswer
	if err := json.Unmarshal(raw, &out); err != nil {
		s.t.Fatalf("exec answer %s: %v", raw, err)
	}
	return status, out
}

// execApproved runs argv in a turn that asks: the first call waits for
// approval, allow_once resolves it, and the same call runs.
func (s *Server) execApproved(turnID, callID string, body map[string]any) decisionAnswer {
	s.t.Helper()
	body["tool_call_id"] = callID
	status, first := s.exec(turnID, "", body)
	if status != http.StatusAccepted || first.Decision != "ask" || first.Ran || first.Request == nil {
		s.t.Fatalf("exec %s: %d %+v, want 202 ask", callID, status, first)
	}
	s.respond(first.Request.RequestID, "allow_once")
	status, run := s.exec(turnID, "", body)
	if status != http.StatusOK {
		s.t.Fatalf("exec %s after approval: %d %+v", callID, status, run)
	}
	return run
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// TestExecFullAccessAndTimeout runs commands directly in full_access, and
// kills a command that outlives its timeout together with its child.
func TestExecFullAccessAndTimeout(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("fa", "ws", "full_access", root)
	status, d := s.exec("fa", "", map[string]any{"tool_call_id": "e1", "argv": []string{"echo", "hello", "world"}})
	if status != http.StatusOK || !d.Ran || d.Decision != "allow" || d.Reason != "full_access" || d.Result == nil ||
		d.Result.ExitCode != 0 || d.Result.Stdout != "hello world\n" || d.Result.TimedOut {
		t.Fatalf("echo in full_access: %d %+v %+v", status, d, d.Result)
	}
	_, d = s.exec("fa", "", map[string]any{"tool_call_id": "e2", "argv": []string{"sh", "-c", "echo out; echo err >&2; exit 7"}})
	if !d.Ran || d.Result.ExitCode != 7 || d.Result.Stdout != "out\n" || !strings.Contains(d.Result.Stderr, "err\n") {
		t.Fatalf("exit code: %+v", d.Result)
	}
	// The same tool call id never runs twice.
	before := s.footprint("fa")
	status, again := s.exec("fa", "", map[string]any{"tool_call_id": "e1", "argv": []string{"echo", "hello", "world"}})
	if status != http.StatusConflict || again.Ran || !again.Replayed {
		t.Fatalf("repeated exec: %d %+v", status, again)
	}
	if after := s.footprint("fa"); after != before {
		t.Fatalf("repeated exec appended: %v → %v", before, after)
	}

	// The command runs in a PID namespace of its own (its pids mean
	// nothing here): the child is found on the host by a command line no
	// other process has.
	sleepArg := "317." + strconv.Itoa(os.Getpid())
	_, d = s.exec("fa", "", map[string]any{"tool_call_id": "slow", "timeout_ms": 1000,
		"argv": []string{"sh", "-c", "sleep " + sleepArg + " & echo started > " + filepath.Join(root, "child.started") + "; wait"}})
	if !d.Ran || d.Result == nil || !d.Result.TimedOut || d.Result.ExitCode == 0 || !exists(filepath.Join(root, "child.started")) {
		t.Fatalf("command past its timeout: %+v %+v", d, d.Result)
	}
	sleeping := func(arg string) bool {
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			if err != nil || string(cmdline) != "sleep\x00"+arg+"\x00" {
				continue
			}
			// A zombie (state Z) is dead; only its parent has not reaped it yet.
			stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
			if err != nil {
				continue
			}
			if fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])); len(fields) > 0 && fields[0] != "Z" && fields[0] != "X" {
				return true
			}
		}
		return false
	}
	pollUntil(t, "the child to die", func() bool { return !sleeping(sleepArg) })
	// Control: the same search finds a sleeping process started here.
	ctl := osexec.Command("sleep", sleepArg+"1")
	if err := ctl.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { ctl.Process.Kill(); ctl.Wait() }()
	pollUntil(t, "the control sleep to be listed", func() bool { return sleeping(sleepArg + "1") })
}

// TestExecApprovalsAndSandbox runs commands in auto_accept_edits: each asks
// first; allowed once, it runs once; the sandbox lets it write inside the
// workspace only; a cwd outside the roots is refused before spawning.
func TestExecApprovalsAndSandbox(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	outside := workspace(t)
	s.startTurn("ae", "ws", "auto_accept_edits", root)

	run := s.execApproved("ae", "echo", map[string]any{"argv": []string{"echo", "approved"}})
	if !run.Ran || run.Decision != "allow" || run.Reason != "user_approved" || run.Result.Stdout != "approved\n" || run.Result.ExitCode != 0 {
		t.Fatalf("approved echo: %+v %+v", run, run.Result)
	}
	status, third := s.exec("ae", "", map[string]any{"tool_call_id": "echo", "argv": []string{"echo", "approved"}})
	if status != http.StatusConflict || third.Ran {
		t.Fatalf("third try of an allow_once call: %d %+v", status, third)
	}
	if d := s.decide("ae", "echo-again", "exec_command", map[string]any{"argv": []string{"echo", "approved"}}); d.Decision != "ask" {
		t.Fatalf("allow_once cached the scope: %+v", d)
	}
	// allow_for_turn: the same command under a new tool call id runs at once.
	status, first := s.exec("ae", "", map[string]any{"tool_call_id": "g1", "argv": []string{"echo", "granted"}})
	if status != http.StatusAccepted {
		t.Fatalf("exec g1: %d %+v", status, first)
	}
	s.respond(first.Request.RequestID, "allow_for_turn")
	status, run = s.exec("ae", "", map[string]any{"tool_call_id": "g2", "argv": []string{"echo", "granted"}})
	if status != http.StatusOK || !run.Ran || run.Reason != "cached_approval" || !run.Cached || run.Result.Stdout != "granted\n" {
		t.Fatalf("exec under a grant: %d %+v", status, run)
	}

	inside := filepath.Join(root, "made-inside.txt")
	run = s.execApproved("ae", "write-in", map[string]any{"argv": []string{"sh", "-c", "echo data > " + inside}})
	if !run.Ran || run.Result.ExitCode != 0 {
		t.Fatalf("write inside the workspace: %+v", run.Result)
	}
	if b, err := os.ReadFile(inside); err != nil || string(b) != "data\n" {
		t.Fatalf("file written inside the workspace: %q %v", b, err)
	}
	etc := "/etc/turnstile-e2e-" + strconv.Itoa(os.Getpid())
	outsideFile := filepath.Join(outside, "escaped.txt")
	for i, target := range []string{etc, outsideFile} {
		run = s.execApproved("ae", "write-out-"+strconv.Itoa(i), map[string]any{"argv": []string{"sh", "-c", "echo data > " + target}})
		if !run.Ran || run.Result.ExitCode == 0 || exists(target) {
			os.Remove(target)
			t.Fatalf("write to %s: ran %v, %+v, file present %v", target, run.Ran, run.Result, exists(target))
		}
	}

	// A cwd outside the roots: the spawn plan refuses before anything runs,
	// and the turn records a decision_denied (sandbox_denied).
	marker := filepath.Join(outside, "ran-anyway")
	run = s.execApproved("ae", "bad-cwd", map[string]any{"argv": []string{"touch", marker}, "cwd": outside})
	if run.Ran || run.Decision != "deny" || run.Reason != "sandbox_denied" || run.Refusal == "" || exists(marker) {
		t.Fatalf("cwd outside the roots: %+v", run)
	}
	evs, _ := s.events("ae")
	last := evs[len(evs)-1]
	var den struct {
		ToolCallID string `json:"tool_call_id"`
		Refusal    string `json:"refusal"`
		Decision   struct {
			Decision string `json:"decision"`
			Reason   string `json:"reason"`
		} `json:"decision"`
	}
	if err := json.Unmarshal(last.Data, &den); err != nil || last.Type != "permission.decision_denied" || den.ToolCallID != "bad-cwd" ||
		den.Decision.Reason != "sandbox_denied" || den.Refusal != run.Refusal {
		t.Fatalf("last event %s %s", last.Type, last.Data)
	}

	// ?wait= runs the call as soon as another goroutine approves it.
	done := make(chan decisionAnswer, 1)
	go func() {
		_, d := s.exec("ae", "?wait=30s", map[string]any{"tool_call_id": "waited", "argv": []string{"echo", "waited"}})
		done <- d
	}()
	var reqID string
	pollUntil(t, "the waiting call's request", func() bool {
		var list struct{ Approvals []approvalView }
		s.JSON("GET", "/v1/approvals?status=pending&turn_id=ae", nil, http.StatusOK, &list)
		for _, a := range list.Approvals {
			if a.ToolCallID == "waited" {
				reqID = a.Request.RequestID
			}
		}
		return reqID != ""
	})
	go s.Do("POST", "/v1/approvals/"+reqID+"/respond", map[string]string{"resolution": "allow_once"})
	select {
	case d := <-done:
		if !d.Ran || d.Result == nil || d.Result.Stdout != "waited\n" || d.Reason != "user_approved" {
			t.Fatalf("waited exec: %+v", d)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the waiting exec never returned")
	}
}

// TestExecSupervisedAndCLI checks the read-only sandbox of supervised over
// HTTP and the exec command line.
func TestExecSupervisedAndCLI(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("sv", "ws", "supervised", root)
	target := filepath.Join(root, "ro.txt")
	run := s.execApproved("sv", "w", map[string]any{"argv": []string{"sh", "-c", "cat a.txt; echo x > " + target}})
	if !run.Ran || run.Result.ExitCode == 0 || exists(target) || !strings.Contains(run.Result.Stdout, "hello") {
		t.Fatalf("write in supervised: %+v", run.Result)
	}
	// A denial stops the call.
	status, d := s.exec("sv", "", map[string]any{"tool_call_id": "no", "argv": []string{"touch", target}})
	if status != http.StatusAccepted {
		t.Fatalf("exec: %d %+v", status, d)
	}
	s.respond(d.Request.RequestID, "deny")
	status, d = s.exec("sv", "", map[string]any{"tool_call_id": "no", "argv": []string{"touch", target}})
	if status != http.StatusOK || d.Ran || d.Decision != "deny" || d.Reason != "user_denied" || exists(target) {
		t.Fatalf("denied exec: %d %+v", status, d)
	}

	s.startTurn("clif", "ws", "full_access", root)
	if out, errOut, code := s.CLI("exec", "--turn", "clif", "--", "echo", "from", "cli"); code != 0 || out != "from cli\n" {
		t.Fatalf("turnstile exec: %d %q %q", code, out, errOut)
	}
	if _, _, code := s.CLI("exec", "--turn", "clif", "--", "sh", "-c", "exit 5"); code != 5 {
		t.Fatalf("turnstile exec exit code %d, want 5", code)
	}
	_, errOut, code := s.CLI("exec", "--turn", "sv", "--tool-call-id", "cli-1", "--", "echo", "later")
	if code != 3 || !strings.Contains(errOut, "waiting for approval") {
		t.Fatalf("turnstile exec in supervised: %d %s", code, errOut)
	}
	var list struct{ Approvals []approvalView }
	s.JSON("GET", "/v1/approvals?status=pending&turn_id=sv", nil, http.StatusOK, &list)
	if len(list.Approvals) != 1 || !strings.Contains(errOut, list.Approvals[0].Request.RequestID) {
		t.Fatalf("pending %+v, stderr %s", list.Approvals, errOut)
	}
	if _, _, code := s.CLI("approvals", "respond", list.Approvals[0].Request.RequestID, "allow_once"); code != 0 {
		t.Fatal("approvals respond failed")
	}
	if out, errOut, code := s.CLI("exec", "--turn", "sv", "--tool-call-id", "cli-1", "--", "echo", "later"); code != 0 || out != "later\n" {
		t.Fatalf("turnstile exec after approval: %d %q %q", code, out, errOut)
	}
	if _, errOut, code := s.CLI("exec", "--turn", "sv", "--tool-call-id", "no", "--", "touch", target); code != 126 || !strings.Contains(errOut, "user_denied") {
		t.Fatalf("turnstile exec of a denied call: %d %s", code, errOut)
	}
}

// TestSandboxCommandAndDoctor runs `turnstile sandbox` and `turnstile
// doctor` on this kernel.
func TestSandboxCommandAndDoctor(t *testing.T) {
	t.Parallel()
	root := workspace(t)
	f := filepath.Join(root, "f")
	_, errOut, code := runCLI(t, "sandbox", "--mode", "supervised", "--root", root, "--", "sh", "-c", "echo x > "+f)
	if code == 0 || exists(f) {
		t.Fatalf("supervised write: exit %d, file present %v, %s", code, exists(f), errOut)
	}
	out, errOut, code := runCLI(t, "sandbox", "--mode", "auto_accept_edits", "--root", root, "--", "sh", "-c", "echo x > "+f+"; cat "+f)
	if code != 0 || out != "x\n" || !exists(f) {
		t.Fatalf("auto_accept_edits write: exit %d %q %s", code, out, errOut)
	}
	if _, _, code := runCLI(t, "sandbox", "--mode", "auto_accept_edits", "--root", root, "--", "sh", "-c", "echo x > /etc/turnstile-e2e-sb"); code == 0 || exists("/etc/turnstile-e2e-sb") {
		os.Remove("/etc/turnstile-e2e-sb")
		t.Fatalf("write to /etc: exit %d", code)
	}
	if _, _, code := runCLI(t, "sandbox", "--mode", "yolo", "--root", root, "--", "true"); code != 2 {
		t.Fatalf("bad mode: exit %d", code)
	}

	out, _, code = runCLI(t, "doctor")
	if code != 0 || !strings.Contains(out, "Landlock ABI") {
		t.Fatalf("doctor: %d\n%s", code, out)
	}
	for _, m := range []string{"full_access", "auto_accept_edits", "supervised"} {
		if !strings.Contains(out, "  "+m+" ") {
			t.Errorf("doctor does not list %s:\n%s", m, out)
		}
	}
}

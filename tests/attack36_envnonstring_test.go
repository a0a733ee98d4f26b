package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAttack36EnvArrayValueGrantRunsHiddenPath: b86d9ce says the value of
// every variable a restricted mode passes (PATH first) is shown. The
// request shows a value only when it is a JSON string, and env_sha256 binds
// fmt.Sprint(value): for exec_command asked through the decision endpoint
// (the runtime credential's), "env": {"PATH": ["/tmp:<ws>/.bin:"]} is shown
// as the bare name PATH, and its scope is the scope of POST /exec of the
// same command with the string PATH "[/tmp:<ws>/.bin:]" (what Sprint makes
// of the array). The person's allow_for_turn of the first (same tool, same
// scope_hash) lets the exec run unasked, and its /bin/sh looks up ls in
// "[/tmp", "<ws>/.bin", "]": the agent's ls runs.
//
// The control: an exec with the string PATH shows "PATH=[/tmp:<ws>/.bin:]".
func TestAttack36EnvArrayValueGrantRunsHiddenPath(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("t36-env", "ws", "auto_accept_edits", root)
	bin := filepath.Join(root, ".bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	pwned := filepath.Join(root, "pwned.txt")
	if err := os.WriteFile(filepath.Join(bin, "ls"), []byte("#!/bin/sh\necho agent-ls-ran > "+pwned+"\necho main.go src\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	show := func(id string) string {
		t.Helper()
		out, errOut, code := s.CLI("approvals", "show", id)
		if code != 0 {
			t.Fatalf("approvals show: %d %s", code, errOut)
		}
		return out
	}
	strPath := "[/tmp:" + bin + ":]"
	runBody := func(id string) map[string]any {
		return map[string]any{"tool_call_id": id, "cmd": "ls", "env": map[string]string{"PATH": strPath}}
	}

	// Control: the exec with the string PATH asks and shows its value.
	status, first := s.exec("t36-env", "", runBody("env-control"))
	if status != http.StatusAccepted || first.Decision != "ask" || first.Request == nil {
		t.Fatalf("control exec: %d %+v, want 202 ask", status, first)
	}
	ctl := show(first.Request.RequestID)
	if !strings.Contains(ctl, `PATH="`+strPath+`"`) {
		t.Fatalf("control: the exec's request does not show its PATH:\n%s", ctl)
	}
	m := regexp.MustCompile(`(?m)^\s*executable\s+(/\S+)`).FindStringSubmatch(ctl)
	if m == nil {
		t.Fatalf("control: no executable shown:\n%s", ctl)
	}
	exe := m[1]
	s.respond(first.Request.RequestID, "deny")

	// The agent asks through the decision endpoint, PATH as an array:
	// fixed, refused (a command's environment is strings), nothing asked,
	// and the exec with the string still asks.
	decide := func(turn, id string, env map[string]any) (int, []byte) {
		return s.Request("POST", "/v1/turns/"+turn+"/decisions", map[string]any{"tool_call_id": id, "tool_name": "exec_command",
			"arguments": map[string]any{"argv": []string{"/bin/sh", "-c", "ls"}, "executable": exe, "env": env}})
	}
	if st, raw := decide("t36-env", "env-asked", map[string]any{"PATH": []string{"/tmp:" + bin + ":"}}); st != http.StatusBadRequest {
		t.Errorf("a decision whose PATH is an array: %d %s, want 400", st, raw)
	}
	if status, run := s.exec("t36-env", "", runBody("env-run")); status != http.StatusAccepted || run.Ran || exists(pwned) {
		t.Errorf("the exec with the string PATH after the refused array: %d %+v (agent's ls ran: %v)", status, run, exists(pwned))
	}
}

// TestAttack36EnvArrayValueAllowOnceRunsHiddenPath: the same with the same
// tool_call_id and allow_once: the exec of the call the person allowed
// (shown "environment PATH") replays the approval, since its tool and scope
// hash are the decision's, and runs with the agent's PATH.
func TestAttack36EnvArrayValueAllowOnceRunsHiddenPath(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("t36-env1", "ws", "auto_accept_edits", root)
	bin := filepath.Join(root, ".bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	pwned := filepath.Join(root, "pwned.txt")
	if err := os.WriteFile(filepath.Join(bin, "ls"), []byte("#!/bin/sh\necho agent-ls-ran > "+pwned+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Control: a string value asks.
	if d := s.decide("t36-env1", "env1-ctl", "exec_command", map[string]any{"argv": []string{"/bin/sh", "-c", "true"},
		"executable": "/bin/sh", "env": map[string]any{"A": "x"}}); d.Decision != "ask" || d.Request == nil {
		t.Fatalf("control: %+v, want ask", d)
	}
	// Fixed: an array value is refused, so nothing is approved for the
	// call, and its exec asks.
	if st, raw := s.Request("POST", "/v1/turns/t36-env1/decisions", map[string]any{"tool_call_id": "env1", "tool_name": "exec_command",
		"arguments": map[string]any{"argv": []string{"/bin/sh", "-c", "ls"}, "executable": "/bin/sh", "env": map[string]any{"PATH": []string{"/tmp:" + bin + ":"}}}}); st != http.StatusBadRequest {
		t.Errorf("a decision whose PATH is an array: %d %s, want 400", st, raw)
	}
	status, run := s.exec("t36-env1", "", map[string]any{"tool_call_id": "env1", "cmd": "ls", "env": map[string]string{"PATH": "[/tmp:" + bin + ":]"}})
	if status != http.StatusAccepted || run.Ran || exists(pwned) {
		t.Errorf("the exec of the call: %d %+v (agent's ls ran: %v)", status, run, exists(pwned))
	}
}

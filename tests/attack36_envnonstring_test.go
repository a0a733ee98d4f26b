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
	if !strings.Contains(ctl, "PATH="+strPath) {
		t.Fatalf("control: the exec's request does not show its PATH:\n%s", ctl)
	}
	m := regexp.MustCompile(`(?m)^\s*executable\s+(/\S+)`).FindStringSubmatch(ctl)
	if m == nil {
		t.Fatalf("control: no executable shown:\n%s", ctl)
	}
	exe := m[1]
	s.respond(first.Request.RequestID, "deny")

	// The agent asks through the decision endpoint, PATH as an array.
	asked := s.decide("t36-env", "env-asked", "exec_command", map[string]any{
		"argv": []string{"/bin/sh", "-c", "ls"}, "executable": exe, "env": map[string]any{"PATH": []string{"/tmp:" + bin + ":"}}})
	if asked.Decision != "ask" || asked.Request == nil {
		t.Fatalf("the decision: %+v, want ask", asked)
	}
	shown := show(asked.Request.RequestID)
	if asked.ScopeHash != first.ScopeHash {
		t.Logf("scopes differ (%s vs %s): the array is bound apart from the string", asked.ScopeHash, first.ScopeHash)
		return // secure: no grant of the array covers the string
	}
	// The person allows what was shown.
	s.respond(asked.Request.RequestID, "allow_for_turn")
	status, run := s.exec("t36-env", "", runBody("env-run"))
	if !strings.Contains(shown, bin) && (run.Ran || exists(pwned)) {
		t.Errorf("allow_for_turn of a request that showed no PATH value ran the exec with PATH=%s unasked (%d, decision %s %s, ran %v, agent's ls ran: %v); the person read:\n%s",
			strPath, status, run.Decision, run.Reason, run.Ran, exists(pwned), shown)
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
	// Control: an array value for a name no restricted mode passes is
	// accepted and shown by name, as any value of it is.
	if d := s.decide("t36-env1", "env1-ctl", "exec_command", map[string]any{"argv": []string{"/bin/sh", "-c", "true"},
		"executable": "/bin/sh", "env": map[string]any{"A": []string{"x"}}}); d.Decision != "ask" || d.Request == nil {
		t.Fatalf("control: %+v, want ask", d)
	}
	asked := s.decide("t36-env1", "env1", "exec_command", map[string]any{
		"argv": []string{"/bin/sh", "-c", "ls"}, "executable": "/bin/sh", "env": map[string]any{"PATH": []string{"/tmp:" + bin + ":"}}})
	if asked.Decision != "ask" || asked.Request == nil {
		t.Fatalf("the decision: %+v, want ask", asked)
	}
	shown, errOut, code := s.CLI("approvals", "show", asked.Request.RequestID)
	if code != 0 {
		t.Fatalf("approvals show: %d %s", code, errOut)
	}
	s.respond(asked.Request.RequestID, "allow_once")
	status, run := s.exec("t36-env1", "", map[string]any{"tool_call_id": "env1", "cmd": "ls", "env": map[string]string{"PATH": "[/tmp:" + bin + ":]"}})
	if !strings.Contains(shown, bin) && (run.Ran || exists(pwned)) {
		t.Errorf("allow_once of a request that showed no PATH value ran the exec of the same call with the agent's PATH (%d, %s %s, ran %v, agent's ls ran %v); the person read:\n%s",
			status, run.Decision, run.Reason, run.Ran, exists(pwned), shown)
	}
}

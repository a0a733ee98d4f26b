package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// approvalDetails reads the details of one approval request as label=value.
func (s *Server) approvalDetails(requestID string) string {
	s.t.Helper()
	var a struct {
		Request struct {
			Details []struct{ Label, Value string } `json:"details"`
		} `json:"request"`
	}
	s.JSON("GET", "/v1/approvals/"+requestID, nil, http.StatusOK, &a)
	var b strings.Builder
	for _, d := range a.Request.Details {
		b.WriteString(d.Label + "=" + d.Value + ";")
	}
	return b.String()
}

// TestExecApprovalBindsWhatRuns: an approval binds stdin, the environment
// and the executable resolved from the policy's PATH. Attacks: another
// stdin under an approved tool call id (409, nothing runs); a workspace
// directory first on the request's PATH (not the granted scope, and once
// approved the policy path's ls runs, never the workspace's). Controls: the
// identical resend runs; a new id with the granted scope is a cached approval.
func TestExecApprovalBindsWhatRuns(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("bind", "ws", "auto_accept_edits", root)
	marker := filepath.Join(root, "pwned")

	harmless := map[string]any{"tool_call_id": "sh", "argv": []string{"/bin/sh", "-s"}, "stdin": "echo harmless\n", "env": map[string]string{"LANG": "C"}}
	status, first := s.exec("bind", "", harmless)
	if status != http.StatusAccepted || first.Request == nil {
		t.Fatalf("first: %d %+v", status, first)
	}
	details := s.approvalDetails(first.Request.RequestID)
	for _, want := range []string{"Executable=/bin/sh", "Standard input=14 bytes", "Environment=LANG"} {
		if !strings.Contains(details, want) {
			t.Errorf("the approver does not see %q: %s", want, details)
		}
	}
	if strings.Contains(details, "harmless") {
		t.Errorf("stdin shown in clear: %s", details)
	}
	s.respond(first.Request.RequestID, "allow_once")
	for name, change := range map[string]func(map[string]any){
		"stdin": func(b map[string]any) { b["stdin"] = "touch " + marker + "\n" },
		"env":   func(b map[string]any) { b["env"] = map[string]string{"LANG": "C", "ENV": marker} },
		"cwd":   func(b map[string]any) { b["cwd"] = "/tmp" },
	} {
		evil := map[string]any{}
		for k, v := range harmless {
			evil[k] = v
		}
		change(evil)
		st, raw := s.Request("POST", "/v1/turns/bind/exec", evil)
		wantError(t, st, raw, http.StatusConflict, "tool_call_reused")
		if exists(marker) {
			t.Fatalf("a resend with another %s ran", name)
		}
	}
	status, run := s.exec("bind", "", harmless)
	if status != http.StatusOK || !run.Ran || run.Result.Stdout != "harmless\n" || run.Reason != "user_approved" {
		t.Fatalf("identical resend: %d %+v", status, run)
	}

	evilbin := filepath.Join(root, "evilbin")
	if err := os.MkdirAll(evilbin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(evilbin, "ls"), []byte("#!/bin/sh\ntouch "+marker+"\necho EVIL-LS-RAN\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	pathEnv := map[string]string{"PATH": "/usr/bin:/bin"}
	status, g := s.exec("bind", "", map[string]any{"tool_call_id": "ls1", "argv": []string{"ls"}, "env": pathEnv})
	if status != http.StatusAccepted {
		t.Fatalf("ls: %d %+v", status, g)
	}
	s.respond(g.Request.RequestID, "allow_for_turn")
	if _, run = s.exec("bind", "", map[string]any{"tool_call_id": "ls1", "argv": []string{"ls"}, "env": pathEnv}); !run.Ran {
		t.Fatalf("approved ls: %+v", run)
	}
	if _, run = s.exec("bind", "", map[string]any{"tool_call_id": "ls2", "argv": []string{"ls"}, "env": pathEnv}); !run.Ran || run.Reason != "cached_approval" {
		t.Fatalf("control, same scope under a new id: %+v", run)
	}
	evilEnv := map[string]string{"PATH": evilbin + ":/usr/bin"}
	status, d := s.exec("bind", "", map[string]any{"tool_call_id": "ls3", "argv": []string{"ls"}, "env": evilEnv})
	if status != http.StatusAccepted || d.Ran || d.Reason == "cached_approval" || d.ScopeHash == g.ScopeHash {
		t.Fatalf("a workspace PATH rode the ls grant: %d %+v", status, d)
	}
	s.respond(d.Request.RequestID, "allow_once")
	_, run = s.exec("bind", "", map[string]any{"tool_call_id": "ls3", "argv": []string{"ls"}, "env": evilEnv})
	if !run.Ran || exists(marker) || strings.Contains(run.Result.Stdout, "EVIL-LS-RAN") || !strings.Contains(run.Result.Stdout, "a.txt") {
		t.Fatalf("approved call with a workspace PATH: %+v %+v, workspace ls ran: %v", run, run.Result, exists(marker))
	}
}

// TestResolvedCallAnswers: once its request is resolved, a call is answered
// with what the runtime should do, the same on /decisions and /exec: allow
// (user_approved), or deny with user_denied or cancelled.
func TestResolvedCallAnswers(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("ans", "ws", "supervised", root)
	args := func(word string) map[string]any { return map[string]any{"argv": []string{"echo", word}} }
	for _, tc := range []struct{ call, resolution, decision, reason string }{
		{"yes", "allow_once", "allow", "user_approved"},
		{"no", "deny", "deny", "user_denied"},
	} {
		if d := s.decide("ans", tc.call, "exec_command", args(tc.call)); d.Decision != "ask" {
			t.Fatalf("%s: %+v", tc.call, d)
		} else {
			s.respond(d.Request.RequestID, tc.resolution)
		}
		if d := s.decide("ans", tc.call, "exec_command", args(tc.call)); d.Decision != tc.decision || d.Reason != tc.reason || d.RequestStatus != "resolved" {
			t.Errorf("/decisions after %s: %+v", tc.resolution, d)
		}
	}
	_, d := s.exec("ans", "", map[string]any{"tool_call_id": "x", "argv": []string{"echo", "x"}})
	s.respond(d.Request.RequestID, "deny")
	if _, d = s.exec("ans", "", map[string]any{"tool_call_id": "x", "argv": []string{"echo", "x"}}); d.Ran || d.Decision != "deny" || d.Reason != "user_denied" {
		t.Errorf("/exec after deny: %+v", d)
	}
	_, open := s.exec("ans", "", map[string]any{"tool_call_id": "c", "argv": []string{"echo", "c"}})
	s.decide("ans", "cd", "exec_command", args("cd"))
	s.JSON("POST", "/v1/turns/ans/complete", nil, http.StatusOK, nil)
	if _, d = s.exec("ans", "", map[string]any{"tool_call_id": "c", "argv": []string{"echo", "c"}}); d.Ran || d.Decision != "deny" || d.Reason != "cancelled" || open.Request == nil {
		t.Errorf("/exec after the turn ended: %+v", d)
	}
	if d := s.decide("ans", "cd", "exec_command", args("cd")); d.Decision != "deny" || d.Reason != "cancelled" {
		t.Errorf("/decisions after the turn ended: %+v", d)
	}
}

// TestEndingParentEndsChildrenE2E: completing a parent ends its child: the
// child's pending exec request is cancelled, approving it afterwards fails,
// the same call does not run, and the child is no longer in_progress.
// Control: a child of a live parent runs its approved exec.
func TestEndingParentEndsChildrenE2E(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("par", "ws", "full_access", root)
	child := func(id string) {
		s.JSON("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "t", "workspace_root": root,
			"parent_turn_id": "par", "permission_profile": map[string]any{"mode": "supervised"}}, http.StatusCreated, nil)
	}
	child("kid")
	child("ctl")
	marker := filepath.Join(root, "kid-ran")
	body := map[string]any{"tool_call_id": "k", "argv": []string{"sh", "-c", "echo ran > " + marker}}
	status, pending := s.exec("kid", "", body)
	if status != http.StatusAccepted {
		t.Fatalf("child exec: %d %+v", status, pending)
	}
	ctl := s.execApproved("ctl", "k", map[string]any{"argv": []string{"echo", "control"}})
	if !ctl.Ran || ctl.Result.Stdout != "control\n" {
		t.Fatalf("control child: %+v", ctl)
	}
	s.JSON("POST", "/v1/turns/par/complete", nil, http.StatusOK, nil)
	if st := s.turn("kid").Turn.Status; st != "completed" {
		t.Fatalf("child is %s after its parent completed", st)
	}
	st, raw := s.Request("POST", "/v1/approvals/"+pending.Request.RequestID+"/respond", map[string]string{"resolution": "allow_once"})
	if st == http.StatusOK {
		t.Fatalf("approving the child's request after its parent completed: %d %s", st, raw)
	}
	if _, d := s.exec("kid", "", body); d.Ran || d.Decision != "deny" || d.Reason != "cancelled" || exists(marker) {
		t.Fatalf("child exec after the parent completed: %+v", d)
	}
}

// TestCommandSecretsRedacted: secrets inside a command never appear in the
// store, the events, the audit, the timeline, the approvals or the answer,
// while the command stays recognisable; the scope hash still binds the
// exact argv (another token is another scope).
func TestCommandSecretsRedacted(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("sec", "ws", "supervised", root)
	secrets := []string{"S3cretBearerX", "QtokenYY", "hunter2pw", "ghp_abcdefghijklmnopqrstuvwxyz0123", "urlpassw0rd", "sk-proj-abcdefghijklmnop1234"}
	argv := []string{"curl", "-H", "Authorization: Bearer S3cretBearerX", "https://bob:urlpassw0rd@h.example/p?token=QtokenYY",
		"--password=hunter2pw", "ghp_abcdefghijklmnopqrstuvwxyz0123", "-d", "key=sk-proj-abcdefghijklmnop1234"}
	var bodies []string
	status, d := s.exec("sec", "", map[string]any{"tool_call_id": "curl", "argv": argv})
	if status != http.StatusAccepted {
		t.Fatalf("exec: %d %+v", status, d)
	}
	b, _ := json.Marshal(d)
	bodies = append(bodies, string(b))
	s.respond(d.Request.RequestID, "deny")
	shell := `curl -H "Authorization: Bearer S3cretBearerX" "https://h.example/?token=QtokenYY" --password hunter2pw`
	dd := s.decide("sec", "shell", "exec_command", map[string]any{"cmd": shell})
	other := s.decide("sec", "other", "exec_command", map[string]any{"argv": append(append([]string{}, argv[:2]...), "Authorization: Bearer another")})
	if other.ScopeHash == d.ScopeHash || dd.ScopeHash == "" {
		t.Fatal("the scope hash does not bind the exact argv")
	}
	for _, path := range []string{"/v1/turns/sec/events", "/v1/turns/sec/audit", "/v1/turns/sec/timeline", "/v1/approvals?status=all&turn_id=sec", "/v1/turns/sec"} {
		_, raw := s.Request("GET", path, nil)
		bodies = append(bodies, string(raw))
	}
	err := filepath.Walk(s.Data, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			raw, err := os.ReadFile(p)
			if err == nil {
				bodies = append(bodies, string(raw))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(bodies, "\n")
	for _, sec := range secrets {
		if strings.Contains(all, sec) {
			i := strings.Index(all, sec)
			t.Errorf("%q recorded in clear: …%s…", sec, all[max(0, i-80):min(len(all), i+40)])
		}
	}
	// Control: the searched text holds the command's shape (the grep is not vacuous).
	for _, want := range []string{"h.example", "Authorization", "curl", "--password="} {
		if !strings.Contains(all, want) {
			t.Errorf("%q is nowhere: the redaction hides too much or the search reads nothing", want)
		}
	}
}

// TestAuditRedactsCredentialStore: the directory that marks a credential
// store is itself redacted in audit rows (…/[redacted:…], not
// …/.ssh/[redacted:…]); a path outside any store is shown as is.
func TestAuditRedactsCredentialStore(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("aud", "ws", "supervised", root)
	s.decide("aud", "k", "read_file", map[string]any{"path": "/home/agent/.ssh/id_ed25519"})
	s.decide("aud", "p", "apply_patch", map[string]any{"patch": "*** Add File: " + root + "/.aws/credentials\n+x\n"})
	s.decide("aud", "ok", "read_file", map[string]any{"path": filepath.Join(root, "a.txt")})
	_, raw := s.Request("GET", "/v1/turns/aud/audit", nil)
	// The security snapshot lists the credential stores themselves (as
	// sensitive_path entries: policy, not what the agent touched); every
	// other event is searched.
	list, _ := s.events("aud")
	var evs strings.Builder
	for _, e := range list {
		if e.Type != "permission.security_snapshot_resolved" {
			evs.Write(e.Data)
		}
	}
	for _, body := range []string{string(raw), evs.String()} {
		for _, leak := range []string{".ssh", "id_ed25519", ".aws", "credentials"} {
			if strings.Contains(body, leak) {
				t.Errorf("%q shown: %s", leak, body)
			}
		}
		if !strings.Contains(body, "/home/agent/[redacted:") || !strings.Contains(body, filepath.Join(root, "a.txt")) {
			t.Errorf("the location or the ordinary path is lost: %s", body)
		}
	}
}

// TestExecApprovalRevokedByNarrowing: an approved exec that has not run is
// decided again when it runs; a profile change that denies exec_command
// revokes it. Control: the same flow without the change runs.
func TestExecApprovalRevokedByNarrowing(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	marker := filepath.Join(root, "ran")
	for _, narrow := range []bool{false, true} {
		id := map[bool]string{false: "keep", true: "narrow"}[narrow]
		s.startTurn(id, "ws", "auto_accept_edits", root)
		body := map[string]any{"tool_call_id": "c", "argv": []string{"sh", "-c", "echo " + id + " >> " + marker}}
		_, first := s.exec(id, "", body)
		s.respond(first.Request.RequestID, "allow_once")
		if narrow {
			s.JSON("POST", "/v1/turns/"+id+"/permissions", map[string]any{"permission_profile": map[string]any{
				"mode": "auto_accept_edits", "denied_tools": []string{"exec_command"}}}, http.StatusOK, nil)
		}
		_, d := s.exec(id, "", body)
		if d.Ran != !narrow {
			t.Fatalf("%s: ran %v: %+v", id, d.Ran, d)
		}
		if narrow && (d.Decision != "deny" || d.Reason != "policy_denies_action" || d.Refusal != "permissions_changed") {
			t.Fatalf("revoked call: %+v", d)
		}
	}
	if b, err := os.ReadFile(marker); err != nil || string(b) != "keep\n" {
		t.Fatalf("marker %q %v", b, err)
	}
}

// TestExecUnresolvableCommandRefused: a bare name the policy's search path
// does not hold is refused before anything runs, even when the request's
// PATH would find it; control: a name on the search path runs.
func TestExecUnresolvableCommandRefused(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("nf", "ws", "full_access", root)
	marker := filepath.Join(root, "ran")
	if err := os.WriteFile(filepath.Join(root, "only-here"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, d := s.exec("nf", "", map[string]any{"tool_call_id": "x", "argv": []string{"only-here"}, "env": map[string]string{"PATH": root}})
	if d.Ran || d.Decision != "deny" || d.Reason != "sandbox_denied" || d.Refusal != "command_not_found" || exists(marker) {
		t.Fatalf("unresolvable command: %+v", d)
	}
	if _, d = s.exec("nf", "", map[string]any{"tool_call_id": "y", "argv": []string{"true"}}); !d.Ran || d.Result.ExitCode != 0 {
		t.Fatalf("control: %+v", d)
	}
}

// TestExecCwdResolvedAsTheKernelDoes: "lnk/.." is the parent of the
// symlink's target for the kernel, not the directory lnk sits in. An
// attack review had the approver shown the workspace root while the
// command ran in another root of the turn, and an allow_for_turn for it
// then covered the same command in the root too. Now the approver sees the
// directory the command runs in, the command runs there, and the same
// command in the root is another scope (it asks).
func TestExecCwdResolvedAsTheKernelDoes(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root, other := workspace(t), workspace(t)
	if err := os.MkdirAll(filepath.Join(other, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(other, "sub"), filepath.Join(root, "lnk")); err != nil {
		t.Fatal(err)
	}
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "cwdlink", "workspace_id": "ws", "thread_id": "t", "workspace_root": root,
		"project_roots": []string{other}, "permission_profile": map[string]any{"mode": "auto_accept_edits"}}, http.StatusCreated, nil)
	body := map[string]any{"tool_call_id": "c1", "argv": []string{"/bin/sh", "-c", "pwd -P"}, "cwd": "lnk/.."}
	status, first := s.exec("cwdlink", "", body)
	if status != http.StatusAccepted || first.Request == nil {
		t.Fatalf("first: %d %+v", status, first)
	}
	if details := s.approvalDetails(first.Request.RequestID); !strings.Contains(details, other) || strings.Contains(details, "="+root+";") {
		t.Fatalf("the approver does not see the directory the command runs in (%s): %s", other, details)
	}
	s.respond(first.Request.RequestID, "allow_for_turn")
	status, ran := s.exec("cwdlink", "", body)
	if status != http.StatusOK || !ran.Ran || strings.TrimSpace(ran.Result.Stdout) != other {
		t.Fatalf("after approval: %d ran=%v stdout %q, want %s", status, ran.Ran, ran.Result.Stdout, other)
	}
	// The same command in the workspace root is not what was approved.
	status, inRoot := s.exec("cwdlink", "", map[string]any{"tool_call_id": "c2", "argv": []string{"/bin/sh", "-c", "pwd -P"}})
	if status != http.StatusAccepted || inRoot.Decision != "ask" || inRoot.Ran {
		t.Fatalf("the same command in the root: %d %+v, want 202 ask", status, inRoot)
	}
	// Control: the approved scope, again, through the same link.
	body["tool_call_id"] = "c3"
	if status, again := s.exec("cwdlink", "", body); status != http.StatusOK || !again.Ran {
		t.Fatalf("the approved scope again: %d %+v", status, again)
	}
}

// TestExecTurnCwdSwappedIsBound: another command swaps the turn's own cwd
// for a link to elsewhere; an exec without a cwd shows the approver the
// directory it will run in (the link's target), runs there, and is not
// the scope of the same command run before in the real directory. The
// control: before the swap, the approval shows the turn's cwd.
func TestExecTurnCwdSwappedIsBound(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	for _, d := range []string{"sub", "elsewhere"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "cwdswap", "workspace_id": "ws", "thread_id": "t", "workspace_root": root,
		"cwd": filepath.Join(root, "sub"), "permission_profile": map[string]any{"mode": "auto_accept_edits"}}, http.StatusCreated, nil)
	body := map[string]any{"tool_call_id": "s1", "argv": []string{"/bin/sh", "-c", "pwd -P"}}
	status, first := s.exec("cwdswap", "", body)
	if status != http.StatusAccepted || first.Request == nil {
		t.Fatalf("first: %d %+v", status, first)
	}
	if d := s.approvalDetails(first.Request.RequestID); !strings.Contains(d, filepath.Join(root, "sub")) {
		t.Fatalf("control: the approval does not show the turn's cwd: %s", d)
	}
	s.respond(first.Request.RequestID, "allow_for_turn")
	if err := os.Rename(filepath.Join(root, "sub"), filepath.Join(root, "sub.orig")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "elsewhere"), filepath.Join(root, "sub")); err != nil {
		t.Fatal(err)
	}
	body["tool_call_id"] = "s2"
	status, second := s.exec("cwdswap", "", body)
	if status != http.StatusAccepted || second.Request == nil || second.Ran {
		t.Fatalf("after the swap the grant covered the command: %d %+v", status, second)
	}
	if d := s.approvalDetails(second.Request.RequestID); !strings.Contains(d, filepath.Join(root, "elsewhere")) {
		t.Fatalf("after the swap the approver does not see where it runs: %s", d)
	}
	s.respond(second.Request.RequestID, "allow_once")
	if status, ran := s.exec("cwdswap", "", body); status != http.StatusOK || strings.TrimSpace(ran.Result.Stdout) != filepath.Join(root, "elsewhere") {
		t.Fatalf("after approval: %d %+v", status, ran)
	}
}

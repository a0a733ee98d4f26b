package tests

import (
	"net/http"
	"os"
	"strings"
	"testing"
)

// TestAttack111_SlashRootRunsAsKernelRoot (hundred-and-eleventh review,
// medium): the agent starts an auto_accept_edits turn with workspace_root
// "/" (nothing refuses it on a server without allowed_roots). Run keeps the
// command's uid 0 whenever the snapshot grants "/" itself for writing
// (run.go slashWritable: "nothing to take root's access away from"), so a
// restricted mode's command runs as the host's uid 0 (capabilities
// dropped, no user namespace), which the README's process row says it never
// does ("under a root server an unprivileged uid"), and the snapshot names
// no degradation. What uid 0 keeps without capabilities is every check made
// on the uid alone: the helper mounts a fresh procfs for the PID namespace
// and makes nothing read-only when "/" is writable, so /proc/sys is
// writable to the command, and /proc/sys/kernel/core_pattern (the host's:
// sysctls are global) runs a program of the command's choosing as the real
// root, in the host's namespaces, at the next crash of any process: the
// gateway's token, masked in the command's view, the server's memory, every
// deny entry. full_access makes /proc/sys read-only for exactly this reason
// (fullaccess.go, readOnlyProc); a restricted mode's uid-0 command gets
// nothing of the kind. The test writes core_pattern's own value back (no
// change to the host) and checks the write was accepted.
//
// Control: the same command in a turn rooted at an ordinary workspace runs
// as the sandbox uid, and the write is refused.
func TestAttack111_SlashRootRunsAsKernelRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the unprivileged sandbox uid is a root server's")
	}
	slashRootAlone(t)
	s := StartServer(t, "")
	agent := roAs(s, s.credential("agent", "runtime"))
	script := `id -u; v=$(cat /proc/sys/kernel/core_pattern) && printf '%s\n' "$v" > /proc/sys/kernel/core_pattern && echo CORE_PATTERN_WRITTEN`
	run := func(id, root string) (uid string, wrote bool) {
		agent.JSON("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id,
			"workspace_root": root, "cwd": root, "permission_profile": map[string]any{"mode": "auto_accept_edits"}}, http.StatusCreated, nil)
		call := map[string]any{"tool_call_id": "c", "argv": []string{"/bin/sh", "-c", script}, "cwd": root}
		var d decisionAnswer
		agent.JSON("POST", "/v1/turns/"+id+"/exec", call, http.StatusAccepted, &d)
		if d.Request == nil {
			t.Fatalf("premise: the shell command asked nobody: %+v", d)
		}
		s.respond(d.Request.RequestID, "allow_once")
		agent.JSON("POST", "/v1/turns/"+id+"/exec", call, http.StatusOK, &d)
		if !d.Ran || d.Result == nil {
			t.Fatalf("premise: turn %s did not run the command: %+v", id, d)
		}
		lines := strings.SplitN(d.Result.Stdout, "\n", 2)
		t.Logf("turn %s (root %s): stdout %q stderr %q; set aside: %+v", id, root, d.Result.Stdout, d.Result.Stderr, d.Result.Quarantined)
		return lines[0], strings.Contains(d.Result.Stdout, "CORE_PATTERN_WRITTEN")
	}
	// Control: an ordinary workspace.
	if uid, wrote := run("ws", workspace(t)); uid == "0" || wrote {
		t.Fatalf("control: an auto_accept_edits command in a workspace ran as uid %s (core_pattern written: %v)", uid, wrote)
	}
	uid, wrote := run("slash", "/")
	// A writable "/" cannot be idmapped: the command keeps the server's
	// uid, which the snapshot must then name (issue 9, item 7: "or the
	// snapshot says what is not enforced"; adjusted when fixed: the review
	// asserted uid != 0 alone).
	var turn struct {
		SecuritySnapshot struct {
			Enforcement struct {
				Status       string `json:"status"`
				Degradations []struct {
					Dimension string `json:"dimension"`
					Reason    string `json:"reason"`
				} `json:"degradations"`
			} `json:"enforcement"`
		} `json:"security_snapshot"`
	}
	s.JSON("GET", "/v1/turns/slash", nil, http.StatusOK, &turn)
	named := false
	for _, d := range turn.SecuritySnapshot.Enforcement.Degradations {
		named = named || d.Dimension == "filesystem" && strings.Contains(d.Reason, "keep the server's uid")
	}
	if uid == "0" && (!named || turn.SecuritySnapshot.Enforcement.Status == "active") {
		t.Errorf("an auto_accept_edits command of a turn rooted at / runs as the host's uid 0, and the snapshot does not say so: %+v", turn.SecuritySnapshot.Enforcement)
	}
	if wrote {
		t.Errorf("an auto_accept_edits command of a turn rooted at / wrote the host's /proc/sys/kernel/core_pattern (a program there runs as the real root)")
	}
}

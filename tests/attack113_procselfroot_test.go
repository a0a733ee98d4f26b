package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack113_ProcSelfRootWholeTree (hundred-and-thirteenth review,
// end to end): the agent starts an auto_accept_edits turn with
// workspace_root "/proc/self/root" (and its real workspace as a project
// root and cwd). Nothing refuses the root (no allowed_roots); the snapshot
// keeps it as written (resolved_path "/proc/self/root"), so Run's
// slashWritable does not see "/" and the command drops to the sandbox uid,
// and the snapshot names no degradation. The sandbox then canonicalises the
// root where the magic link leads, "/": the command's view holds the whole
// tree writable (holdsWholeTree), and since its uid is not 0,
// hardenWholeTree does only the secrets: the host's /dev stays, without
// nodev, inside a writable root Landlock opens entirely. The command writes
// wherever "other" may write on the host, outside every root the turn
// named (a 0777 directory elsewhere, /var/tmp, /dev/shm), and opens every
// device "other" may open (/dev/net/tun, /dev/fuse). The README's files row:
// "writes only under its writable roots", "no device file in a writable
// root opens".
//
// The writes outside the named roots are what a "/"-rooted turn has too (the
// agent may start one without allowed_roots, and allowed_roots refuses
// both); the gap is the view's hardening: a "/"-rooted turn's command gets
// a /dev of harmless nodes and nodev everywhere, this one the host's /dev.
//
// Control: the same command in a turn rooted at the workspace itself writes
// nothing outside it and opens no device.
func TestAttack113_ProcSelfRootWholeTree(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the sandbox uid is a root server's")
	}
	outside, err := os.MkdirTemp("/var/tmp", "turnstile-outside-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	os.Chmod(outside, 0o777)
	dev := ""
	if st, err := os.Stat("/dev/net/tun"); err == nil && st.Mode()&os.ModeCharDevice != 0 && st.Mode().Perm()&0o006 == 0o006 {
		dev = "/dev/net/tun"
	}
	slashRootAlone(t)
	s := StartServer(t, "")
	agent := roAs(s, s.credential("agent", "runtime"))
	run := func(id, root, ws, mark string) string {
		agent.JSON("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id,
			"workspace_root": root, "cwd": ws, "project_roots": []string{ws},
			"permission_profile": map[string]any{"mode": "auto_accept_edits"}}, http.StatusCreated, nil)
		script := "id -u; echo x > " + filepath.Join(outside, mark) + " && echo WROTE_OUTSIDE"
		if dev != "" {
			script += "; test -c " + dev + " && (exec 3<" + dev + ") && echo OPENED_DEVICE"
		}
		call := map[string]any{"tool_call_id": "c", "argv": []string{"/bin/sh", "-c", script}, "cwd": ws}
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
		t.Logf("turn %s (root %s): stdout %q stderr %q", id, root, d.Result.Stdout, d.Result.Stderr)
		return d.Result.Stdout
	}
	ws := workspace(t)
	// Control: a turn rooted at its workspace.
	if out := run("plain", ws, ws, "plain"); strings.Contains(out, "WROTE_OUTSIDE") || strings.Contains(out, "OPENED_DEVICE") {
		t.Fatalf("control: an ordinary turn's command wrote outside its roots or opened a device: %s", out)
	}
	var turn struct {
		SecuritySnapshot struct {
			Enforcement struct {
				Status       string `json:"status"`
				Degradations []any  `json:"degradations"`
			} `json:"enforcement"`
		} `json:"security_snapshot"`
	}
	out := run("procroot", "/proc/self/root", ws, "procroot")
	s.JSON("GET", "/v1/turns/procroot", nil, http.StatusOK, &turn)
	// The whole tree is the command's (as it is a "/"-rooted turn's, which
	// the agent may start too without allowed_roots): context, not the
	// finding.
	t.Logf("wrote outside the named roots: %v; enforcement %+v", strings.Contains(out, "WROTE_OUTSIDE"), turn.SecuritySnapshot.Enforcement)
	if dev == "" {
		t.Skip("no device every user may open on this host: nothing to check")
	}
	if strings.Contains(out, "OPENED_DEVICE") {
		t.Errorf("a command of a turn rooted at /proc/self/root (the whole tree, as the sandbox uid, no degradation named) opened the host's %s: a \"/\"-rooted turn's command has a /dev of harmless nodes, an ordinary one none", dev)
	}
}

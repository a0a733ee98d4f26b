package tests

import (
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
)

// pathTree is a workspace with a link out of it (d -> outside/sub), a link
// into .git/hooks (h), a link inside (in -> sub/deeper), src/ with a link
// to private/ (src/link), and an outside directory holding secret.txt.
type pathTree struct{ ws, out string }

func newPathTree(t *testing.T) pathTree {
	t.Helper()
	base := workspace(t)
	pt := pathTree{ws: base + "/ws", out: base + "/outside"}
	for _, d := range []string{pt.ws + "/sub/deeper", pt.ws + "/.git/hooks", pt.ws + "/src", pt.ws + "/private", pt.out + "/sub"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{pt.out + "/secret.txt", pt.ws + "/private/notes.txt", pt.ws + "/src/main.go", pt.ws + "/.git/config", pt.ws + "/a.txt"} {
		if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"d": pt.out + "/sub", "h": ".git/hooks", "in": "sub/deeper", "src/link": pt.ws + "/private", "link-out": pt.out} {
		if err := os.Symlink(target, pt.ws+"/"+link); err != nil {
			t.Fatal(err)
		}
	}
	return pt
}

func patchOf(op, path string) map[string]any {
	return map[string]any{"patch": "*** " + op + " File: " + path + "\n+x\n"}
}

func wantDecision(t *testing.T, what string, d decisionAnswer, decision, reason, refusal string) {
	t.Helper()
	if d.Decision != decision || d.Reason != reason || d.Refusal != refusal {
		t.Errorf("%s: got %s/%s/%s (%s), want %s/%s/%s", what, d.Decision, d.Reason, d.Refusal, d.Message, decision, reason, refusal)
	}
}

// TestDecisionPathsResolveLikeTheKernel: ".." after a symlink, allowed_paths
// through a link, a future root under a link that leads out, and a missing
// read, decided through the server; each paired with the allowed control.
func TestDecisionPathsResolveLikeTheKernel(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	pt := newPathTree(t)
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "p", "workspace_id": "ws", "thread_id": "th", "workspace_root": pt.ws,
		"project_roots":      []string{pt.ws + "/link-out/future", pt.ws + "/real/future"},
		"permission_profile": map[string]any{"mode": "auto_accept_edits"}}, http.StatusCreated, nil)

	// 1. ".." after a symlink is applied to where the link leads.
	wantDecision(t, "read d/../secret.txt", s.decide("p", "r1", "read_file", map[string]any{"path": "d/../secret.txt"}), "deny", "sandbox_denied", "symlink_escape")
	wantDecision(t, "patch d/../pwn.txt", s.decide("p", "w1", "apply_patch", patchOf("Add", "d/../pwn.txt")), "deny", "sandbox_denied", "symlink_escape")
	wantDecision(t, "patch h/../config", s.decide("p", "w2", "apply_patch", patchOf("Update", "h/../config")), "deny", "sandbox_denied", "write_requires_writable_root")
	wantDecision(t, "read in/../a.txt (control)", s.decide("p", "r2", "read_file", map[string]any{"path": "in/../deeper"}), "allow", "policy_allows_action", "")
	wantDecision(t, "patch d/../../ws/new.txt (control)", s.decide("p", "w3", "apply_patch", patchOf("Add", "d/../../ws/new.txt")), "allow", "policy_allows_action", "")

	// 3. A future root under a link that leads out is no root out there.
	wantDecision(t, "future root through a link", s.decide("p", "w4", "apply_patch", patchOf("Add", "link-out/future/x.txt")), "deny", "sandbox_denied", "symlink_escape")
	wantDecision(t, "future root (control)", s.decide("p", "w5", "apply_patch", patchOf("Add", pt.ws+"/real/future/x.txt")), "allow", "policy_allows_action", "")

	// 4. A missing read is missing_path, judged as a read.
	wantDecision(t, "read src/missing.txt", s.decide("p", "r3", "read_file", map[string]any{"path": "src/missing.txt"}), "deny", "sandbox_denied", "missing_path")
	wantDecision(t, "read a missing file under /etc", s.decide("p", "r4", "read_file", map[string]any{"path": "/etc/turnstile-missing"}), "deny", "sandbox_denied", "missing_path")
	wantDecision(t, "read src/main.go (control)", s.decide("p", "r5", "read_file", map[string]any{"path": "src/main.go"}), "allow", "policy_allows_action", "")

	// 2. allowed_paths applies to the resolved path.
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "ap", "workspace_id": "ws", "thread_id": "th", "workspace_root": pt.ws,
		"permission_profile": map[string]any{"mode": "auto_accept_edits", "allowed_paths": []string{pt.ws + "/src"}}}, http.StatusCreated, nil)
	d := s.decide("ap", "a1", "read_file", map[string]any{"path": "src/link/notes.txt"})
	if d.Decision != "deny" || d.DecidedBy != "allowed_paths" {
		t.Errorf("allowed_paths through src/link: %+v", d)
	}
	d = s.decide("ap", "a2", "read_file", map[string]any{"path": "src/main.go"})
	if d.Decision != "allow" {
		t.Errorf("allowed_paths control: %+v", d)
	}
}

// TestDecisionShowsTheResolvedPath: the approver and the audit see the path
// the kernel will open, not the path as written.
func TestDecisionShowsTheResolvedPath(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	pt := newPathTree(t)
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "sp", "workspace_id": "ws", "thread_id": "th", "workspace_root": pt.ws,
		"permission_profile": map[string]any{"mode": "supervised"}}, http.StatusCreated, nil)
	// (in/../new.txt, which the kernel takes to sub/new.txt and Codex to
	// new.txt, is refused since the twelfth review: see
	// TestAttack12PathsAsCodexResolvesThem.)
	d := s.decide("sp", "c1", "apply_patch", patchOf("Add", "in/new.txt"))
	resolved, lexical := pt.ws+"/sub/deeper/new.txt", pt.ws+"/in/new.txt"
	if d.Decision != "ask" || d.Request == nil || !strings.Contains(d.Request.Summary, resolved) || strings.Contains(d.Request.Summary, lexical) {
		t.Fatalf("approval request %+v, want it to name %s", d.Request, resolved)
	}
	var audit struct {
		Rows []map[string]any `json:"rows"`
	}
	pollUntil(t, "the audit row", func() bool {
		s.JSON("GET", "/v1/turns/sp/audit", nil, http.StatusOK, &audit)
		return len(audit.Rows) >= 3
	})
	_, raw := s.events("sp")
	if !strings.Contains(string(raw), resolved) {
		t.Errorf("events do not name the resolved path %s", resolved)
	}
}

// TestDecisionSensitivePaths: secrets the system read roots used to expose
// are refused, read and write, in every restricted mode; their neighbours
// stay readable.
func TestDecisionSensitivePaths(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	if err := os.Symlink("/etc/shadow", root+"/shadow"); err != nil {
		t.Fatal(err)
	}
	pid := strconv.Itoa(s.cmd.Process.Pid)
	for _, mode := range []string{"supervised", "auto_accept_edits"} {
		s.startTurn("sens-"+mode, "ws", mode, root)
		for i, p := range []string{"/proc/" + pid + "/environ", "/proc/self/environ", "/proc/thread-self/environ", "/proc/" + pid + "/mem",
			"/proc/kcore", "/etc/shadow", "/etc/gshadow", "shadow", "/root/.ssh/id_ed25519", "/home/bob/.aws/credentials",
			"/root/.config/gcloud/x", "/root/.netrc", "/root/.docker/config.json", "/root/.kube/config", "/root/.local/share/keyrings/k", "/root/.gnupg/x"} {
			id := mode + strconv.Itoa(i)
			wantDecision(t, mode+" read "+p, s.decide("sens-"+mode, "r"+id, "read_file", map[string]any{"path": p}), "deny", "sandbox_denied", "sensitive_path")
			wantDecision(t, mode+" write "+p, s.decide("sens-"+mode, "w"+id, "apply_patch", patchOf("Update", p)), "deny", "sandbox_denied", "sensitive_path")
		}
		for i, p := range []string{"/etc", "/proc", "/proc/self"} {
			wantDecision(t, mode+" grep "+p, s.decide("sens-"+mode, "g"+strconv.Itoa(i), "grep_files", map[string]any{"path": p, "pattern": "x"}), "deny", "sandbox_denied", "sensitive_path")
		}
		wantDecision(t, mode+" grep the workspace", s.decide("sens-"+mode, "g-ws", "grep_files", map[string]any{"path": ".", "pattern": "x"}), "allow", "policy_allows_action", "")
		for i, p := range []string{"/etc/passwd", "/proc/" + pid + "/status", "/proc/cpuinfo"} {
			wantDecision(t, mode+" read "+p, s.decide("sens-"+mode, "c"+strconv.Itoa(i), "read_file", map[string]any{"path": p}), "allow", "policy_allows_action", "")
		}
	}
	// A child turn keeps them.
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "sens-child", "workspace_id": "ws", "thread_id": "th", "parent_turn_id": "sens-supervised"}, http.StatusCreated, nil)
	wantDecision(t, "child read /etc/shadow", s.decide("sens-child", "c1", "read_file", map[string]any{"path": "/etc/shadow"}), "deny", "sandbox_denied", "sensitive_path")
	wantDecision(t, "child read /etc/passwd (control)", s.decide("sens-child", "c2", "read_file", map[string]any{"path": "/etc/passwd"}), "allow", "policy_allows_action", "")
	var snap struct {
		SecuritySnapshot struct {
			Sandbox struct {
				Filesystem struct {
					Entries []struct{ Kind, Path, Access, Provenance string }
				} `json:"filesystem"`
			} `json:"sandbox"`
		} `json:"security_snapshot"`
	}
	s.JSON("GET", "/v1/turns/sens-supervised", nil, http.StatusOK, &snap)
	shown := map[string]bool{}
	for _, e := range snap.SecuritySnapshot.Sandbox.Filesystem.Entries {
		if e.Kind == "sensitive_path" && e.Access == "deny" && e.Provenance == "system" {
			shown[e.Path] = true
		}
	}
	for _, p := range []string{"/proc/*/environ", "/etc/shadow", "/root/.ssh", "/home/*/.aws"} {
		if !shown[p] {
			t.Errorf("the snapshot does not show %s as a sensitive_path entry: %v", p, shown)
		}
	}
}

// TestDecisionRetryAfterSymlinkSwap: a retried tool_call_id is resolved
// again; when a symlink was re-pointed in between, the retry is a 409, not
// a replay of the allow given for the old target.
func TestDecisionRetryAfterSymlinkSwap(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	pt := newPathTree(t)
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "swap", "workspace_id": "ws", "thread_id": "th", "workspace_root": pt.ws,
		"permission_profile": map[string]any{"mode": "auto_accept_edits"}}, http.StatusCreated, nil)
	if err := os.Symlink(pt.ws+"/private", pt.ws+"/lnk"); err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"path": "lnk/notes.txt"}
	wantDecision(t, "first", s.decide("swap", "c1", "read_file", args), "allow", "policy_allows_action", "")
	if d := s.decide("swap", "c1", "read_file", args); !d.Replayed || d.Decision != "allow" {
		t.Fatalf("an unchanged retry is replayed: %+v", d)
	}
	if err := os.Remove(pt.ws + "/lnk"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(pt.out, pt.ws+"/lnk"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pt.out+"/notes.txt", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, body := s.Request("POST", "/v1/turns/swap/decisions", map[string]any{"tool_call_id": "c1", "tool_name": "read_file", "arguments": args})
	wantError(t, st, body, http.StatusConflict, "tool_call_reused")
	// A new call for the same text is judged on the new target.
	wantDecision(t, "new call", s.decide("swap", "c2", "read_file", args), "deny", "sandbox_denied", "symlink_escape")
}

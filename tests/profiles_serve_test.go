package tests

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// servedProfiles is a profiles file for the served tests: "dev" can run
// commands (no glob, no domain rule: nothing the kernel cannot enforce),
// "envdeny" denies **/*.env (decided, but not kernel-enforced).
const servedProfiles = `
[permissions.dev]
extends = ":workspace"
[permissions.dev.filesystem.":workspace_roots"]
"secret" = "deny"
"docs" = "read"
[permissions.dev.approvals]
policy = "auto_accept_edits"

[permissions.envdeny]
extends = ":workspace"
[permissions.envdeny.filesystem]
"**/*.env" = "deny"
[permissions.envdeny.network]
enabled = true
mode = "limited"
[permissions.envdeny.network.domains]
"example.com" = "allow"
`

func profileWorkspace(t *testing.T) string {
	root := workspace(t)
	for _, d := range []string{"secret", "docs", "web"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	os.WriteFile(filepath.Join(root, "secret", "key"), []byte("k\n"), 0o600)
	os.WriteFile(filepath.Join(root, "docs", "guide.md"), []byte("g\n"), 0o644)
	os.WriteFile(filepath.Join(root, "web", ".env"), []byte("E=1\n"), 0o600)
	return root
}

func startProfileTurn(s *Server, id, root string, profile map[string]any) (int, []byte) {
	return s.Do("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id,
		"workspace_root": root, "permission_profile": profile})
}

func patch(path string) map[string]any {
	return map[string]any{"patch": "*** Begin Patch\n*** Add File: " + path + "\n+x\n*** End Patch\n"}
}

// TestServedProfileDecideExecExplain: a turn selects a profile of the
// served file; decisions, the snapshot and a sandboxed command follow its
// rules, and the CLI explains them the same way.
func TestServedProfileDecideExecExplain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "profiles.toml")
	os.WriteFile(file, []byte(servedProfiles), 0o644)
	s := StartServer(t, "", "--profiles", file)
	root := profileWorkspace(t)

	status, body := startProfileTurn(s, "p1", root, map[string]any{"profile": "dev"})
	if status != http.StatusCreated {
		t.Fatalf("start with profile dev: %d %s", status, body)
	}
	var snap struct {
		SecuritySnapshot struct {
			PermissionProfile struct{ Mode, Profile string } `json:"permission_profile"`
			Sandbox           struct {
				Mode       string
				Filesystem struct {
					Rules []struct{ Key, Access, Origin string }
				}
			}
			Enforcement struct{ Status string }
		} `json:"security_snapshot"`
	}
	s.JSON("GET", "/v1/turns/p1", nil, http.StatusOK, &snap)
	ss := snap.SecuritySnapshot
	if ss.PermissionProfile.Profile != "dev" || ss.PermissionProfile.Mode != "auto_accept_edits" || ss.Sandbox.Mode != "workspace_write" || len(ss.Sandbox.Filesystem.Rules) == 0 {
		t.Fatalf("snapshot of profile dev: %+v", ss)
	}
	for _, c := range []struct {
		tool, want string
		args       map[string]any
	}{
		{"read_file", "deny", map[string]any{"path": "secret/key"}},
		{"read_file", "allow", map[string]any{"path": "docs/guide.md"}},
		{"apply_patch", "deny", patch("docs/new.md")},
		{"apply_patch", "deny", patch("secret/new")},
		{"apply_patch", "allow", patch("src/new.go")}, // control: the rest of the workspace is writable
		{"read_file", "allow", map[string]any{"path": "a.txt"}},
	} {
		d := s.decide("p1", c.tool+"-"+strings.ReplaceAll(strings.ReplaceAll(str(c.args["path"])+str(c.args["patch"]), "/", "_"), "\n", ""), c.tool, c.args)
		if d.Decision != c.want {
			t.Errorf("%s %v: %s (%s %s)", c.tool, c.args, d.Decision, d.Reason, d.Message)
		}
	}
	// A symlink inside the workspace to the denied directory is judged as
	// what it leads to.
	os.Symlink(filepath.Join(root, "secret"), filepath.Join(root, "innocent"))
	if d := s.decide("p1", "link", "read_file", map[string]any{"path": "innocent/key"}); d.Decision != "deny" {
		t.Fatalf("read through a symlink into a denied subtree: %+v", d)
	}

	if ss.Enforcement.Status != "active" {
		t.Fatalf("profile dev is fully enforceable, enforcement %q", ss.Enforcement.Status)
	}
	// exec: auto_accept_edits asks for commands; approve, then the kernel
	// holds the command to the profile: the denied subtree is unreadable,
	// the workspace writable.
	run := s.execApproved("p1", "cat-secret", map[string]any{"argv": []string{"sh", "-c", "cat secret/key; echo rc=$?; echo ok > made.txt && echo wrote"}})
	if run.Result == nil || strings.Contains(run.Result.Stdout, "k\n") || !strings.Contains(run.Result.Stdout, "wrote") {
		t.Fatalf("exec under profile dev: %+v %+v", run, run.Result)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "made.txt")); string(b) != "ok\n" {
		t.Fatalf("the workspace write did not land: %q", b)
	}
	// The attacker's next move: rename the denied directory (or its
	// contents) out from under the rule, or replace it, then read.
	run = s.execApproved("p1", "move-secret", map[string]any{"argv": []string{"sh", "-c",
		"mv secret moved 2>/dev/null; cat moved/key 2>/dev/null; mv secret/key k2 2>/dev/null; cat k2 2>/dev/null; " +
			"rm -rf secret 2>/dev/null; ln -s docs secret 2>/dev/null; echo done"}})
	if run.Result == nil || strings.Contains(run.Result.Stdout, "k\n") || !strings.Contains(run.Result.Stdout, "done") {
		t.Fatalf("moving the denied directory aside: %+v", run.Result)
	}
	if b, err := os.ReadFile(filepath.Join(root, "secret", "key")); err != nil || string(b) != "k\n" {
		t.Fatalf("the denied directory was changed from inside: %q %v", b, err)
	}

	status, body = startProfileTurn(s, "unknown", root, map[string]any{"profile": "nosuch"})
	if e := wantError(t, status, body, 400, "invalid_field"); !strings.Contains(e.Message, "no such profile (known: :danger-full-access, :read-only, :workspace, dev, envdeny)") {
		t.Fatalf("unknown profile: %s", e.Message)
	}

	// The CLI explains the same file the same way.
	out, _, code := runCLI(t, "profiles", "explain", "dev", "secret/key", "--file", file, "--cwd", root)
	if code != 0 || !strings.HasPrefix(out, "deny ") || !strings.Contains(out, `":workspace_roots/secret" = deny (profile dev`) {
		t.Fatalf("explain: %d %s", code, out)
	}
}

// TestServedProfileRefusals: globs and domain rules are reported, not
// claimed (the command is refused, the decision still applies them); an
// unknown name, a mode with a profile, and a profile outside the operator's
// list are 400s that append nothing.
func TestServedProfileRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "profiles.toml")
	os.WriteFile(file, []byte(servedProfiles), 0o644)
	cons := filepath.Join(dir, "constraints.toml")
	os.WriteFile(cons, []byte("allowed_profiles = [\"dev\", \"envdeny\", \":read-only\"]\nrequired_deny = [\":workspace_roots/docs\"]\n"), 0o644)
	s := StartServer(t, "", "--profiles", file, "--constraints", cons)
	root := profileWorkspace(t)

	if status, body := startProfileTurn(s, "g", root, map[string]any{"profile": "envdeny"}); status != http.StatusCreated {
		t.Fatalf("start envdeny: %d %s", status, body)
	}
	if d := s.decide("g", "env", "read_file", map[string]any{"path": "web/.env"}); d.Decision != "deny" {
		t.Fatalf("**/*.env at decision time: %+v", d)
	}
	if d := s.decide("g", "post", "web_fetch", map[string]any{"url": "https://example.com/x", "method": "POST"}); d.Decision != "deny" {
		t.Fatalf("POST under a limited network: %+v", d)
	}
	var g struct {
		SecuritySnapshot struct {
			Enforcement struct {
				Status       string
				Degradations []struct{ Dimension, Reason string }
			}
		} `json:"security_snapshot"`
	}
	s.JSON("GET", "/v1/turns/g", nil, http.StatusOK, &g)
	e := g.SecuritySnapshot.Enforcement
	// Domain rules are a degradation only where the egress proxy cannot
	// hold commands to them (it needs a root server).
	// The glob's existing matches are masked at spawn; files created later
	// stay a named (residual) degradation that does not stop commands.
	wantDegr, wantStatus := 2, "unavailable"
	if os.Geteuid() == 0 {
		wantDegr, wantStatus = 1, "partially_active"
	}
	if e.Status != wantStatus || len(e.Degradations) != wantDegr || !strings.Contains(e.Degradations[0].Reason, "**/*.env") ||
		!strings.Contains(e.Degradations[0].Reason, "after the spawn") {
		t.Fatalf("globs (and, without the egress proxy, domain rules) must be reported: %+v", e)
	}
	if wantStatus == "unavailable" {
		status, body := s.Request("POST", "/v1/turns/g/exec", map[string]any{"tool_call_id": "x", "argv": []string{"true"}})
		if status == http.StatusOK && strings.Contains(string(body), `"ran":true`) {
			t.Fatalf("a command ran under an unenforceable profile: %s", body)
		}
	}

	// The operator's required deny binds a profile that makes docs readable.
	if status, body := startProfileTurn(s, "d", root, map[string]any{"profile": "dev"}); status != http.StatusCreated {
		t.Fatalf("start dev: %d %s", status, body)
	}
	if d := s.decide("d", "docs", "read_file", map[string]any{"path": "docs/guide.md"}); d.Decision != "deny" {
		t.Fatalf("required deny reopened by the profile: %+v", d)
	}

	for _, c := range []struct {
		id      string
		profile map[string]any
		want    string
	}{
		{"r1", map[string]any{"profile": "nosuch"}, "allowed_profiles: dev, envdeny, :read-only"},
		{"r2", map[string]any{"mode": "supervised", "profile": "dev"}, "not both"},
		{"r3", map[string]any{"profile": ":workspace"}, "allowed_profiles: dev, envdeny, :read-only"},
		{"r4", map[string]any{"mode": "full_access"}, "allowed_profiles"},
	} {
		status, body := startProfileTurn(s, c.id, root, c.profile)
		e := wantError(t, status, body, 400, "invalid_field")
		if !strings.Contains(e.Message, c.want) {
			t.Errorf("%v: %s", c.profile, e.Message)
		}
		if status, _ := s.Do("GET", "/v1/turns/"+c.id, nil); status != 404 {
			t.Errorf("%v: a refused start created the turn", c.profile)
		}
	}
	// A mid-turn change cannot escape the list either.
	status, body := s.Do("POST", "/v1/turns/d/permissions", map[string]any{"permission_profile": map[string]any{"mode": "full_access"}})
	if e := wantError(t, status, body, 400, "invalid_field"); !strings.Contains(e.Message, "allowed_profiles") {
		t.Fatalf("mid-turn escape: %s", e.Message)
	}
}

// TestServeRefusesAnInvalidProfilesFile: the server does not start, and
// says which file, line, profile and key.
func TestServeRefusesAnInvalidProfilesFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "profiles.toml")
	os.WriteFile(file, []byte("[permissions.dev.filesystem]\n\"**/*.env\" = \"write\"\n"), 0o644)
	cmd := exec.Command(bin, "serve", "--data", filepath.Join(dir, "data"), "--listen", "127.0.0.1:0", "--profiles", file)
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("serve started on an invalid profiles file")
	}
	if err == nil || !strings.Contains(string(out), file+`:2: profile "dev": filesystem."**/*.env": a glob is allowed only with deny`) {
		t.Fatalf("serve on an invalid file: %v\n%s", err, out)
	}
	cons := filepath.Join(dir, "c.toml")
	os.WriteFile(cons, []byte("allowed_profiles = [\"nope\"]\n"), 0o644)
	out, err = exec.Command(bin, "serve", "--data", filepath.Join(dir, "data"), "--listen", "127.0.0.1:0", "--constraints", cons).CombinedOutput()
	if err == nil || !strings.Contains(string(out), cons+`:1: allowed_profiles: no profile "nope"`) {
		t.Fatalf("serve on an invalid constraints file: %v\n%s", err, out)
	}
}

type explainAnswer struct {
	TurnID            string                         `json:"turn_id"`
	PermissionProfile struct{ Mode, Profile string } `json:"permission_profile"`
	ResolvedPath      string                         `json:"resolved_path"`
	Read, Write       *struct {
		Allowed bool
		Refusal string
		Message string
	}
	Rule *struct {
		Key, Access, Provenance, Origin string
		Locked                          bool
	}
	Network *struct {
		Allowed bool
		Refusal string
	}
}

// TestExplainLiveTurn: GET /v1/turns/{id}/explain answers for a live turn
// what the CLI answers offline: the decision (read and write), the path it
// judged (through symlinks) and the profile rule; for a mode turn, the
// decision without a rule; a URL with its method.
func TestExplainLiveTurn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "profiles.toml")
	os.WriteFile(file, []byte(servedProfiles), 0o644)
	s := StartServer(t, "", "--profiles", file)
	root := profileWorkspace(t)
	os.Symlink(filepath.Join(root, "web", ".env"), filepath.Join(root, "notes.txt"))
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	os.WriteFile(filepath.Join(root, ".git", "config"), []byte("[core]\n"), 0o644)
	if status, body := startProfileTurn(s, "x", root, map[string]any{"profile": "envdeny"}); status != http.StatusCreated {
		t.Fatalf("%d %s", status, body)
	}
	explain := func(q string) explainAnswer {
		var e explainAnswer
		s.JSON("GET", "/v1/turns/x/explain?"+q, nil, http.StatusOK, &e)
		return e
	}
	e := explain("path=notes.txt")
	if e.PermissionProfile.Profile != "envdeny" || e.Read.Allowed || e.Write.Allowed || e.ResolvedPath != filepath.Join(root, "web", ".env") ||
		e.Rule == nil || e.Rule.Key != "**/*.env" || e.Rule.Origin != "envdeny" {
		t.Fatalf("explain a symlink to a .env: %+v %+v %+v", e, e.Read, e.Rule)
	}
	e = explain("path=docs/guide.md")
	if !e.Read.Allowed || !e.Write.Allowed || e.Rule == nil || e.Rule.Key != ":workspace_roots" {
		t.Fatalf("control, an ordinary file: %+v %+v %+v", e.Read, e.Write, e.Rule)
	}
	e = explain("path=.git/config")
	if !e.Read.Allowed || e.Write.Allowed || e.Write.Refusal != "write_requires_writable_root" {
		t.Fatalf(".git/config: %+v %+v", e.Read, e.Write)
	}
	if e = explain("url=https://example.com/a&method=post"); e.Network.Allowed || e.Network.Refusal != "method_not_allowed" {
		t.Fatalf("POST under limited: %+v", e.Network)
	}
	if e = explain("url=https://example.com/a"); !e.Network.Allowed {
		t.Fatalf("GET to an allowed host: %+v", e.Network)
	}
	if e = explain("url=https://evil.example.net/"); e.Network.Allowed {
		t.Fatalf("a host outside the allow-list: %+v", e.Network)
	}
	s.startTurn("m", "ws", "supervised", root)
	var m explainAnswer
	s.JSON("GET", "/v1/turns/m/explain?path=notes.txt", nil, http.StatusOK, &m)
	if m.PermissionProfile.Mode != "supervised" || !m.Read.Allowed || m.Write.Allowed || m.Rule != nil {
		t.Fatalf("mode turn: %+v %+v %+v", m, m.Read, m.Write)
	}
	status, body := s.Do("GET", "/v1/turns/x/explain?path=a&url=https://x/", nil)
	wantError(t, status, body, 400, "invalid_field")
	status, body = s.Do("GET", "/v1/turns/nope/explain?path=a", nil)
	wantError(t, status, body, 404, "not_found")
}

// TestServedProfileKernelShapes: the kernel shapes through a served
// profile, run by the sandbox: a subtree reopened inside a deny stays
// usable while the rest of the deny is hidden; :read-only with one writable
// subtree writes there and nowhere else.
func TestServedProfileKernelShapes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "profiles.toml")
	os.WriteFile(file, []byte(`
[permissions.reopen]
extends = ":workspace"
[permissions.reopen.filesystem.":workspace_roots"]
"blocked" = "deny"
"blocked/allowed" = "write"

[permissions.ro-out]
extends = ":read-only"
[permissions.ro-out.filesystem.":workspace_roots"]
"out" = "write"
`), 0o644)
	s := StartServer(t, "", "--profiles", file)
	root := workspace(t)
	os.MkdirAll(filepath.Join(root, "blocked", "allowed"), 0o755)
	os.WriteFile(filepath.Join(root, "blocked", "hidden"), []byte("h\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "out"), 0o755)

	if status, body := startProfileTurn(s, "reopen", root, map[string]any{"profile": "reopen"}); status != http.StatusCreated {
		t.Fatalf("%d %s", status, body)
	}
	run := s.execApproved("reopen", "r1", map[string]any{"argv": []string{"sh", "-c",
		"cat blocked/hidden 2>/dev/null && echo LEAK; echo new > blocked/x 2>/dev/null && echo LEAK2; " +
			"echo y > blocked/allowed/y && cat blocked/allowed/y; echo top > top.txt && echo top-ok"}})
	if run.Result == nil || strings.Contains(run.Result.Stdout, "LEAK") || !strings.Contains(run.Result.Stdout, "y\n") || !strings.Contains(run.Result.Stdout, "top-ok") {
		t.Fatalf("reopened subtree: %+v", run.Result)
	}
	if d := s.decide("reopen", "d1", "read_file", map[string]any{"path": "blocked/hidden"}); d.Decision != "deny" {
		t.Fatalf("decision inside the deny: %+v", d)
	}
	if d := s.decide("reopen", "d2", "read_file", map[string]any{"path": "blocked/allowed/y"}); d.Decision != "allow" {
		t.Fatalf("decision in the reopened subtree: %+v", d)
	}

	if status, body := startProfileTurn(s, "ro", root, map[string]any{"profile": "ro-out"}); status != http.StatusCreated {
		t.Fatalf("%d %s", status, body)
	}
	run = s.execApproved("ro", "r2", map[string]any{"argv": []string{"sh", "-c",
		"echo o > out/o.txt && echo out-ok; echo a > a2.txt 2>/dev/null && echo LEAK; cat a.txt"}})
	if run.Result == nil || !strings.Contains(run.Result.Stdout, "out-ok") || strings.Contains(run.Result.Stdout, "LEAK") || !strings.Contains(run.Result.Stdout, "hello") {
		t.Fatalf(":read-only with a writable subtree: %+v", run.Result)
	}
	if exists(filepath.Join(root, "a2.txt")) {
		t.Fatal("a write outside the writable subtree landed")
	}
}

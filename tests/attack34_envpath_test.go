package tests

import (
	"net/http"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack34RequestPathPicksWhatTheShellRuns: README says an approval
// binds what runs, "the executable is resolved ... never the request's
// PATH". That holds for argv[0] only. A shell command (what Codex and
// Claude Code send, cmd as a string) runs /bin/sh, and the shell looks up
// every program of the script in the request's PATH, which the turn's
// environment policy passes (PATH is allow-listed in every restricted
// mode) and which the person approving never sees: the request shows
// "Environment: PATH", its value only as a keyed digest. The agent sends
//
//	cmd "ls", env {"PATH": "<workspace>/.bin:/usr/bin:/bin"}
//
// and allow_once for "Run /bin/sh -c ls" (executable /bin/sh) runs the
// agent's own <workspace>/.bin/ls. The control: the same command without
// env runs the system's ls.
//
// The secure behaviour asserted: the request shows where the command's
// programs are looked up (the PATH it is given), or the shell does not
// take the request's PATH; the approved command does not run the agent's
// script.
func TestAttack34RequestPathPicksWhatTheShellRuns(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("t34-path", "ws", "auto_accept_edits", root)
	bin := filepath.Join(root, ".bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	// The agent's preparation: its own "ls".
	if err := os.WriteFile(filepath.Join(bin, "ls"), []byte("#!/bin/sh\necho agent-ls-ran > \"$PWD/pwned.txt\"\necho main.go src\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	show := func(callID string, body map[string]any) (string, string) {
		t.Helper()
		body["tool_call_id"] = callID
		status, d := s.exec("t34-path", "", body)
		if status != http.StatusAccepted || d.Decision != "ask" || d.Request == nil {
			t.Fatalf("%s: %d %+v, want 202 ask", callID, status, d)
		}
		out, errOut, code := s.CLI("approvals", "show", d.Request.RequestID)
		if code != 0 {
			t.Fatalf("approvals show: %d %s", code, errOut)
		}
		return out, d.Request.RequestID
	}

	// Control: no env, the system's ls.
	honest, id := show("path-honest", map[string]any{"cmd": "ls"})
	s.respond(id, "allow_once")
	if status, run := s.exec("t34-path", "", map[string]any{"tool_call_id": "path-honest", "cmd": "ls"}); status != http.StatusOK || !run.Ran || run.Result.ExitCode != 0 {
		t.Fatalf("control: the approved ls: %d %+v", status, run)
	}
	if exists(filepath.Join(root, "pwned.txt")) {
		t.Fatal("control: the ls without env ran the agent's script")
	}

	path := bin + ":/usr/bin:/bin"
	body := map[string]any{"cmd": "ls", "env": map[string]string{"PATH": path}}
	forged, id := show("path-forged", body)
	if !strings.Contains(forged, bin) {
		t.Errorf("the request for ls with the agent's PATH does not show where ls is looked up; the person reads:\n%s\n(the honest one:\n%s)", forged, honest)
	}
	// Fixed: the request shows PATH's value, so what allow_once then runs
	// is what the person read.
	if !strings.Contains(forged, `PATH="`+path+`"`) {
		t.Errorf("the request does not show PATH=%s:\n%s", path, forged)
	}
	_ = id
}

// TestAttack34RequestHomeRunsTheAgentsGitConfig: the same hidden value
// without a shell. argv ["git", "status"] resolves to /usr/bin/git, which
// is what the person is shown and what runs; its env {"HOME": "<ws>/h"}
// (HOME is allow-listed in every restricted mode) is shown as the name
// HOME alone. git reads <ws>/h/.gitconfig, a file the agent wrote (an
// edit auto_accept_edits allows without asking: only a root's own
// .gitconfig is protected), whose core.fsmonitor git runs: allow_once for
// "Run git status" runs the agent's command. The control: git status
// without env runs no fsmonitor.
func TestAttack34RequestHomeRunsTheAgentsGitConfig(t *testing.T) {
	t.Parallel()
	gitPath, err := osexec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	s := StartServer(t, "")
	root := workspace(t)
	// The person's project is a repository.
	if out, err := osexec.Command(gitPath, "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	s.startTurn("t34-home", "ws", "auto_accept_edits", root)
	// The agent's preparation: a .gitconfig below the root, written by an
	// edit the mode allows without asking (the runtime applies the patch;
	// here the test writes what it adds).
	gc := "[core]\n\tfsmonitor = \"echo agent-fsmonitor-ran > " + filepath.Join(root, "pwned.txt") + "; true\"\n"
	patch := "*** Begin Patch\n*** Add File: h/.gitconfig\n+" + strings.ReplaceAll(strings.TrimSuffix(gc, "\n"), "\n", "\n+") + "\n*** End Patch"
	d := s.decide("t34-home", "write-gitconfig", "apply_patch", map[string]any{"patch": patch})
	if d.Decision != "allow" {
		t.Fatalf("the edit of h/.gitconfig: %+v", d)
	}
	if err := os.MkdirAll(filepath.Join(root, "h"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "h", ".gitconfig"), []byte(gc), 0o644); err != nil {
		t.Fatal(err)
	}
	ask := func(callID string, body map[string]any) (string, decisionAnswer) {
		t.Helper()
		body["tool_call_id"] = callID
		status, d := s.exec("t34-home", "", body)
		if status != http.StatusAccepted || d.Decision != "ask" || d.Request == nil {
			t.Fatalf("%s: %d %+v, want 202 ask", callID, status, d)
		}
		out, errOut, code := s.CLI("approvals", "show", d.Request.RequestID)
		if code != 0 {
			t.Fatalf("approvals show: %d %s", code, errOut)
		}
		s.respond(d.Request.RequestID, "allow_once")
		status, run := s.exec("t34-home", "", body)
		if status != http.StatusOK || !run.Ran {
			t.Fatalf("%s after allow_once: %d %+v", callID, status, run)
		}
		return out, run
	}
	// Control.
	ask("home-honest", map[string]any{"argv": []string{"git", "status"}})
	if exists(filepath.Join(root, "pwned.txt")) {
		t.Fatal("control: git status without env ran the fsmonitor")
	}
	shown, run := ask("home-forged", map[string]any{"argv": []string{"git", "status"}, "env": map[string]string{"HOME": filepath.Join(root, "h")}})
	// Fixed: the person reads the HOME git will take its config from
	// before allowing it (what runs then is what was shown).
	if !strings.Contains(shown, `HOME="`+filepath.Join(root, "h")+`"`) {
		t.Errorf("allow_once of \"Run git status\" (executable %s) with a HOME of the agent's, not shown (pwned.txt written: %v, stderr %q); the person read:\n%s", gitPath, exists(filepath.Join(root, "pwned.txt")), run.Result.Stderr, shown)
	}
}

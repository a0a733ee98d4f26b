package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack110_ShellOptionArgExec (high): the end-to-end half of
// domain.TestAttack110_ShellOptionArg. A shell's -c code is judged as a
// script only where the -c comes before any word not starting with "-";
// an option's argument (`-o errexit`, `-O extglob`) or a "+" option
// (`+e`) ends the search, and CODE is never parsed. POST /exec, run in
// the sandbox after allow_once:
//
//	argv ["/bin/sh","-o","errexit","-c", CODE]
//	argv ["/bin/sh","-c","sh +e -c 'CODE'"]
//	argv ["/bin/sh","-c","echo password=tools/x | cut -d= -f2 | sh -o errexit"]
//
// with CODE = echo password=tools/x | cut -d= -f2 | sh: the request shows
// password=[redacted] and the sandboxed shell runs tools/x.
// Control: ["/bin/sh","-c",CODE] and ["/bin/sh","-e","-c",CODE] are shown
// whole and run.
func TestAttack110_ShellOptionArgExec(t *testing.T) {
	t.Parallel()
	prog, shownAndRun := hiddenProgramExec(t, "t110a")
	code := `echo password=` + prog + ` | cut -d= -f2 | sh`
	for i, argv := range [][]string{{"/bin/sh", "-c", code}, {"/bin/sh", "-e", "-c", code}} {
		shown, ran := shownAndRun("control"+string(rune('a'+i)), map[string]any{"argv": argv})
		if !ran || !strings.Contains(shown, prog) {
			t.Fatalf("control: %q: ran %v, shown:\n%s", argv, ran, shown)
		}
	}
	for i, argv := range [][]string{
		{"/bin/sh", "-o", "errexit", "-c", code},
		{"/bin/sh", "-c", "sh +e -c '" + code + "'"},
		{"/bin/sh", "-c", `echo password=` + prog + ` | cut -d= -f2 | sh -o errexit`},
	} {
		shown, ran := shownAndRun("hidden"+string(rune('a'+i)), map[string]any{"argv": argv})
		if !ran {
			t.Fatalf("premise: %q did not run the script; shown:\n%s", argv, shown)
		}
		if !strings.Contains(shown, prog) {
			t.Errorf("the approved argv %q ran %s, which its approval request hides:\n%s", argv, prog, shown)
		}
	}
}

// TestAttack110_RunnerAssignmentProgramExec (high): the end-to-end half of
// domain.TestAttack110_RunnerAssignmentProgram. The agent wrote a script
// at password=tools/x in its workspace (auto_accept_edits writes without
// asking) and asks POST /exec to run `ionice password=tools/x` (argv
// /bin/sh -c): ionice, one of the plain rule's own runners, runs the word
// after it as its program, but the rule takes an assignment's shape after
// a runner for env's assignment and sees no program, and the word is no
// program word (prefixCommands) and has a variable's name before its '='
// (so not pathWordNoAssignment). The request shows `ionice
// password=[redacted]`; allowed once, the sandboxed ionice runs the
// hidden script. The same hides the program after a prefix command
// that programWord does know (nohup, command, timeout 5) when it stands
// first in a shell's -c script given as an argv (Codex's form: the joined
// text is `/bin/sh -c 'nohup password=tools/x'`, and the word before is
// `'nohup`, quote and all) or is quoted (`'nohup' password=tools/x`).
// And a shell given the script in that shape (`sh password=tools/x`,
// domain.TestAttack110_ScriptAssignmentWord), or dash reading `[[ -n x ||
// sh -ef password=tools/x ]]` as `[[ -n x` || `sh -ef password=tools/x
// ]]` (domain.TestAttack110_DashDoubleBracket).
// Control: argv ["nohup", "password=tools/x"] is shown whole and runs.
func TestAttack110_RunnerAssignmentProgramExec(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	const file = "password=tools/r4nD0mLooK1nGNam3ForAScr1pt"
	base := filepath.Base(file)
	if err := os.MkdirAll(filepath.Join(root, filepath.Dir(file)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, file), []byte("#!/bin/sh\ntouch AGENT-CODE-RAN\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	mark := filepath.Join(root, "AGENT-CODE-RAN")
	s.startTurn("t110b", "ws", "auto_accept_edits", root)
	shownAndRun := func(callID string, body map[string]any) (string, bool) {
		t.Helper()
		body["tool_call_id"] = callID
		status, raw := s.Request("POST", "/v1/turns/t110b/exec", body)
		var first struct {
			Decision string `json:"decision"`
			Request  *struct {
				RequestID string `json:"request_id"`
				Summary   string `json:"summary"`
				Details   []struct {
					Label string `json:"label"`
					Value string `json:"value"`
				} `json:"details"`
			} `json:"request"`
		}
		if err := json.Unmarshal(raw, &first); err != nil || status != http.StatusAccepted || first.Decision != "ask" || first.Request == nil {
			t.Fatalf("exec %s: %d %s, want 202 ask", callID, status, raw)
		}
		shown := first.Request.Summary
		for _, d := range first.Request.Details {
			shown += "\n" + d.Label + ": " + d.Value
		}
		_ = os.Remove(mark)
		s.respond(first.Request.RequestID, "allow_once")
		status, run := s.exec("t110b", "", body)
		if status != http.StatusOK || !run.Ran || run.Result == nil || run.Result.ExitCode != 0 {
			t.Fatalf("exec %s after approval: %d %+v", callID, status, run)
		}
		return shown, exists(mark)
	}
	shown, ran := shownAndRun("control", map[string]any{"argv": []string{"nohup", file}})
	if !ran || !strings.Contains(shown, base) {
		t.Fatalf("control: nohup %s: ran %v, shown:\n%s", file, ran, shown)
	}
	for i, argv := range [][]string{
		{"ionice", file},
		{"/bin/sh", "-c", "ionice " + file},
		{"/bin/sh", "-c", "nohup " + file},
		{"/bin/sh", "-c", "'nohup' " + file},
		{"/bin/sh", "-c", "sh " + file},
		{"/bin/sh", "-c", "[[ -n x || sh -ef " + file + " ]]"},
	} {
		shown, ran := shownAndRun("hidden"+string(rune('a'+i)), map[string]any{"argv": argv})
		if !ran {
			t.Fatalf("premise: %q did not run the script; shown:\n%s", argv, shown)
		}
		if !strings.Contains(shown, base) {
			t.Errorf("the approved argv %q ran ./%s, and its approval request hides it:\n%s", argv, file, shown)
		}
	}
}

// TestAttack110_BraceExpandedProgramExec (high): the end-to-end half of
// domain.TestAttack110_BraceExpandedProgram. POST /exec with bash's -c
// form (Codex's ["bash","-lc",SCRIPT]); the rule's BraceExp check is dead
// (the parser makes no such node), so `{sh,}` is no shell to it:
//
//	argv ["bash","-c","echo password=tools/x | cut -d= -f2 | {sh,}"]
//
// is shown with password=[redacted], and the sandboxed bash expands
// {sh,} to sh, which runs tools/x.
// Control: the same pipe into a bare sh is shown whole and runs.
func TestAttack110_BraceExpandedProgramExec(t *testing.T) {
	t.Parallel()
	prog, shownAndRun := hiddenProgramExec(t, "t110c")
	pw := `echo password=` + prog + ` | cut -d= -f2`
	shown, ran := shownAndRun("control", map[string]any{"argv": []string{"bash", "-c", pw + " | sh"}})
	if !ran || !strings.Contains(shown, prog) {
		t.Fatalf("control: | sh: ran %v, shown:\n%s", ran, shown)
	}
	for i, script := range []string{pw + " | {sh,}", "{sh,-c,'" + pw + " | sh'}"} {
		shown, ran := shownAndRun("hidden"+string(rune('a'+i)), map[string]any{"argv": []string{"bash", "-c", script}})
		if !ran {
			t.Fatalf("premise: %q did not run the script; shown:\n%s", script, shown)
		}
		if !strings.Contains(shown, prog) {
			t.Errorf("the approved bash -c %q ran %s, which its approval request hides:\n%s", script, prog, shown)
		}
	}
}

// TestAttack110_DashDoubleBracketExec (high): the end-to-end half of
// domain.TestAttack110_DashDoubleBracket. POST /exec runs its command
// with /bin/sh (dash), which has no [[ … ]]:
//
//	echo password=tools/x | cut -d= -f2 > ']]'; [[ -n x || sh ]]
//
// is judged as bash reads it (a test of strings, no program), shown with
// password=[redacted], and the sandboxed dash runs `sh ]]`, the file
// holding the hidden value, which runs tools/x. And (the end-to-end half
// of domain.TestAttack110_DashAmpRedirect) `…> g; echo done &>/dev/null
// sh g`, to bash an echo with its output discarded, to dash `echo done &`
// and `>/dev/null sh g`.
// Control: the same with `sh ']]'` is shown whole and runs.
func TestAttack110_DashDoubleBracketExec(t *testing.T) {
	t.Parallel()
	prog, shownAndRun := hiddenProgramExec(t, "t110d")
	w := `echo password=` + prog + ` | cut -d= -f2 > ']]'; `
	shown, ran := shownAndRun("control", map[string]any{"argv": []string{"/bin/sh", "-c", w + "sh ']]'"}})
	if !ran || !strings.Contains(shown, prog) {
		t.Fatalf("control: sh ']]': ran %v, shown:\n%s", ran, shown)
	}
	for i, script := range []string{w + "[[ -n x || sh ]]", `echo password=` + prog + ` | cut -d= -f2 > g; echo done &>/dev/null sh g`} {
		shown, ran := shownAndRun("hidden"+string(rune('a'+i)), map[string]any{"argv": []string{"/bin/sh", "-c", script}})
		if !ran {
			t.Fatalf("premise: %q did not run the script; shown:\n%s", script, shown)
		}
		if !strings.Contains(shown, prog) {
			t.Errorf("the approved /bin/sh -c %q ran %s, which its approval request hides:\n%s", script, prog, shown)
		}
	}
}

// TestAttack110_HereDocEarlierStageExec (high): the end-to-end half of
// domain.TestAttack110_HereDocEarlierStage. POST /exec with
//
//	/bin/sh -c 'cat <<EOF | cut -d= -f2 | sh
//	password=tools/x
//	EOF'
//
// the pipe into sh has `cat <<EOF | cut -d= -f2` for its left side, which
// ends before the document's line: nothing is carried, the command is
// called plain and shown with password=[redacted], and the sandboxed shell
// runs tools/x.
// Control: `cut -d= -f2 <<EOF | sh` with the same document is shown whole
// and runs.
func TestAttack110_HereDocEarlierStageExec(t *testing.T) {
	t.Parallel()
	prog, shownAndRun := hiddenProgramExec(t, "t110f")
	doc := "\npassword=" + prog + "\nEOF"
	shown, ran := shownAndRun("control", map[string]any{"argv": []string{"/bin/sh", "-c", "cut -d= -f2 <<EOF | sh" + doc}})
	if !ran || !strings.Contains(shown, prog) {
		t.Fatalf("control: cut <<EOF | sh: ran %v, shown:\n%s", ran, shown)
	}
	script := "cat <<EOF | cut -d= -f2 | sh" + doc
	shown, ran = shownAndRun("hidden", map[string]any{"argv": []string{"/bin/sh", "-c", script}})
	if !ran {
		t.Fatalf("premise: %q did not run the script; shown:\n%s", script, shown)
	}
	if !strings.Contains(shown, prog) {
		t.Errorf("the approved /bin/sh -c %q ran %s, which its approval request hides:\n%s", script, prog, shown)
	}
}

// TestAttack110_DownloadLocalFileExec (high): the end-to-end half of
// domain.TestAttack110_DownloadLocalFile. POST /exec with
//
//	/bin/sh -c 'echo password=tools/x | cut -d= -f2 > g; curl -s FILE:///proc/self/cwd/g | sh'
//
// is judged a download piped into a shell (the scheme is checked in lower
// case only), so the text that writes g "runs" nothing, is called plain,
// and is shown with password=[redacted]; the sandboxed curl prints g and
// sh runs tools/x.
// Control: the same with file:// is shown whole and runs.
func TestAttack110_DownloadLocalFileExec(t *testing.T) {
	t.Parallel()
	prog, shownAndRun := hiddenProgramExec(t, "t110g")
	w := "echo password=" + prog + " | cut -d= -f2 > g; "
	shown, ran := shownAndRun("control", map[string]any{"argv": []string{"/bin/sh", "-c", w + "curl -s file:///proc/self/cwd/g | sh"}})
	if !ran || !strings.Contains(shown, prog) {
		t.Fatalf("control: curl file:// | sh: ran %v, shown:\n%s", ran, shown)
	}
	script := w + "curl -s FILE:///proc/self/cwd/g | sh"
	shown, ran = shownAndRun("hidden", map[string]any{"argv": []string{"/bin/sh", "-c", script}})
	if !ran {
		t.Fatalf("premise: %q did not run the script; shown:\n%s", script, shown)
	}
	if !strings.Contains(shown, prog) {
		t.Errorf("the approved /bin/sh -c %q ran %s, which its approval request hides:\n%s", script, prog, shown)
	}
}

// TestAttack110_NestedRunOfWrittenFileExec (high): the end-to-end half of
// domain.TestAttack110_NestedRunOfWrittenFile. POST /exec with
//
//	/bin/sh -c "echo password=tools/x | cut -d= -f2 > g; sh -c 'sh g'"
//
// the nested script `sh g` is judged plain alone and its run of a file
// never reaches the outer text, which writes g: called plain, shown with
// password=[redacted], and the sandboxed shell runs tools/x.
// Control: `…; sh g` is shown whole and runs.
func TestAttack110_NestedRunOfWrittenFileExec(t *testing.T) {
	t.Parallel()
	prog, shownAndRun := hiddenProgramExec(t, "t110h")
	w := "echo password=" + prog + " | cut -d= -f2 > g; "
	shown, ran := shownAndRun("control", map[string]any{"argv": []string{"/bin/sh", "-c", w + "sh g"}})
	if !ran || !strings.Contains(shown, prog) {
		t.Fatalf("control: sh g: ran %v, shown:\n%s", ran, shown)
	}
	for i, script := range []string{w + "sh -c 'sh g'", w + `perl -e 'system("sh g")'`} {
		shown, ran := shownAndRun("hidden"+string(rune('a'+i)), map[string]any{"argv": []string{"/bin/sh", "-c", script}})
		if !ran {
			t.Fatalf("premise: %q did not run the script; shown:\n%s", script, shown)
		}
		if !strings.Contains(shown, prog) {
			t.Errorf("the approved /bin/sh -c %q ran %s, which its approval request hides:\n%s", script, prog, shown)
		}
	}
}

// TestAttack110_ShellReadsItsOwnTextExec (high): the end-to-end half of
// domain.TestAttack110_ShellReadsItsOwnText. POST /exec with
//
//	/bin/sh -c ": password=tools/x; cut -d' ' -f4 /proc/self/stat | xargs -I{} cat /proc/{}/cmdline | tr '\0' '\n' | grep -o 'password=[a-zA-Z0-9/]*' | head -1 | cut -d= -f2 | sh"
//
// is called plain (nothing the pipe into sh carries is hidden), shown with
// `: password=[redacted]`, and the sandboxed shell reads its own command
// line back and runs tools/x.
// Control: `echo password=tools/x | cut -d= -f2 | sh` is shown whole and
// runs.
func TestAttack110_ShellReadsItsOwnTextExec(t *testing.T) {
	t.Parallel()
	prog, shownAndRun := hiddenProgramExec(t, "t110i")
	shown, ran := shownAndRun("control", map[string]any{"argv": []string{"/bin/sh", "-c", "echo password=" + prog + " | cut -d= -f2 | sh"}})
	if !ran || !strings.Contains(shown, prog) {
		t.Fatalf("control: | sh: ran %v, shown:\n%s", ran, shown)
	}
	script := ": password=" + prog + `; cut -d' ' -f4 /proc/self/stat | xargs -I{} cat /proc/{}/cmdline | tr '\0' '\n' | grep -o 'password=[a-zA-Z0-9/]*' | head -1 | cut -d= -f2 | sh`
	shown, ran = shownAndRun("hidden", map[string]any{"argv": []string{"/bin/sh", "-c", script}})
	if !ran {
		t.Fatalf("premise: %q did not run the script; shown:\n%s", script, shown)
	}
	if !strings.Contains(shown, prog) {
		t.Errorf("the approved /bin/sh -c %q ran %s, which its approval request hides:\n%s", script, prog, shown)
	}
}

// TestAttack110_PromptStringExec (high): the end-to-end half of
// domain.TestAttack110_PromptString. POST /exec with
//
//	/bin/sh -c "PS1='$(echo password=tools/x | cut -d= -f2 | sh)' sh -i < /dev/null"
//
// PS1 is no variable that chooses what runs to the rule and the quoted
// $(…) a literal: called plain, shown with password=[redacted]; the
// sandboxed interactive sh expands its prompt and runs tools/x.
// Control: the same with PROMPT_COMMAND is shown whole (and runs nothing
// under dash; only shown is checked).
func TestAttack110_PromptStringExec(t *testing.T) {
	t.Parallel()
	prog, shownAndRun := hiddenProgramExec(t, "t110j")
	code := "'$(echo password=" + prog + " | cut -d= -f2 | sh)'"
	shown, _ := shownAndRun("control", map[string]any{"argv": []string{"/bin/sh", "-c", "PROMPT_COMMAND=" + code + " sh -i < /dev/null"}})
	if !strings.Contains(shown, prog) {
		t.Fatalf("control: PROMPT_COMMAND is not shown whole:\n%s", shown)
	}
	script := "PS1=" + code + " sh -i < /dev/null"
	shown, ran := shownAndRun("hidden", map[string]any{"argv": []string{"/bin/sh", "-c", script}})
	if !ran {
		t.Fatalf("premise: %q did not run the script; shown:\n%s", script, shown)
	}
	if !strings.Contains(shown, prog) {
		t.Errorf("the approved /bin/sh -c %q ran %s, which its approval request hides:\n%s", script, prog, shown)
	}
}

// attack110AssignFileExec is hiddenProgramExec with the agent's script at
// password=tools/… (a directory in a secret assignment's shape).
func attack110AssignFileExec(t *testing.T, turn string) (file string, shownAndRun func(callID string, body map[string]any) (string, bool)) {
	s := StartServer(t, "")
	root := workspace(t)
	file = "password=tools/r4nD0mLooK1nGNam3ForAScr1pt"
	if err := os.MkdirAll(filepath.Join(root, filepath.Dir(file)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, file), []byte("#!/bin/sh\ntouch AGENT-CODE-RAN\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	mark := filepath.Join(root, "AGENT-CODE-RAN")
	s.startTurn(turn, "ws", "auto_accept_edits", root)
	return file, func(callID string, body map[string]any) (string, bool) {
		t.Helper()
		body["tool_call_id"] = callID
		status, raw := s.Request("POST", "/v1/turns/"+turn+"/exec", body)
		var first struct {
			Decision string `json:"decision"`
			Request  *struct {
				RequestID string `json:"request_id"`
				Summary   string `json:"summary"`
				Details   []struct {
					Label string `json:"label"`
					Value string `json:"value"`
				} `json:"details"`
			} `json:"request"`
		}
		if err := json.Unmarshal(raw, &first); err != nil || status != http.StatusAccepted || first.Decision != "ask" || first.Request == nil {
			t.Fatalf("exec %s: %d %s, want 202 ask", callID, status, raw)
		}
		shown := first.Request.Summary
		for _, d := range first.Request.Details {
			shown += "\n" + d.Label + ": " + d.Value
		}
		_ = os.Remove(mark)
		s.respond(first.Request.RequestID, "allow_once")
		status, run := s.exec(turn, "", body)
		if status != http.StatusOK || !run.Ran || run.Result == nil || run.Result.ExitCode != 0 {
			t.Fatalf("exec %s after approval: %d %+v", callID, status, run)
		}
		return shown, exists(mark)
	}
}

// TestAttack110_EnvShellProgramExec (high): the environment's SHELL (on the
// restricted modes' allow-list, so it reaches the command, and one of the
// names whose value is shown because it chooses what runs) is shown
// redacted as a command's text: SHELL="password=tools/x" is shown as
// SHELL="password=[redacted]". The text never expands it (no exposedVars),
// but programs run it: vim's :! runs `$SHELL -c …`, script runs $SHELL.
// POST /exec argv ["vim","-es","+!true","+q"] with that environment is
// shown as
//
//	Run vim -es +!true +q
//	Environment: SHELL="password=[redacted]"
//
// and the sandboxed vim runs ./password=tools/x, the agent's script, as
// the shell. (unshare and nsenter, which run $SHELL with no program, are
// denied by the policy.)
// Control: SHELL="./password=tools/x" is shown and runs.
func TestAttack110_EnvShellProgramExec(t *testing.T) {
	t.Parallel()
	file, shownAndRun := attack110AssignFileExec(t, "t110k")
	base := filepath.Base(file)
	argv := []string{"vim", "-es", "+!true", "+q"}
	shown, ran := shownAndRun("control", map[string]any{"argv": argv, "env": map[string]string{"SHELL": "./" + file}})
	if !ran || !strings.Contains(shown, base) {
		t.Fatalf("control: SHELL=./%s: ran %v, shown:\n%s", file, ran, shown)
	}
	shown, ran = shownAndRun("hidden", map[string]any{"argv": argv, "env": map[string]string{"SHELL": file}})
	if !ran {
		t.Fatalf("premise: vim did not run $SHELL; shown:\n%s", shown)
	}
	if !strings.Contains(shown, base) {
		t.Errorf("the approved vim ran $SHELL=%s, which its approval request hides:\n%s", file, shown)
	}
}

// TestAttack110_PipeIntoInlineCodeExec (high): the end-to-end half of
// domain.TestAttack110_PipeIntoInlineCode. POST /exec with
//
//	/bin/sh -c 'echo password=tools/x | cut -d= -f2 | sh -c sh'
//
// the pipe's reader `sh -c sh` is taken for a shell given a script (its
// inline code), not one reading its input: called plain, shown with
// password=[redacted]; the inner sh reads the pipe and runs tools/x.
// Control: `… | sh` is shown whole and runs.
func TestAttack110_PipeIntoInlineCodeExec(t *testing.T) {
	t.Parallel()
	prog, shownAndRun := hiddenProgramExec(t, "t110l")
	pw := "echo password=" + prog + " | cut -d= -f2"
	shown, ran := shownAndRun("control", map[string]any{"argv": []string{"/bin/sh", "-c", pw + " | sh"}})
	if !ran || !strings.Contains(shown, prog) {
		t.Fatalf("control: | sh: ran %v, shown:\n%s", ran, shown)
	}
	for i, script := range []string{pw + " | sh -c sh", pw + " | perl -e 'system(<STDIN>)'"} {
		shown, ran := shownAndRun("hidden"+string(rune('a'+i)), map[string]any{"argv": []string{"/bin/sh", "-c", script}})
		if !ran {
			t.Fatalf("premise: %q did not run the script; shown:\n%s", script, shown)
		}
		if !strings.Contains(shown, prog) {
			t.Errorf("the approved /bin/sh -c %q ran %s, which its approval request hides:\n%s", script, prog, shown)
		}
	}
}

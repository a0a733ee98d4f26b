package domain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// attack110File is a program the agent wrote in its workspace under a
// directory whose name is a secret assignment's shape.
const attack110File = "password=tools/r4nD0mLooK1nGNam3ForAScr1pt"

// attack110RunsFile runs cmd with shell in a directory holding
// attack110File and reports whether it ran; ok is false when the shell or
// the command's first program is missing.
func attack110RunsFile(t *testing.T, shell, cmd string) (ran, ok bool) {
	t.Helper()
	sh, err := exec.LookPath(shell)
	if err != nil {
		return false, false
	}
	prog := strings.Fields(cmd)[0]
	if strings.Contains(cmd, " | ") {
		prog = strings.Fields(cmd[strings.Index(cmd, " | ")+3:])[0]
	}
	prog = strings.Trim(strings.ReplaceAll(prog, "''", ""), `'"`)
	if _, err := exec.LookPath(prog); err != nil && prog != "command" && prog != "." && prog != "[[" {
		return false, false
	}
	dir := t.TempDir()
	mark := filepath.Join(dir, "AGENT-CODE-RAN")
	if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(attack110File)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, attack110File), []byte("#!/bin/sh -\ntouch "+mark+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	x := exec.Command(sh, "-c", cmd)
	x.Dir = dir
	x.Stdin = strings.NewReader("")
	_, _ = x.CombinedOutput()
	_, err = os.Stat(mark)
	return err == nil, true
}

// TestAttack110_RunnerAssignmentProgram: a word in a secret assignment's
// shape (`password=tools/x`) that is the program a shell command runs is
// shown (programWord) only after a command of prefixCommands (command,
// exec, nohup, timeout, xargs …); one that holds a '/' and is no
// assignment's shape is shown after any wrapper (pathWordNoAssignment,
// the forty-sixth review's `flock l my-secret=bin/x`). A word with a
// variable's name before its '=' passes both: after the runners the
// plain rule itself lists (ionice, unshare, prlimit, setarch, linux64,
// taskset, setpriv) and other wrappers (flock, find -exec, xargs -I {}),
// `ionice password=tools/x` is shown as `ionice password=[redacted]`,
// and ionice runs ./password=tools/x, a program the agent wrote. The plain
// rule's program() skips an assignment's shape after a runner as env's
// assignment, so it sees no program at all. Controls: `nohup
// password=tools/x` (a prefix command) is shown; `env password=tools/x
// make` (env's assignment) and `ionice make deploy password=tools/x` keep
// the value hidden.
func TestAttack110_RunnerAssignmentProgram(t *testing.T) {
	base := filepath.Base(attack110File)
	if s := shownExec(t, map[string]any{"cmd": "nohup " + attack110File}); !strings.Contains(s, base) {
		t.Fatalf("control: nohup's program is hidden:\n%s", s)
	}
	// (An honest password is inert since the fix: redact_inert.go.)
	for _, c := range []string{"env password=" + attack42Inert + " make", "ionice make deploy password=" + attack42Inert} {
		if s := shownExec(t, map[string]any{"cmd": c}); strings.Contains(s, attack42Inert) {
			t.Fatalf("control: %q shows its password:\n%s", c, s)
		}
	}
	for _, cmd := range []string{
		"ionice " + attack110File,
		"unshare " + attack110File,
		"prlimit " + attack110File,
		"setarch x86_64 " + attack110File,
		"linux64 " + attack110File,
		"taskset 1 " + attack110File,
		"setpriv " + attack110File,
		"flock l " + attack110File,
		"find . -maxdepth 0 -exec " + attack110File + " \\;",
		"echo a | xargs -I {} " + attack110File + " {}",
	} {
		checked := false
		for _, sh := range []string{"bash", "dash"} {
			ran, ok := attack110RunsFile(t, sh, cmd)
			if !ok {
				continue
			}
			if !ran {
				t.Fatalf("premise: %s does not run %s in %q", sh, attack110File, cmd)
			}
			checked = true
		}
		if !checked {
			continue
		}
		for _, s := range []string{attack42ShownBash(t, cmd), shownExec(t, map[string]any{"cmd": cmd})} {
			if !strings.Contains(s, base) {
				t.Errorf("%s\nruns ./%s, and the approval request hides it:\n%s", cmd, attack110File, s)
			}
		}
	}
}

// TestAttack110_QuotedPrefixProgram: programWord shows a secret
// assignment's shape after a prefix command (nohup, command, timeout 5 …)
// only when the word before it is the command's bare name. Quoted (`'nohup'
// password=tools/x`, `"command" password=tools/x`, nohup with an empty quote pair inside it), or first
// in a shell's -c script (`sh -c 'nohup password=tools/x'`, and so every
// argv in Codex's form ["bash","-lc","nohup password=tools/x"], whose
// joined text puts a quote before nohup), the word before is `'nohup` or
// `'nohup'`, no prefix command, and the program is hidden; the plain rule
// reads the quoted word as nohup, a runner, and takes the next word for
// env's assignment. bash and dash run ./password=tools/x.
// Control: `nohup password=tools/x` and `command password=tools/x` are
// shown.
func TestAttack110_QuotedPrefixProgram(t *testing.T) {
	base := filepath.Base(attack110File)
	for _, c := range []string{"nohup " + attack110File, "command " + attack110File} {
		if s := shownExec(t, map[string]any{"cmd": c}); !strings.Contains(s, base) {
			t.Fatalf("control: %q hides its program:\n%s", c, s)
		}
	}
	for _, cmd := range []string{
		"'nohup' " + attack110File,
		"\"command\" " + attack110File,
		"noh''up " + attack110File,
		"sh -c 'nohup " + attack110File + "'",
		"sh -c 'command " + attack110File + "'",
	} {
		for _, sh := range []string{"bash", "dash"} {
			if ran, ok := attack110RunsFile(t, sh, cmd); ok && !ran {
				t.Fatalf("premise: %s does not run %s in %q", sh, attack110File, cmd)
			}
		}
		for _, s := range []string{attack42ShownBash(t, cmd), shownExec(t, map[string]any{"cmd": cmd})} {
			if !strings.Contains(s, base) {
				t.Errorf("%s\nruns ./%s, and the approval request hides it:\n%s", cmd, attack110File, s)
			}
		}
	}
	for _, argv := range [][]string{{"bash", "-lc", "nohup " + attack110File}, {"bash", "-lc", "timeout 5 " + attack110File}} {
		if s := shownExec(t, map[string]any{"cmd": argv}); !strings.Contains(s, base) {
			t.Errorf("argv %q runs ./%s, and the approval request hides it:\n%s", argv, attack110File, s)
		}
	}
}

// TestAttack110_ScriptAssignmentWord: the script a shell or an interpreter
// is given is the program that runs, but a script word in a secret
// assignment's shape (`sh password=tools/x`: a file under the directory
// "password=tools" the agent wrote) is hidden like an argument's value:
// it is no program word (the program is sh) and pathWordNoAssignment skips
// an assignment's shape. The plain rule sees a code reader given a
// script (it only "runs a file"), so the text is plain, and the request
// shows `sh password=[redacted]`: which program runs is not shown.
// Controls: `sh ./password=tools/x` is shown; an honest `sh deploy.sh
// password=P` (the script first, a password its argument) keeps P
// hidden.
func TestAttack110_ScriptAssignmentWord(t *testing.T) {
	base := filepath.Base(attack110File)
	if s := shownExec(t, map[string]any{"cmd": "sh ./" + attack110File}); !strings.Contains(s, base) {
		t.Fatalf("control: sh ./%s hides its script:\n%s", attack110File, s)
	}
	if s := shownExec(t, map[string]any{"cmd": "sh deploy.sh password=" + attack42Inert}); strings.Contains(s, attack42Inert) {
		t.Fatalf("control: an honest script's password argument is shown:\n%s", s)
	}
	for _, cmd := range []string{
		"sh " + attack110File,
		"bash " + attack110File,
		"sh -e " + attack110File,
		". " + attack110File,
		"perl " + attack110File,
	} {
		for _, sh := range []string{"bash", "dash"} {
			if ran, ok := attack110RunsFile(t, sh, cmd); ok && !ran {
				t.Fatalf("premise: %s does not run %s in %q", sh, attack110File, cmd)
			}
		}
		for _, s := range []string{attack42ShownBash(t, cmd), shownExec(t, map[string]any{"cmd": cmd})} {
			if !strings.Contains(s, base) {
				t.Errorf("%s\nruns ./%s, and the approval request hides it:\n%s", cmd, attack110File, s)
			}
		}
	}
}

// TestAttack110_ArgvAssignmentProgram: an exec_command given as an argv is
// run as it is (execve of argv[0]), but judged and redacted as its joined
// text (ShellJoin), which leaves a word of letters, digits and
// "-_./=:,+@%" unquoted: the argv ["password=tools/x"] joins to
// `password=tools/x`, which the parser and the redaction read as a secret
// assignment, and the request (a /decisions call, which has no
// "Executable" detail: POST /exec adds the resolved path and shows it)
// shows `Run password=[redacted]` while the runtime runs the agent's
// script ./password=tools/x.
// Control: the argv ["./password=tools/x"] is shown.
func TestAttack110_ArgvAssignmentProgram(t *testing.T) {
	base := filepath.Base(attack110File)
	if s := shownExec(t, map[string]any{"cmd": []string{"./" + attack110File}}); !strings.Contains(s, base) {
		t.Fatalf("control: argv [./%s] hides its program:\n%s", attack110File, s)
	}
	// Premise: execve of the argv runs the script.
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(attack110File)), 0o755); err != nil {
		t.Fatal(err)
	}
	mark := filepath.Join(dir, "AGENT-CODE-RAN")
	if err := os.WriteFile(filepath.Join(dir, attack110File), []byte("#!/bin/sh -\ntouch "+mark+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	x := exec.Command(attack110File)
	x.Dir = dir
	_, _ = x.CombinedOutput()
	if _, err := os.Stat(mark); err != nil {
		t.Fatalf("premise: the argv does not run the script: %v", err)
	}
	for _, argv := range [][]string{{attack110File}, {attack110File, "--verbose"}} {
		if s := shownExec(t, map[string]any{"cmd": argv}); !strings.Contains(s, base) {
			t.Errorf("argv %q runs ./%s, and the approval request hides it:\n%s", argv, attack110File, s)
		}
	}
}

// TestAttack110_EnvShellProgram: an exec's environment value of a name that
// chooses what runs (SHELL, shown by envShowsValue and on the restricted
// modes' allow-list) is shown redacted as a command's text, so
// SHELL="password=tools/x" is shown as SHELL="password=[redacted]"; the
// text does not expand it, and programs run it as the shell (vim's :!,
// script, unshare with no program). `vim -es '+!true' +q` with that
// environment runs ./password=tools/x, the agent's script.
// Control: SHELL="./password=tools/x" is shown.
func TestAttack110_EnvShellProgram(t *testing.T) {
	base := filepath.Base(attack110File)
	cmd := []string{"vim", "-es", "+!true", "+q"}
	if s := shownExec(t, map[string]any{"cmd": cmd, "env": map[string]any{"SHELL": "./" + attack110File}}); !strings.Contains(s, base) {
		t.Fatalf("control: SHELL=./%s is hidden:\n%s", attack110File, s)
	}
	if ran, ok := attack110RunsFile(t, "sh", "env SHELL="+attack110File+" vim -es '+!true' +q"); !ok || !ran {
		t.Fatalf("premise: vim does not run $SHELL")
	}
	if s := shownExec(t, map[string]any{"cmd": cmd, "env": map[string]any{"SHELL": attack110File}}); !strings.Contains(s, base) {
		t.Errorf("vim runs $SHELL=%s, and the approval request hides it:\n%s", attack110File, s)
	}
}

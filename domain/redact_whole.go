package domain

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// A shell can make any part of its own text the program it runs: an
// expansion cuts it out of a value ("${T#*=}" of T="password=P"), a pipe
// hands it to a reader of code, a file written with it is run, an
// interpreter's code or eval's argument computes it. A pattern that hides
// a credential's place cannot tell the credential from such a program: one
// form after another was found hiding what ran (the forty-second to
// hundred-and-sixth reviews; the hundred-and-fourth's "set --
// Authorization: Bearer P; $3"). So a shell command hides nothing unless
// it is plain (computesProgram is false): its words are what it runs and
// passes, and a value hidden in one can be nothing else. A command that
// is not plain is shown whole: its text, its arguments, its environment's
// values.

// wholeValues, a key of an exposed set, says every environment value is
// shown as it is (envDetail): the command is not plain.
const wholeValues = "\x00whole"

// codeReaders read what comes to them (their input, a file they are
// given) as code or as the words of a command: a pipe, a here-document or
// a here-string into a command holding one of them, anywhere in its words
// (env sh, command sh, xargs sh, sed's e command), may run what it is
// given.
var codeReaders = append(slices.Clone(shellNames), "eval", "source", ".", "xargs", "parallel", "python", "python2",
	"python3", "perl", "ruby", "irb", "node", "nodejs", "deno", "bun", "php", "lua", "luajit", "awk", "gawk", "mawk",
	"nawk", "sed", "gsed", "tclsh", "wish", "expect", "Rscript", "osascript", "pwsh", "powershell", "julia", "guile",
	"racket", "ocaml", "swift", "groovy", "jshell", "gdb", "vim", "vi", "nvim", "emacs", "m4", "bc", "dc", "ssh", "su",
	"sudo", "doas", "at", "batch", "crontab", "tmux", "screen", "script", "watch", "read", "mapfile", "readarray")

// codeWords read a text argument as code: eval, trap and alias take
// the shell's; awk and sed take a program; watch, ssh, tmux and screen
// run a command string.
var codeWords = []string{"eval", "trap", "alias", "hash", "enable", "awk", "gawk", "mawk", "nawk", "sed", "gsed", "watch", "ssh", "tmux",
	"screen", "parallel", "m4"}

// inlineCode are the options by which an interpreter takes its code as an
// argument (perl -e, node -p, php -r, pwsh -Command, gdb -ex, emacs
// --eval); a short option holding 'c' is any program's command string
// (sh -c, su -c, script -c, git -c alias.x=!…).
var inlineCode = []string{"-e", "-E", "-p", "-r", "-x", "-ex", "--eval", "--print", "--exec", "--execute", "--command", "-Command", "-command", "eval"}

// computesProgram reports whether the shell text s is not plain: it may
// make a part of its own text, or of the environment's values tainted
// names, what it runs (it is called only for an action something would be
// hidden in). It is read as the shell reads it (parsePlain); plain is:
//   - it parses (bash's grammar);
//   - no substitution, process substitution, arithmetic, function,
//     coprocess, for loop or declare -n; no expansion but $NAME or
//     ${NAME} of a variable the text never sets (the name stands nowhere
//     else), not the shell's own ($_, $BASH, $REPLY …) and whose value is
//     not hidden, or one where a credential goes ("Bearer $T");
//   - no program computed or named by a pattern, past the runners (env,
//     sudo, exec, timeout …); no program that takes code (codeWords), no
//     interpreter or shell given inline code (sh -c, perl -e), no command
//     string (su -c, git -c); no assignment of a variable that chooses
//     what runs (PATH, BASH_ENV, GIT_* …: programChooser);
//   - no pipe, here-document or here-string into a command that reads its
//     input as code (a shell or an interpreter without a script, xargs,
//     awk, sed, source /dev/stdin, a loop);
//   - not both a file written (a redirection other than to /dev/null, dd,
//     cp, tee …) and a file run (a program by a path, a code reader given
//     a script).
func computesProgram(s string, tainted []string) bool {
	if strings.Contains(s, "$'") || strings.Contains(s, "$\"") || arraySubscript().MatchString(s) {
		// $'…' is bash's quoting and no quoting to dash (/bin/sh), which
		// reads the text after it otherwise; a subscript with an
		// expansion (a[$(…)]) is run by bash's arithmetic even quoted
		// (the hundred-and-ninth review).
		return true
	}
	if len(tainted) > 0 && arithmetic().MatchString(s) {
		return true // a hidden value read as an expression ([[ NAME -eq 1 ]], declare -i)
	}
	return !parsePlain(s, tainted)
}

// arraySubscript matches a name's subscript holding an expansion.
var arraySubscript = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[A-Za-z0-9_'"\\]\[[^\]]*[$\x60]`)
})

// arithmetic matches bash's arithmetic contexts.
var arithmetic = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\[\[|\(\(|\blet\b|\b(?:declare|typeset|local|readonly|export)\b[^;&|\n]*\s-\w*i|\s-(?:eq|ne|lt|gt|le|ge)\b`)
})

// programChooser reports whether the variable name chooses a program a
// shell or a tool runs, the code it loads, or where either is found.
func programChooser(name string) bool {
	n := strings.ToUpper(name)
	switch n {
	case "PATH", "BASH_ENV", "ENV", "ZDOTDIR", "PROMPT_COMMAND", "PS4", "SHELLOPTS", "BASHOPTS", "IFS", "CDPATH", "HOME",
		"EDITOR", "VISUAL", "PAGER", "LESSOPEN", "LESSCLOSE", "CC", "CXX", "CPP", "LD", "SHELL", "MANPAGER", "BROWSER",
		"MAKEFLAGS", "MAKEFILES", "PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB", "NODE_OPTIONS", "NODE_PATH",
		"PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_DIRS":
		return true
	}
	for _, p := range []string{"GIT_", "LD_", "BASH_FUNC_", "DYLD_"} {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	for _, x := range []string{"PATH", "_COMMAND", "_CMD", "_EDITOR", "_PAGER", "_ASKPASS", "_PROGRAM", "_SHELL", "_RSH", "_WRAPPER", "_PROG"} {
		if strings.HasSuffix(n, x) {
			return true
		}
	}
	return false
}

// standingNames returns the identifiers that stand in s other than
// expanded ($NAME, ${NAME}): an assignment, read, for, printf -v, or any
// other word that may set them. One pass: each maximal run of identBytes
// not after "$" or "${". An identifier stands in s as a whole word exactly
// where it is such a run, so whether a name stands is its membership
// (TestStandingNames compares it with setsName's search it replaced,
// which read s once per name).
func standingNames(s string) map[string]struct{} {
	out := map[string]struct{}{}
	for i := 0; i < len(s); {
		if !identByte(s[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(s) && identByte(s[j]) {
			j++
		}
		if !(i > 0 && s[i-1] == '$' || i > 1 && s[i-1] == '{' && s[i-2] == '$') {
			out[s[i:j]] = struct{}{}
		}
		i = j
	}
	return out
}

// judgedScript is the text of a command that is judged plain or not: the
// script of an argv that runs a shell's -c ("bash -lc SCRIPT", Codex's
// form; its words, not the joined argv's quotes), else command.
func judgedScript(argv []string, command string) string {
	if len(argv) < 3 || !slices.Contains(shellNames, path.Base(argv[0])) {
		return command
	}
	if o := argv[1]; !strings.HasPrefix(o, "-") || strings.HasPrefix(o, "--") || !strings.ContainsRune(o, 'c') {
		return command
	}
	if argv[2] == "--" && len(argv) > 3 {
		return argv[3]
	}
	if strings.HasPrefix(argv[2], "-") || strings.HasPrefix(argv[2], "+") {
		return command // more options (sh -c -e CODE): each argument is judged (plainCheck.call)
	}
	return argv[2]
}

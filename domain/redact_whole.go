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
var codeWords = []string{"eval", "trap", "alias", "awk", "gawk", "mawk", "nawk", "sed", "gsed", "watch", "ssh", "tmux",
	"screen", "parallel", "m4"}

// inlineCode are the options by which an interpreter takes its code as an
// argument (perl -e, node -p, php -r, pwsh -Command, gdb -ex, emacs
// --eval); a short option holding 'c' is any program's command string
// (sh -c, su -c, script -c, git -c alias.x=!…).
var inlineCode = []string{"-e", "-E", "-p", "-r", "-x", "-ex", "--eval", "--print", "--exec", "--execute", "--command", "-Command", "-command", "eval"}

// computesProgram reports whether the shell text s is not plain: it may
// make a part of its own text what it runs (it is called only for a text
// something would be hidden in). Plain is:
//   - no program word holding a pattern (globProgram);
//   - no substitution, backquote or process substitution, and no
//     expansion but of a variable by its plain name that the text never
//     sets (its name appears only expanded: not NAME=…, read NAME, for
//     NAME, printf -v NAME) and that is not one of tainted (an exec's
//     environment variables whose value would be hidden), or one where a
//     credential goes (credentialAt: "Bearer $T", echo "$PW" | docker
//     login --password-stdin);
//   - in each pipeline that would hide something: no pipe, here-document
//     or here-string into a command holding a code reader (codeReaders),
//     no word that reads a text argument as code (codeWords), no short
//     option holding 'c' (a command string: sh -c, su -c, git -c), no
//     interpreter's inline code (inlineCode), no assignment of a variable
//     that chooses what runs (setsChooser); and no output to a file (a
//     redirection other than to /dev/null or a descriptor, or tee) where
//     the text runs a file (a program by a path, a code reader) that
//     could be it.
func computesProgram(s string, tainted []string) bool {
	s = strings.ReplaceAll(s, "\\\n", "")
	if strings.ContainsAny(s, "`") || strings.Contains(s, "<(") || strings.Contains(s, ">(") || expandsSet(s, tainted) {
		return true
	}
	if globProgram(s) {
		return true
	}
	runsFile := -1 // unknown
	for _, p := range pipelines(s) {
		if lit := plainExpansions().ReplaceAllString(p, "/"); redactSecrets(lit, textMode{shell: true, keysShown: true}) == lit {
			continue // nothing hidden but an expansion ("Bearer $T", read as "Bearer /", a path, which stays in view)
		}
		if feedsCode(p) || namesCode(p) || setsChooser(p) {
			return true
		}
		if writesFiles(p) {
			if runsFile < 0 {
				runsFile = b2i(runsAFile(s))
			}
			if runsFile == 1 {
				return true
			}
		}
	}
	return false
}

// plainExpansions matches $NAME and ${NAME}.
var plainExpansions = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*\})`)
})

// setsChooser reports whether the pipeline p assigns a variable that
// chooses what a program runs or where it is found (programChooser):
// PATH=password=tools x ran the x of a hidden directory.
func setsChooser(p string) bool {
	for _, w := range shellWords(p) {
		if name, _, ok := strings.Cut(w, "="); ok && assignmentWord(w) && programChooser(name) {
			return true
		}
	}
	return false
}

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

// globProgram reports whether a word of s that is a program it runs holds
// a pattern (password*/x): the name it matches may be one s hides.
func globProgram(s string) bool {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte("*?[", s[i]) < 0 {
			continue
		}
		ws := i
		for ws > 0 && strings.IndexByte(" \t\n;&|(){}<>", s[ws-1]) < 0 {
			ws--
		}
		if programWord(s, ws) {
			return true
		}
	}
	return false
}

// namesCode reports whether a word of the pipeline p reads a text
// argument as code: codeWords, a short option holding 'c', an
// interpreter's inline code.
func namesCode(p string) bool {
	words := shellWords(p)
	for i, w := range words {
		if slices.Contains(codeWords, path.Base(w)) || strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.ContainsRune(w, 'c') && len(w) <= 4 {
			return true
		}
		if slices.Contains(inlineCode, w) && slices.ContainsFunc(words[:i], func(p string) bool { return slices.Contains(codeReaders, path.Base(p)) }) {
			return true
		}
	}
	return false
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
	return argv[2]
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// shellWords returns the words of s, cut at blanks and the shell's
// operators, their quotes and escapes trimmed.
func shellWords(s string) []string {
	var out []string
	for w := range strings.FieldsFuncSeq(s, func(r rune) bool { return strings.ContainsRune(" \t\n;&|(){}<>", r) }) {
		out = append(out, strings.Trim(w, `\"'`))
	}
	return out
}

// pipelines cuts s at the shell's command separators outside quotes (';',
// '&&', '||', '&' that is no redirection's, a line end not after a '|'):
// what is left of each is a pipeline, its pipes and redirections in it.
func pipelines(s string) []string {
	var out []string
	start := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' {
				i++
			}
			continue
		case c == '\\':
			i++
			continue
		case c == '\'' || c == '"':
			quote = c
			continue
		}
		cut := false
		switch c {
		case ';':
			cut = true
		case '\n':
			t := strings.TrimRight(s[start:i], " \t")
			cut = !strings.HasSuffix(t, "|")
			if d, ok := hereDelimiter(t); ok {
				// The here-document's lines are its command's input:
				// one pipeline with it, to the delimiter's line.
				end := len(s)
				for j := i + 1; j < len(s); {
					e := nextLineEnd(s, j)
					if strings.TrimLeft(s[j:e], "\t") == d {
						end = e
						break
					}
					j = e + 1
				}
				i = end
				cut = true
			}
		case '&':
			if i+1 < len(s) && s[i+1] == '&' {
				cut = true
			} else {
				cut = !(i > 0 && (s[i-1] == '>' || s[i-1] == '<' || s[i-1] == '|')) && !(i+1 < len(s) && s[i+1] == '>')
			}
		case '|':
			cut = i+1 < len(s) && s[i+1] == '|'
		}
		if cut {
			out = append(out, s[start:i])
			if i+1 < len(s) && (s[i+1] == '&' || s[i+1] == '|') && (c == '&' || c == '|') {
				i++
			}
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// hereDelimiter returns the delimiter of the last here-document that the
// line t opens (<<EOF, <<-'EOF', << "EOF"), if any.
func hereDelimiter(t string) (string, bool) {
	k := strings.LastIndex(t, "<<")
	if k < 0 || strings.HasPrefix(t[k:], "<<<") || k > 0 && t[k-1] == '<' {
		return "", false
	}
	w := strings.TrimLeft(strings.TrimPrefix(t[k+2:], "-"), " \t")
	e := strings.IndexAny(w, " \t;&|<>)")
	if e < 0 {
		e = len(w)
	}
	d := strings.Trim(w[:e], `"'\`)
	return d, d != ""
}

// feedsCode reports whether the pipeline p pipes, or gives a
// here-document or a here-string, into a command holding a code reader.
func feedsCode(p string) bool {
	readers := func(cmd string) bool {
		ws := shellWords(cmd)
		return len(ws) > 0 && ws[0] == "." || slices.ContainsFunc(ws, func(w string) bool { return w != "." && slices.Contains(codeReaders, path.Base(w)) })
	}
	parts := strings.Split(p, "|")
	for i, part := range parts {
		if (i > 0 || strings.Contains(part, "<<")) && readers(part) {
			return true
		}
	}
	return false
}

// writesFiles reports whether the pipeline p writes its output to a
// file: a redirection ('>', '>>', '&>', '>|') to anything but /dev/null
// or a descriptor (2>&1), or tee.
func writesFiles(p string) bool {
	if slices.Contains(shellWords(p), "tee") {
		return true
	}
	for i := strings.IndexByte(p, '>'); i >= 0; {
		t := strings.TrimLeft(p[i+1:], ">|")
		if !strings.HasPrefix(t, "&") && !strings.HasPrefix(strings.TrimLeft(t, " \t"), "/dev/null") {
			return true
		}
		next := strings.IndexByte(p[i+1:], '>')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return false
}

// runsAFile reports whether s runs a program by a path (./r.sh, tools/x)
// or a code reader (sh r.sh, . ./r.sh): one that may be a file s wrote.
func runsAFile(s string) bool {
	for _, p := range pipelines(s) {
		if line, _, ok := strings.Cut(p, "\n"); ok {
			if _, here := hereDelimiter(strings.TrimRight(line, " \t")); here {
				p = line // a here-document's lines are its input, not commands
			}
		}
		if runsAFileIn(p) {
			return true
		}
	}
	return false
}

func runsAFileIn(s string) bool {
	for i := 0; i < len(s); i++ {
		if i > 0 && strings.IndexByte(" \t\n;&|(){}", s[i-1]) < 0 || strings.IndexByte(" \t\n;&|(){}<>", s[i]) >= 0 {
			continue // not a word's start
		}
		e := i
		for e < len(s) && strings.IndexByte(" \t\n;&|(){}<>", s[e]) < 0 {
			e++
		}
		w := strings.Trim(s[i:e], `\"'`)
		if programWord(s, i) && (strings.Contains(w, "/") || slices.Contains(codeReaders, path.Base(w))) {
			return true
		}
	}
	return false
}

// expandsSet reports whether s expands anything but a variable by its
// plain name that s never sets and tainted does not name, or one where a
// credential goes.
func expandsSet(s string, tainted []string) bool {
	for i := strings.IndexByte(s, '$'); i >= 0; {
		j := i + 1
		switch {
		case j >= len(s) || strings.IndexByte(" \t\n\"';&|)", s[j]) >= 0:
			// A '$' alone is no expansion.
		case s[j] == '{' || identByte(s[j]) && !(s[j] >= '0' && s[j] <= '9'):
			k := j
			if s[k] == '{' {
				k++
			}
			e := k
			for e < len(s) && identByte(s[e]) {
				e++
			}
			if e == k || s[j] == '{' && (e >= len(s) || s[e] != '}') {
				return true // ${#T}, ${T#*=}, ${!T}, ${T:1}: the value changed or another's read
			}
			if cred, _ := credentialAt(s, i, e); !cred && (slices.Contains(tainted, s[k:e]) || setsName(s, s[k:e])) {
				return true
			}
		default:
			return true // $1, $@, $(…), $((…)), $'…'
		}
		next := strings.IndexByte(s[i+1:], '$')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return false
}

// setsName reports whether the identifier name stands in s other than
// expanded ($NAME, ${NAME}): an assignment, read, for, printf -v, or any
// other word that may set it.
func setsName(s, name string) bool {
	for i := strings.Index(s, name); i >= 0; {
		end := i + len(name)
		whole := (i == 0 || !identByte(s[i-1])) && (end == len(s) || !identByte(s[end]))
		expanded := i > 0 && s[i-1] == '$' || i > 1 && s[i-1] == '{' && s[i-2] == '$'
		if whole && !expanded {
			return true
		}
		next := strings.Index(s[i+1:], name)
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return false
}

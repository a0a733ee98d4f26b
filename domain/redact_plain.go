package domain

import (
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// plainCheck judges one shell text as the shell reads it (mvdan.cc/sh's
// parser, bash's grammar): a text it cannot parse is not plain.
type plainCheck struct {
	s       string
	tainted []string
	not     bool // found: not plain
	writes  bool // some command writes a file
	runs    bool // some command runs a file (a path, a code reader given one)
	hidden  []hiddenSpan
	spansOK bool // hidden is known
	// standing are the identifiers that stand in s other than expanded
	// (standingNames; nil: not yet read), for setsIn.
	standing map[string]struct{}
	f        *syntax.File // s parsed
	// outer is the check of the text whose nested shell reads s
	// (sh -c '…'; nil: none): a name a text around s sets is set (setsIn),
	// a hidden or secret-named value one assigns is assigned (setsSecret).
	outer *plainCheck
	// secretSet remembers setsSecret (0: not asked, 1: no, 2: yes).
	secretSet int8
}

// hiddenAt reports whether the node w (a word, an assignment) lies on a
// part of the text the redaction hides (in its context: "Bearer rm" hides
// rm), or the text's hidden parts cannot be told.
func (c *plainCheck) hiddenAt(w syntax.Node) bool {
	if !c.spansOK {
		c.spansOK = true
		r := redactSecrets(c.s, textMode{shell: true, keysShown: true})
		var ok bool
		if c.hidden, ok = hiddenSpans(c.s, r); !ok {
			c.hidden = []hiddenSpan{{a: 0, e: len(c.s)}}
		}
		c.hidden = mergeSpans(c.hidden)
	}
	// The spans are sorted and apart: the first that ends after a is the
	// only one that may overlap [a, e) first (a search, not a walk of
	// every span for every word: the hundred-and-forty-seventh review).
	a, e := int(w.Pos().Offset()), int(w.End().Offset())
	i := sort.Search(len(c.hidden), func(i int) bool { return c.hidden[i].e > a })
	return i < len(c.hidden) && c.hidden[i].a < e
}

// mergeSpans sorts spans by their start and merges those that overlap
// (not those that only touch: a word between two is on neither).
func mergeSpans(spans []hiddenSpan) []hiddenSpan {
	spans = slices.Clone(spans)
	slices.SortFunc(spans, func(x, y hiddenSpan) int { return x.a - y.a })
	out := spans[:0]
	for _, h := range spans {
		if n := len(out); n > 0 && h.a < out[n-1].e {
			out[n-1].e = max(out[n-1].e, h.e)
			continue
		}
		out = append(out, h)
	}
	return out
}

// parsePlain reports whether the shell text s is plain (see
// computesProgram), tainted naming the environment's variables whose
// values are hidden.
func parsePlain(s string, tainted []string) bool { return parsePlainIn(s, tainted, nil) }

// parsePlainIn is parsePlain of a nested shell's script s, read within the
// text outer checks (plainCheck.outer; nil: none).
func parsePlainIn(s string, tainted []string, outer *plainCheck) bool {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false)).Parse(strings.NewReader(s), "")
	if err != nil {
		return false
	}
	c := &plainCheck{s: s, tainted: tainted, f: f, outer: outer}
	syntax.Walk(f, c.visit)
	return !c.not && !(c.writes && c.runs)
}

func (c *plainCheck) visit(n syntax.Node) bool {
	if c.not || n == nil {
		return false
	}
	switch x := n.(type) {
	case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause,
		*syntax.CoprocClause, *syntax.FuncDecl, *syntax.ExtGlob, *syntax.BraceExp:
		// A substitution's output, arithmetic's assignments, a function
		// (a filter's name may be one), a coprocess: not plain.
		c.not = true
	case *syntax.ParamExp:
		c.not = !c.plainParam(x)
	case *syntax.DeclClause:
		c.declare(x)
	case *syntax.ForClause:
		c.not = true // its variable is set from its words
	case *syntax.Stmt:
		c.stmt(x)
	case *syntax.BinaryCmd:
		if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
			c.pipeInto(x)
		}
	case *syntax.CallExpr:
		c.call(x)
	}
	return !c.not
}

// shellSet are the variables the shell sets itself: "never set by the
// text" does not make their values the environment's.
var shellSet = []string{"_", "BASH", "BASH_COMMAND", "BASH_ARGV", "BASH_ARGV0", "BASH_SOURCE", "BASH_REMATCH",
	"BASHPID", "PWD", "OLDPWD", "REPLY", "OPTARG", "OPTIND", "MAPFILE", "COPROC", "FUNCNAME", "LINENO", "RANDOM",
	"SRANDOM", "SECONDS", "EPOCHREALTIME", "EPOCHSECONDS", "HISTCMD", "PIPESTATUS", "READLINE_LINE", "COMP_LINE",
	"COMP_WORDS", "DIRSTACK", "GROUPS", "HOSTNAME", "HOSTTYPE", "MACHTYPE", "OSTYPE", "PPID", "UID", "EUID", "SHLVL",
	"SHELLOPTS", "BASHOPTS"}

// plainParam reports whether the expansion x is plain: $NAME or ${NAME},
// no operator, of a variable the text never sets, not the shell's own, not
// an environment value hidden; or one where a credential goes.
func (c *plainCheck) plainParam(x *syntax.ParamExp) bool {
	if x.Param == nil || x.Excl || x.Length || x.Width || x.IsSet || x.Index != nil || x.Slice != nil || x.Repl != nil ||
		x.Names != 0 || x.Exp != nil || len(x.Modifiers) > 0 || x.NestedParam != nil {
		return false
	}
	name := x.Param.Value
	if name == "" || !identByte(name[0]) || name[0] >= '0' && name[0] <= '9' || slices.Contains(shellSet, name) {
		return false // $1, $@, $_, $BASH, $REPLY …
	}
	if !slices.Contains(c.tainted, name) && !c.setsIn(name) {
		return true
	}
	i, e := int(x.Dollar.Offset()), int(x.Param.End().Offset())
	if i < 0 || e > len(c.s) || i >= e {
		return false
	}
	cred, _ := credentialAt(c.s, i, e)
	return cred // (a hidden value piped on to a reader of code: pipeInto)
}

// declare: declare -n (a reference) and any declaration of a variable
// that chooses what runs make the text not plain.
func (c *plainCheck) declare(x *syntax.DeclClause) {
	for _, a := range x.Args {
		if a.Name != nil && programChooser(a.Name.Value) {
			c.not = true
		}
		if a.Naked && a.Value != nil {
			if w, ok := literal(a.Value); ok && strings.HasPrefix(w, "-") && strings.ContainsAny(w, "n") {
				c.not = true
			}
		}
	}
}

// stmt: a here-document or a here-string into a command that reads its
// input as code; an output to a file.
func (c *plainCheck) stmt(x *syntax.Stmt) {
	for _, r := range x.Redirs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			// Into a reader of code, whatever its script (sh /dev/fd/0
			// <<EOF, sh /dev/fd/3 3<<EOF read it as one).
			if readsStdinAsCode(x.Cmd) || codeReader(x.Cmd) {
				c.not = true
			}
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut:
			if w, ok := literal(r.Word); !ok || w != "/dev/null" {
				c.writes = true
			}
		case syntax.DplOut:
			if w, ok := literal(r.Word); !ok || strings.Trim(w, "0123456789-") != "" {
				c.writes = true // >&g is bash's &>g
			}
		case syntax.RdrIn, syntax.DplIn:
			if readsStdinAsCode(x.Cmd) {
				c.runs = true // sh < g: a file as code
			}
		}
	}
}

// pipeInto: a pipe into a command that reads its input as code, of what
// would be hidden or a hidden environment value.
func (c *plainCheck) pipeInto(x *syntax.BinaryCmd) {
	if x.Y != nil && readsStdinAsCode(x.Y.Cmd) {
		if !download(x.X) {
			c.runs = true // cat g | sh: a file the text wrote may be what it reads
		}
		if c.carries(x.X) || !download(x.X) && c.setsSecret() {
			// A hidden value the reader's code may read by a name it
			// builds (c.setsSecret).
			c.not = true
		}
	}
}

// download reports whether the statement fetches what it prints (curl
// URL, wget -O- URL): piped into a shell it is the server's script, not a
// file the text wrote.
func download(st *syntax.Stmt) bool {
	x, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(st.Redirs) > 0 {
		return false
	}
	words, ok := literals(x.Args)
	if !ok || len(words) == 0 {
		return false
	}
	base := path.Base(words[0])
	return (base == "curl" || base == "wget") && !slices.ContainsFunc(words[1:], func(w string) bool {
		return strings.HasPrefix(w, "file:") || strings.HasPrefix(w, "@") || w == "-K" || w == "--config"
	})
}

// plainExpansions matches $NAME and ${NAME}.
var plainExpansions = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*\})`)
})

// carries reports whether the node's text holds what would be hidden (an
// expansion read as a path, which stays in view: "Bearer $T" is no
// secret of the text's own) or expands a variable whose value is.
func (c *plainCheck) carries(n syntax.Node) bool {
	i, e := int(n.Pos().Offset()), int(n.End().Offset())
	if i < 0 || e > len(c.s) || i > e {
		return true
	}
	t := c.s[i:e]
	if lit := plainExpansions().ReplaceAllString(t, "/"); redactSecrets(lit, textMode{shell: true, keysShown: true}) != lit {
		return true
	}
	if c.expandsTainted(t) {
		return true
	}
	// A listing of the environment prints the hidden values too.
	return len(c.tainted) > 0 && envLister().MatchString(t)
}

// expandsTainted reports whether t expands a variable whose value is hidden.
func (c *plainCheck) expandsTainted(t string) bool {
	for _, name := range c.tainted {
		if strings.Contains(t, "$"+name) || strings.Contains(t, "${"+name+"}") {
			return true
		}
	}
	return false
}

// envLister matches a word that lists the environment (env, printenv,
// set, export -p, declare -p, /proc/…/environ), however it is quoted.
var envLister = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[^A-Za-z0-9_])["'\\]*(?:e["'\\]*n["'\\]*v|printenv|set|export|declare|typeset|compgen|environ)(?:$|[^A-Za-z0-9_])`)
})

// call judges a simple command: its assignments, its program (after the
// runners that run the next word), a program that takes code.
func (c *plainCheck) call(x *syntax.CallExpr) {
	for _, a := range x.Assigns {
		if a.Name != nil && programChooser(a.Name.Value) {
			c.not = true // PATH=…, BASH_ENV=…, GIT_…
			return
		}
	}
	words, ok := literals(x.Args)
	if !ok {
		// A word of the command is computed (a plain $NAME argument is
		// read by the walk): its program must not be.
		if len(x.Args) > 0 {
			if _, lit := literal(x.Args[0]); !lit {
				c.not = true
			}
		}
		words = literalWordsPrefix(x.Args)
	}
	if slices.ContainsFunc(words, func(w string) bool {
		name, _, _ := strings.Cut(w, "=")
		return assignmentWord(w) && programChooser(name)
	}) {
		c.not = true // env PATH=.:/bin g, sudo BASH_ENV=g …
		return
	}
	prog, rest := program(words)
	if prog == "" {
		if !ok && len(words) > 0 {
			c.not = true // the program past the runners is computed (flock l "$SHELL" -c …)
		}
		return
	}
	if prog == "\x00" {
		c.not = true // a runner's option may name the program
		return
	}
	if strings.ContainsAny(prog, "*?[") {
		c.not = true // a pattern names the program
		return
	}
	if hidesText(prog) {
		c.not = true // the program itself would be hidden (ionice password=tools/x)
		return
	}
	if i := len(words) - len(rest) - 1; i >= 0 && i < len(x.Args) && c.hiddenAt(x.Args[i]) {
		c.not = true // hidden where it stands (flock Bearer rm -rf x: rm as a bearer token)
		return
	}
	base := readerBase(path.Base(prog))
	shellInline, shellScript, _ := shellArgs(rest)
	if !slices.Contains(shellNames, base) || !shellInline {
		// A shell's inline code is parsed below; any other word that
		// hides something must not read as a command line a program may
		// hand to a shell (git --upload-pack='…', make --eval='…').
		for _, w := range x.Args[1:] {
			if t, ok := c.wordText(w); ok && (hidesText(t) || c.expandsTainted(t)) && mayBeCode(t) {
				c.not = true
				return
			}
		}
	}
	if !(slices.Contains(shellNames, base) && shellInline) && codeGivenIn(words) && c.setsSecret() {
		// An interpreter's code in view, wherever it stands (find -exec
		// python3 -c, python3 -m timeit -s, python3.11 -c), may read a
		// hidden value by a name it builds (a shell's inline code is
		// judged below, within this text).
		c.not = true
		return
	}
	if (slices.Contains(argRunners, base) || runsFromArgs(rest) || computedInterpreter(x.Args)) && c.carries(x) {
		// Its arguments may name a program and its code (find . -exec sh
		// -c '…' \;, flock l sh -c '…', tar --to-command='sh …', a
		// computed word: $SHELL -c '…'): what would be hidden in them may
		// be what runs.
		c.not = true
		return
	}
	switch {
	case slices.Contains(codeWords, base):
		c.not = true // eval, trap, alias, awk, sed, watch, ssh …
	case slices.Contains(codeReaders, base) || base == "." || base == "source":
		if slices.ContainsFunc(x.Args, braced) && c.carries(x) {
			c.not = true // braces may make its options and its code (sh {-c,'…'})
		} else if slices.Contains(shellNames, base) && shellInline || !slices.Contains(shellNames, base) && inlineCodeIn(rest) {
			// sh -c, perl -e, node -p: its code is judged as the shell
			// reads it (a language's code, which no shell parses, is
			// plain only where it hides nothing).
			if slices.Contains(shellNames, base) {
				// Each argument is judged as a script: which one the
				// shell takes for its command string depends on its
				// options (sh -e -c CODE, sh -o errexit -c CODE).
				for _, w := range x.Args[1:] {
					if code, ok := c.wordText(w); !ok || !parsePlainIn(code, c.tainted, c) {
						c.not = true
					}
				}
			} else if c.carries(x) || c.setsSecret() {
				c.not = true // (c.setsSecret: a name its code builds)
			}
		} else if shellScript && slices.Contains(shellNames, base) || scriptArg(rest) {
			c.runs = true // sh g, . ./g, python3 g.py
			for _, w := range x.Args[min(len(words)-len(rest), len(x.Args)):] {
				if l, _ := literal(w); strings.HasPrefix(l, "-") || strings.HasPrefix(l, "+") {
					continue // an option (its argument is taken for the script: conservative)
				}
				if c.hiddenAt(w) {
					c.not = true // the script read may be the hidden part (sh password=NAME)
				}
				break // the script; its arguments follow
			}
		}
	case strings.Contains(prog, "/"):
		c.runs = true // ./g, tools/x
	case slices.Contains(fileWriters, base):
		c.writes = true
	case (base == "curl" || base == "wget") && slices.ContainsFunc(rest, func(w string) bool {
		return strings.HasPrefix(w, "-o") || strings.HasPrefix(w, "-O") || strings.HasPrefix(w, "--output")
	}):
		c.writes = true
	}
	if slices.ContainsFunc(rest, func(w string) bool {
		return strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.Contains(w, "c")
	}) &&
		slices.Contains(commandStringTakers, base) {
		c.not = true // su -c, git -c alias.x=!…, script -c, flock -c
	}
}

// wordText is w's text as a nested shell reads it: quotes removed, plain
// expansions kept as written.
func (c *plainCheck) wordText(w *syntax.Word) (string, bool) {
	if braced(w) {
		return "", false
	}
	var b strings.Builder
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(x.Value))
		case *syntax.SglQuoted:
			if x.Dollar {
				return "", false
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				switch y := q.(type) {
				case *syntax.Lit:
					b.WriteString(dblQuotedLit(y.Value))
				case *syntax.ParamExp:
					if !c.writeSource(&b, y) {
						return "", false
					}
				default:
					return "", false
				}
			}
		case *syntax.ParamExp:
			if !c.writeSource(&b, x) {
				return "", false
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// writeSource writes the text of n as written in the command.
func (c *plainCheck) writeSource(b *strings.Builder, n syntax.Node) bool {
	i, e := int(n.Pos().Offset()), int(n.End().Offset())
	if i < 0 || e > len(c.s) || i > e {
		return false
	}
	b.WriteString(c.s[i:e])
	return true
}

// dblQuotedLit is a literal part of a double-quoted string as the shell
// reads it: its escapes removed.
func dblQuotedLit(v string) string {
	return strings.NewReplacer(`\"`, `"`, `\\`, `\`, `\$`, `$`, "\\`", "`", "\\\n", "").Replace(v)
}

// fileWriters write a file they are given (dd of=, cp, install …).
var fileWriters = []string{"dd", "cp", "mv", "install", "ln", "tee", "sponge", "rsync", "tar", "unzip", "gunzip",
	"split", "csplit", "patch", "truncate", "ed", "ex"}

// commandStringTakers take a command string with an option holding 'c'.
var commandStringTakers = []string{"su", "git", "script", "flock", "runuser", "sudo", "doas", "tmux", "screen", "vim", "vi", "nvim", "expect"}

// runners run the next word that is not an option (or an assignment, or
// a number of a timeout) as the program.
var runners = []string{"env", "command", "builtin", "exec", "nohup", "nice", "stdbuf", "setsid", "timeout", "time", "flock", "sg", "xargs",
	"sudo", "doas", "ionice", "taskset", "chrt", "setarch", "linux32", "linux64", "unshare", "nsenter", "chroot",
	"prlimit", "systemd-run", "runuser", "setpriv", "strace", "ltrace", "busybox", "firejail", "catchsegv", "xvfb-run", "torsocks", "proxychains", "proxychains4"}

// program returns the program a simple command's words run and its
// arguments, past the runners before it.
func program(words []string) (string, []string) {
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !slices.Contains(runners, path.Base(w)) {
			if i > 0 && strings.HasPrefix(w, "-") {
				return "\x00", nil // an option after a runner's operand (setarch x86_64 -R …)
			}
			return w, words[i+1:]
		}
		base := path.Base(w)
		for i+1 < len(words) && (strings.HasPrefix(words[i+1], "-") || assignmentWord(words[i+1]) && (base == "env" || base == "sudo") ||
			runnerOperands[base] == 0 && duration(words[i+1])) {
			if o := words[i+1]; strings.HasPrefix(o, "-") && !slices.Contains(runnerFlags, o) {
				// An option may take the next word (env -u NAME, exec
				// -a NAME, timeout -s SIG): which word runs is not told.
				return "\x00", nil
			}
			i++
		}
		// The operand a runner takes before its program (setarch ARCH,
		// chroot DIR, flock FILE).
		if n := runnerOperands[base]; n > 0 && i+n < len(words) {
			i += n
		}
	}
	return "", nil
}

// runnerOperands are the operands runners take before the program.
var runnerOperands = map[string]int{"setarch": 1, "chroot": 1, "flock": 1, "chrt": 1, "taskset": 1, "sg": 1}

// duration reports whether w is a number or a duration (timeout 5, 2.5s,
// 1m), the argument a runner takes before its program.
func duration(w string) bool {
	return w != "" && w[0] >= '0' && w[0] <= '9' && strings.Trim(w, "0123456789.smhd") == ""
}

// runnerFlags are runners' options that take no argument.
var runnerFlags = []string{"-i", "-", "--", "-p", "-E", "-H", "-n", "--foreground", "--preserve-status", "-v", "-V", "-0", "--ignore-environment"}

// readsStdinAsCode reports whether the command reads its input as code or
// as a command's words: a shell or an interpreter given no script (or
// "-", -s, /dev/stdin), xargs, parallel, awk, sed, source of /dev/stdin,
// anywhere past the runners (env sh, command sh, xargs sh); a compound
// command or one with a computed word.
func readsStdinAsCode(cmd syntax.Command) bool {
	x, ok := cmd.(*syntax.CallExpr)
	if !ok {
		return cmd != nil // a subshell, a block, a loop (while read): not judged
	}
	words, ok := literals(x.Args)
	if !ok {
		return true
	}
	if slices.ContainsFunc(words, func(w string) bool { return path.Base(w) == "xargs" }) {
		return true // its input is a command's words (… | xargs find . -exec …)
	}
	prog, rest := program(words)
	if prog == "" || prog == "\x00" {
		return len(words) > 0 // only runners: what they run is not told
	}
	base := readerBase(path.Base(prog))
	switch {
	case slices.Contains([]string{"xargs", "parallel", "awk", "gawk", "mawk", "nawk", "sed", "gsed", "eval", "read", "mapfile", "readarray", "ed", "ex"}, base):
		return true
	case base == "." || base == "source":
		return len(rest) == 0 || rest[0] == "/dev/stdin" || rest[0] == "-"
	case slices.Contains(shellNames, base):
		_, script, stdin := shellArgs(rest)
		return !script || stdin || slices.Contains(rest, "/dev/stdin")
	case slices.Contains(codeReaders, base):
		return !scriptArg(rest) || slices.Contains(rest, "-") || slices.Contains(rest, "-s") || slices.Contains(rest, "/dev/stdin")
	}
	return false
}

// codeReader reports whether the command runs a shell, an interpreter or
// another reader of code, whatever it is given.
func codeReader(cmd syntax.Command) bool {
	x, ok := cmd.(*syntax.CallExpr)
	if !ok {
		return cmd != nil
	}
	words, ok := literals(x.Args)
	if !ok {
		return true
	}
	prog, _ := program(words)
	if prog == "" {
		return len(words) > 0
	}
	base := readerBase(path.Base(prog))
	return prog == "\x00" || base == "." || base == "source" || slices.Contains(codeReaders, base)
}

// scriptArg reports whether an interpreter's arguments name a script (a
// word that is no option) or a module (-m).
func scriptArg(rest []string) bool {
	for i, w := range rest {
		if w == "-m" && i+1 < len(rest) {
			return true
		}
		if !strings.HasPrefix(w, "-") {
			return true
		}
	}
	return false
}

// inlineCodeIn reports whether an interpreter's arguments give it code: a
// short option holding 'c' (sh -c, bash -lc, python3 -c) or one of
// inlineCode.
func inlineCodeIn(rest []string) bool {
	for _, w := range rest {
		if !strings.HasPrefix(w, "-") {
			return false // the script's arguments follow
		}
		if slices.Contains(inlineCode, w) || !strings.HasPrefix(w, "--") && strings.Contains(w, "c") {
			return true
		}
	}
	return false
}

// literal returns the word w as the shell reads it, its quotes and
// escapes removed, when it holds no expansion.
func literal(w *syntax.Word) (string, bool) {
	if w == nil || braced(w) {
		return "", false // bash's brace expansion: {sh,} is sh, {sh,-c,CODE} three words
	}
	var b strings.Builder
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(x.Value))
		case *syntax.SglQuoted:
			if x.Dollar {
				return "", false // $'…': its escapes are read
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(dblQuotedLit(l.Value))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unescape removes an unquoted word's backslashes (s\h is sh).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// literals returns the words as the shell reads them, ok when none holds
// an expansion.
func literals(ws []*syntax.Word) ([]string, bool) {
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		l, ok := literal(w)
		if !ok {
			return out, false
		}
		out = append(out, l)
	}
	return out, true
}

// literalWordsPrefix returns the literal words before the first that is not.
func literalWordsPrefix(ws []*syntax.Word) []string {
	out, _ := literals(ws)
	return out
}

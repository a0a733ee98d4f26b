package sandbox

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// .envrc read as bash reads it, for the bare names it gives
// (launcherbare.go).

// envrcBareRefs: every word of .envrc as the shell reads it (quotes,
// backslashes and $'…' decoded, braces expanded: "my env.sh", en\v.sh,
// $'env\x2esh' and {env,x}.sh are env.sh to bash), arguments,
// assignments, redirections' targets (source /dev/stdin < env.sh) and a
// for loop's words, in command substitutions too; the script a string
// hands eval or a shell's -c is read as .envrc is (the
// hundred-and-forty-ninth review). patterns are the words with a wildcard
// that a for loop iterates (for f in *.sh; do source "$f"; done): a
// launcher pattern. Where the script does not parse, the words of each
// line after its first.
//
// run are the words in a place where the shell runs, sources or puts in
// PATH what they name (launcherRuns, an input redirection's target, an
// assignment's value, the words a loop whose body runs one iterates): a
// missing one is watched, as the line parser (envrcRefs) watches
// `source X` (`bash setup.sh` with no setup.sh yet: a command that made it
// had the person's next direnv run it; review 146's case, left then).
func envrcBareRefs(data []byte) bareRefs {
	var r bareRefs
	envrcWords(string(data), 0, &r)
	return r
}

// envrcBareRefsWith is envrcBareRefs where the functions runners (a
// library the .envrc sources defined them) run what they are given.
func envrcBareRefsWith(data []byte, runners []string) bareRefs {
	var r bareRefs
	envrcWordsWith(string(data), 0, &r, runners)
	return r
}

// envrcRunners returns runners and the functions a script defines that
// run or source what they are given, or call one of runners
// (envrcWordsWith's runners).
func envrcRunners(script string, runners []string) []string {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "lib")
	if err != nil {
		return runners
	}
	return funcRunners(f, runners)
}

// funcRunners adds to runners the functions f defines whose bodies run
// or source a file, or call such a function (bash looks a function up
// when it is called, so one may call a runner defined below it: the
// hundred-and-fifty-ninth review): a call graph built in one walk and
// searched back from the direct runners, so that a chain of functions
// costs its length, not its square (the hundred-and-sixty-first review:
// repeated passes took 7 s for 1,500 chained functions).
func funcRunners(f *syntax.File, runners []string) []string {
	calls := map[string][]string{}
	var direct []string
	syntax.Walk(f, func(n syntax.Node) bool {
		fd, ok := n.(*syntax.FuncDecl)
		if !ok || fd.Name == nil || fd.Body == nil {
			return true
		}
		name := fd.Name.Value
		runs := false
		syntax.Walk(fd.Body, func(n syntax.Node) bool {
			if c, ok := n.(*syntax.CallExpr); ok {
				vs := firstValues(c.Args)
				if runsFiles(vs) > 0 {
					runs = true
				}
				if len(vs) > 0 && vs[0] != "" && vs[0] != name {
					calls[vs[0]] = append(calls[vs[0]], name) // callee -> callers
				}
			}
			return true
		})
		if runs {
			direct = append(direct, name)
		}
		return true
	})
	out := slices.Clone(runners)
	marked := map[string]bool{}
	for _, r := range runners {
		marked[r] = true
	}
	queue := slices.Clone(runners)
	for _, d := range direct {
		if !marked[d] {
			marked[d] = true
			out = append(out, d)
		}
		queue = append(queue, d)
	}
	for len(queue) > 0 {
		fn := queue[0]
		queue = queue[1:]
		for _, caller := range calls[fn] {
			if !marked[caller] {
				marked[caller] = true
				out = append(out, caller)
				queue = append(queue, caller)
			}
		}
	}
	return out
}

// launcherRuns are the programs that run, source or put in PATH the files
// their arguments name, as .envrc calls them (direnv's stdlib, the shells
// and interpreters given a script, cat read into eval).
var launcherRuns = []string{"source", ".", "source_env", "source_env_if_exists", "source_up", "source_up_if_exists",
	"dotenv", "dotenv_if_exists", "PATH_add", "path_add", "load_prefix", "cat",
	"python", "python3", "perl", "ruby", "node", "sh", "bash", "dash", "zsh", "ksh", "mksh", "yash", "ash", "busybox",
	// The runners that add an extension to the name they are given
	// (resolvedExtensions: the hundred-and-eighty-first review). Not bun
	// and deno, whose first word is as often a subcommand (bun run build,
	// deno task test): their bare words watched set aside an ordinary
	// build's output (the hundred-and-eighty-second review); a path they
	// run (bun scripts/boot) is read as any path is.
	"tsx", "ts-node"}

// runsFiles returns how many of a call's words (args, their values) come
// before the arguments that name what it runs or sources: those up to the
// first that names such a program, wherever it stands (builtin source,
// command ., env A=1 bash, timeout 60 bash, nice -n 5 bash, direnv_load
// bash: a wrapper's options and arguments before it, the hundred-and-
// fifty-fourth review), or 0 when none does.
func runsFiles(args []string) int {
	for k, a := range args {
		if a != "" && (slices.Contains(launcherRuns, path.Base(a)) || pythonName(a)) { // "" (an expansion) is no "."
			return k + 1
		}
	}
	return 0
}

// envrcShells are the shells whose -c script is read as .envrc is.
var envrcShells = []string{"sh", "bash", "dash", "zsh", "ksh", "mksh", "yash", "ash", "busybox"}

// maxEnvrcDepth bounds the scripts read inside strings (eval "…").
const maxEnvrcDepth = 3

func envrcWords(script string, depth int, r *bareRefs) {
	envrcWordsWith(script, depth, r, nil)
}

// envrcWordsWith is envrcWords with the functions an enclosing script
// defined that run or source what they are given (runners).
func envrcWordsWith(script string, depth int, r *bareRefs, runners []string) {
	envrcWordsIn(script, depth, r, runners, nil)
}

// envrcWordsIn is envrcWordsWith for a script that runs where the script
// handing it on (eval, sh -c, trap) may have gone (outer: its envrcDirs):
// cd tools; sh -c './setup.sh' runs tools/setup.sh (review 192).
func envrcWordsIn(script string, depth int, r *bareRefs, runners []string, outer envrcDirs) {
	script = string(markGitTop([]byte(script)))
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), ".envrc")
	if err != nil {
		for line := range lines([]byte(script)) {
			ws := strings.Fields(line)
			for i, w := range ws {
				if strings.HasPrefix(w, "#") {
					break
				}
				if i > 0 {
					w = strings.Trim(w, `"'`)
					r.names = append(r.names, w)
					if k := runsFiles(ws); k > 0 && i >= k {
						r.run = append(r.run, w)
					}
				}
			}
		}
		return
	}
	// dirs are where a cd may have left the script, as envrcRefs tracks
	// them (the walk meets the calls in the script's order, a function's
	// body and a subshell's included); at reads a name from each.
	dirs := slices.Clone(outer)
	at := func(vs []string) []string {
		return append(vs, dirs.names(vs)...)
	}
	add := func(w *syntax.Word, run bool) []string {
		vs := wordValues(w)
		if len(vs) == 0 {
			vs = substValues(w)
		}
		if len(vs) == 0 {
			// The project's directory spelled as an expansion ("$PWD"/x,
			// ${PWD%/}/x, $(pwd -P)/x: review 190), read as ".".
			if v := wordTexts(script, []*syntax.Word{w})[0]; v != "" && !strings.ContainsAny(v, "$`") {
				vs = []string{v}
			}
		}
		vs = at(vs)
		r.names = append(r.names, vs...)
		if run {
			r.run = append(r.run, vs...)
		}
		return vs
	}
	// An assignment's value, each element of a ":"-list (PATH=bin:$PATH
	// puts bin in PATH; the line parser watches every such value too).
	assign := func(w *syntax.Word) {
		for _, v := range at(listValues(w)) {
			r.names = append(r.names, v)
			r.run = append(r.run, v)
		}
	}
	// A function whose body runs or sources a file (load() { source
	// "$1"; }) runs what its calls name, as source does (the
	// hundred-and-fifty-eighth review: load site.sh with no site.sh yet).
	runners = funcRunners(f, runners)
	runs := func(args []string) int {
		if k := runsFiles(args); k > 0 {
			return k
		}
		for k, a := range args {
			if a != "" && slices.Contains(runners, a) {
				return k + 1
			}
		}
		return 0
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CallExpr:
			var args []string
			fv := firstValues(x.Args)
			if len(fv) > 1 && (fv[0] == "builtin" || fv[0] == "command") {
				fv = fv[1:]
			}
			if len(fv) > 0 && (fv[0] == "cd" || fv[0] == "pushd" || fv[0] == "popd") {
				// Where the script goes, not a name it runs.
				if fv[0] != "popd" {
					dirs.cd(fv)
				}
				return true
			}
			dirs.chdir(fv)
			// A build or task runner's file (cd tools && make runs
			// tools/Makefile's recipes; envrcbuild.go).
			br := envrcBuildRefs(firstValues(x.Args)) // command -v make is a check
			for _, v := range at(br.files) {
				r.names = append(r.names, v)
				r.run = append(r.run, v)
			}
			r.patterns = append(append(r.patterns, at(br.patterns)...), br.here...)
			for i, a := range x.Args {
				if i == 0 {
					vs := wordValues(a)
					args = append(args, vs...) // a program's name is looked up in PATH
					if o, e := int(a.Pos().Offset()), int(a.End().Offset()); len(vs) > 0 && o >= 0 && o <= e && e <= len(script) &&
						strings.Contains(script[o:e], "/") {
						// A program run by its path (./setup.sh), from
						// where a cd may have left the script: the line
						// reader takes it at the top, not in sh -c '…'
						// (review 192).
						add(a, true)
					}
					continue
				}
				args = append(args, add(a, false)...)
			}
			// node . (keepBare drops "."), node "$PWD", node "$(git
			// rev-parse --show-toplevel)", serve . where serve() runs
			// node: the directory as a module (dirmodule.go; reviews 182
			// and 185).
			for i, w := range fv {
				if !moduleRunner(w) && !slices.Contains(runners, w) {
					continue
				}
				off := len(x.Args) - len(fv) + i + 1
				for _, a := range scriptArgsOf(w, x.Args[off:], fv[i+1:]) {
					if v, ok := moduleDirArg(script, a); ok {
						r.modules = append(r.modules, at([]string{v})...)
					}
				}
				break
			}
			if pythonLayout(fv) {
				// direnv's layout python (and pipenv, pyenv, anaconda…)
				// runs python -c "import pkgutil, platform…" in the
				// .envrc's directory each time the person enters it.
				r.pyPaths = append(r.pyPaths, at([]string{"."})...)
			}
			if k := runs(firstValues(x.Args)); k > 0 {
				for _, a := range x.Args[k:] {
					add(a, true)
				}
				if a := firstValues(x.Args); k <= len(a) && pythonName(a[k-1]) {
					vals := wordTexts(script, x.Args[k:])
					// python -m venv: the module, looked up in the
					// current directory first (pymodule.go).
					if m := pythonModuleArg(vals); m != "" {
						for _, dir := range at([]string{"."}) {
							r.pyModules = append(r.pyModules, pyModuleRef{dir, m})
						}
					}
					// The directory it puts first on sys.path, where a
					// module of a standard library name is imported in
					// the library's place (pyshadow.go): the current one,
					// or the script's (through its links).
					switch dir, scr := pythonRunTarget(vals); {
					case scr != "":
						r.pyScripts = append(r.pyScripts, at([]string{scr})...)
					case dir != "":
						r.pyPaths = append(r.pyPaths, at([]string{dir})...)
					}
				}
			}
			if i := slices.Index(fv, "uv"); i >= 0 && i+1 < len(fv) && fv[i+1] == "run" {
				// uv run tools/gen.py: python runs the script (review 187);
				// uv run -m NAME, --module NAME: python -m NAME in the
				// current directory (review 189).
				off := len(x.Args) - len(fv) + i + 2
				vals := wordTexts(script, x.Args[off:])
				for j, v := range vals {
					mod := ""
					switch {
					case (v == "-m" || v == "--module") && j+1 < len(vals):
						mod = vals[j+1]
					case strings.HasPrefix(v, "--module="):
						mod = strings.TrimPrefix(v, "--module=")
					case strings.HasSuffix(v, ".py") && !strings.Contains(v, "$"):
						r.pyScripts = append(r.pyScripts, at([]string{v})...)
					default:
						continue
					}
					if mod != "" {
						for _, dir := range at([]string{"."}) {
							r.pyModules = append(r.pyModules, pyModuleRef{dir, mod})
							r.pyPaths = append(r.pyPaths, dir)
						}
					}
					break
				}
			}
			for _, as := range x.Assigns {
				if as.Value != nil {
					assign(as.Value)
				}
				if as.Array != nil {
					// An array's elements (files=(extra.sh), iterated by
					// a loop that sources them: the
					// hundred-and-fifty-eighth review), as a value.
					for _, e := range as.Array.Elems {
						if e.Value != nil {
							assign(e.Value)
						}
					}
				}
			}
			// A string run as a script: eval's words, a shell's -c.
			if depth < maxEnvrcDepth && len(args) > 1 {
				prog := path.Base(args[0])
				switch {
				case prog == "trap":
					// The script trap runs at a signal or EXIT (the
					// hundred-and-fifty-ninth review), after its options
					// (trap -- 'script' EXIT: the hundred-and-sixty-first).
					for _, a := range args[1:] {
						if !strings.HasPrefix(a, "-") {
							envrcWordsIn(a, depth+1, r, runners, dirs)
							break
						}
					}
				case prog == "eval":
					envrcWordsIn(strings.Join(args[1:], " "), depth+1, r, runners, dirs)
				case slices.Contains(envrcShells, prog):
					for i, a := range args[1 : len(args)-1] {
						if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "c") {
							envrcWordsIn(args[i+2], depth+1, r, runners, dirs)
							break
						}
					}
				}
			}
		case *syntax.Redirect:
			if x.Word != nil {
				// What a command reads (source /dev/stdin < env.sh).
				add(x.Word, x.Op == syntax.RdrIn || x.Op == syntax.RdrInOut)
			}
			if x.Hdoc != nil && depth < maxEnvrcDepth {
				if vs := wordValues(x.Hdoc); len(vs) == 1 {
					envrcWordsIn(vs[0], depth+1, r, runners, dirs) // bash <<EOF … EOF
				}
			}
		case *syntax.ForClause:
			// The words a loop whose body runs a file iterates (for f in
			// a.sh b.sh; do source "$f"; done).
			wi, ok := x.Loop.(*syntax.WordIter)
			if !ok {
				return true
			}
			run := bodyRunsWith(x.Do, runners)
			for _, w := range wi.Items {
				for _, v := range at(wordValues(w)) {
					if shellGlobMeta(v) {
						r.patterns = append(r.patterns, v)
						continue
					}
					r.names = append(r.names, v)
					if run {
						r.run = append(r.run, v)
					}
				}
			}
		case *syntax.DeclClause:
			for _, a := range x.Args {
				if a.Value != nil {
					assign(a.Value)
				}
				if a.Array != nil {
					// declare -a, local, typeset, readonly arrays (the
					// hundred-and-fifty-ninth review).
					for _, e := range a.Array.Elems {
						if e.Value != nil {
							assign(e.Value)
						}
					}
				}
			}
		}
		return true
	})
}

// bodyRunsWith reports whether the statements hold a call that runs or
// sources what its arguments name, or a call of one of the functions
// runners.
func bodyRunsWith(stmts []*syntax.Stmt, runners []string) bool {
	found := false
	for _, st := range stmts {
		syntax.Walk(st, func(n syntax.Node) bool {
			if c, ok := n.(*syntax.CallExpr); ok && !found {
				vs := firstValues(c.Args)
				found = runsFiles(vs) > 0 || len(vs) > 0 && slices.Contains(runners, vs[0])
			}
			return !found
		})
	}
	return found
}

// firstValues is each word's first value (wordValues), "" for one with an
// expansion: a call's words, one for one.
func firstValues(ws []*syntax.Word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		if vs := wordValues(w); len(vs) > 0 {
			out[i] = vs[0]
		}
	}
	return out
}

// listValues is what an assignment's value holds as a ":"-list: its
// values (wordValues) split at ":", or, where it holds an expansion, each
// element with none (bin from bin:$PATH).
func listValues(w *syntax.Word) []string {
	var out []string
	if vs := wordValues(w); len(vs) > 0 {
		for _, v := range vs {
			out = append(out, strings.Split(v, ":")...)
		}
		return out
	}
	var b strings.Builder
	for _, p := range w.Parts {
		if t, ok := literalPart(p, false); ok {
			b.WriteString(t)
		} else {
			b.WriteByte(0)
		}
	}
	for _, e := range strings.Split(b.String(), ":") {
		if e != "" && !strings.ContainsRune(e, 0) {
			out = append(out, path.Clean(e))
		}
	}
	return out
}

// maxBraceValues bounds what one word's braces expand to.
const maxBraceValues = 64

// wordValues returns the values the shell reads the word as, braces
// expanded, when it holds no expansion (literal text, quotes, escapes,
// $'…' only); none otherwise.
func wordValues(w *syntax.Word) []string {
	w = &syntax.Word{Parts: slices.Clone(w.Parts)}
	syntax.SplitBraces(w)
	vals := []string{""}
	for _, p := range w.Parts {
		var next []string
		switch p := p.(type) {
		case *syntax.BraceExp:
			var alts []string
			for _, e := range p.Elems {
				alts = append(alts, wordValues(e)...)
			}
			if len(alts) == 0 {
				return nil
			}
			for _, v := range vals {
				for _, a := range alts {
					if len(next) < maxBraceValues {
						next = append(next, v+a)
					}
				}
			}
		default:
			t, ok := literalPart(p, false)
			if !ok {
				return nil
			}
			for _, v := range vals {
				next = append(next, v+t)
			}
		}
		vals = next
	}
	out := vals[:0]
	for _, v := range vals {
		if v != "" {
			out = append(out, path.Clean(v))
		}
	}
	return out
}

// literalPart is the text the shell reads a word part as (quoted: inside
// double quotes), when it holds no expansion.
func literalPart(p syntax.WordPart, quoted bool) (string, bool) {
	switch p := p.(type) {
	case *syntax.Lit:
		return unescape(p.Value, quoted), true
	case *syntax.SglQuoted:
		if p.Dollar {
			return ansiC(p.Value), true
		}
		return p.Value, true
	case *syntax.ExtGlob:
		// !(_*).sh: a pattern (shellGlob reads the group as any name).
		return p.Op.String() + p.Pattern.Value + ")", true
	case *syntax.DblQuoted:
		var b strings.Builder
		for _, q := range p.Parts {
			t, ok := literalPart(q, true)
			if !ok {
				return "", false
			}
			b.WriteString(t)
		}
		return b.String(), true
	}
	return "", false
}

// unescape removes the backslashes the shell removes: before any byte
// outside quotes, before $ ` " \ and a newline inside double quotes.
func unescape(s string, quoted bool) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (!quoted || strings.IndexByte("$`\"\\\n", s[i+1]) >= 0) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ansiC decodes bash's $'…' escapes (\xHH, octal, \n and the like).
func ansiC(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 'a', 'b', 'e', 'E', 'f', 'n', 'r', 't', 'v':
			b.WriteByte(map[byte]byte{'a': 7, 'b': 8, 'e': 27, 'E': 27, 'f': 12, 'n': 10, 'r': 13, 't': 9, 'v': 11}[c])
		case 'x':
			j := i + 1
			for j < len(s) && j < i+3 && strings.IndexByte("0123456789abcdefABCDEF", s[j]) >= 0 {
				j++
			}
			if v, err := strconv.ParseUint(s[i+1:j], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i = j - 1
			} else {
				b.WriteString("\\x")
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint(s[i:j], 8, 16)
			b.WriteByte(byte(v))
			i = j - 1
		default:
			b.WriteByte(c) // \\ \' \" \? and the rest
		}
	}
	return b.String()
}

// pathFilters are the programs whose output, in a command substitution, is
// the path their last argument names (source "$(expand_path local.sh)").
var pathFilters = []string{"expand_path", "realpath", "readlink", "echo", "printf"}

// substValues returns the values of a word that is one command
// substitution of a pathFilters program with a literal last argument.
func substValues(w *syntax.Word) []string {
	part := w.Parts
	if len(part) == 1 {
		if dq, ok := part[0].(*syntax.DblQuoted); ok {
			part = dq.Parts
		}
	}
	if len(part) != 1 {
		return nil
	}
	cs, ok := part[0].(*syntax.CmdSubst)
	if !ok || len(cs.Stmts) != 1 {
		return nil
	}
	call, ok := cs.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) < 2 {
		return nil
	}
	if prog := wordValues(call.Args[0]); len(prog) != 1 || !slices.Contains(pathFilters, path.Base(prog[0])) {
		return nil
	}
	return wordValues(call.Args[len(call.Args)-1])
}

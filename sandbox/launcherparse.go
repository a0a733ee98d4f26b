package sandbox

import (
	"bytes"
	"encoding/json"
	pathpkg "path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/pelletier/go-toml/v2"
)

// The launcher files' formats, as far as what they name for a host program
// to run, load or take a toolchain from (launcherRefsOf; the paths are
// kept read-only by protectLauncherRefs, launcherrefs.go).

// launcherRefsOf returns the paths, as written, that the launcher file
// item (an entry of readAtAnyDepth, with data its contents) names for a
// host program to run, load or take a toolchain from. It over-approximates
// where the formats are loose: a path kept read-only that is not one
// costs an agent a write, a path missed costs the person a program run.
func launcherRefsOf(item string, data []byte) []string {
	switch item {
	case ".yarnrc.yml":
		return yarnrcYMLRefs(data)
	case ".yarnrc":
		return yarnrcRefs(data)
	case "global.json":
		return globalJSONRefs(data)
	case ".tool-versions":
		return toolVersionsRefs(data)
	case "rust-toolchain", "rust-toolchain.toml":
		var f struct{ Toolchain struct{ Path string } }
		if toml.Unmarshal(data, &f) == nil && f.Toolchain.Path != "" {
			return []string{f.Toolchain.Path}
		}
	case ".cargo/config", ".cargo/config.toml":
		return cargoConfigRefs(data)
	case "bunfig.toml":
		return bunfigRefs(data)
	case ".Renviron":
		// The profiles R runs, the libraries it loads packages from (lists,
		// ":"-separated), the make variables of a package's build, the
		// environment files it reads (the hundred-and-forty-sixth review).
		var out []string
		for _, v := range keyedLineRefs(data, "=", "R_PROFILE_USER", "R_PROFILE", "R_LIBS", "R_LIBS_USER", "R_LIBS_SITE",
			"R_MAKEVARS_USER", "R_MAKEVARS_SITE", "R_ENVIRON", "R_ENVIRON_USER") {
			if strings.Contains(v, "${") {
				out = append(out, v) // a variable's default (expandLauncherVars)
				continue
			}
			out = append(out, strings.Split(v, ":")...)
		}
		return uniq(slices.DeleteFunc(out, func(p string) bool { return p == "" }))
	case ".mvn/jvm.config", ".mvn/maven.config", ".jvmopts", ".sbtopts":
		return jvmOptionRefs(data)
	case ".Rprofile":
		return rSourceRefs(data)
	case ".envrc":
		return envrcRefs(data)
	case ".npmrc", ".python-version", ".bazelrc", ".bazeliskrc", "Directory.Build.rsp":
		return optionFileRefs(data)
	case vscodeTasksItem, codeWorkspaceItem, devcontainerItem, vscodeSettingsItem:
		return vscodeTasksRefs(launchScripts(item, data))
	}
	if slices.Contains(miseConfigs, item) {
		return miseRefs(data)
	}
	return nil
}

// rSource matches R's source("FILE") and sys.source("FILE") (renv's
// .Rprofile: source("renv/activate.R"), run at every R start).
var rSource = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(?:sys\.)?source\s*\(\s*(?:file\s*=\s*)?["']([^"']+)["']`)
})

func rSourceRefs(data []byte) []string {
	var out []string
	for _, m := range rSource().FindAllSubmatch(data, -1) {
		out = append(out, string(m[1]))
	}
	return uniq(out)
}

// envrcRefs: the files direnv's .envrc has the person's shell evaluate
// (source, ".", source_env, source_env_if_exists) or read into the
// environment (dotenv, dotenv_if_exists; .env without an argument), and
// the directories it puts in PATH (every one of PATH_add and path_add,
// load_prefix's, PATH=...), wherever a shell keyword leaves the command.
// direnv's use and layout functions are not read (their directories are
// the tools' own, below .direnv or node_modules).
func envrcRefs(data []byte) []string {
	var out []string
	// A line continued with a backslash is one command.
	data = bytes.ReplaceAll(bytes.ReplaceAll(data, []byte("\\\r\n"), []byte(" ")), []byte("\\\n"), []byte(" "))
	// The repository's top, as the script names it, becomes gitTopMark.
	data = markGitTop(data)
	// The directories a cd may have left the script in (the
	// hundred-and-sixty-sixth and -seventh reviews: cd .. && source
	// scripts/x.sh): each command's names are read from every one, the
	// .envrc's own first, since a cd in a subshell, a pipeline, a
	// function or a branch may not have happened (envrcDirs). fix adds
	// the last command's names as read from the others.
	var dirs envrcDirs
	start := 0
	fix := func() {
		out = append(out, dirs.names(out[start:])...)
		start = len(out)
	}
	for line := range lines(data) {
		line = envrcPWDText(line)
		for _, cmd := range strings.FieldsFunc(line, func(r rune) bool { return r == ';' || r == '&' || r == '|' }) {
			fix()
			f := strings.Fields(cmd)
			// A command behind a shell keyword (if ...; then source X;
			// fi, the review 143 form).
			for len(f) > 0 && slices.Contains(envrcKeywords, f[0]) {
				f = f[1:]
			}
			if len(f) == 0 || strings.HasPrefix(f[0], "#") {
				continue
			}
			if dirs.cd(f) {
				continue // where the script goes, not a name it reads
			}
			dirs.chdir(f)
			args := make([]string, 0, len(f)-1)
			for _, a := range f[1:] {
				if strings.HasPrefix(a, "#") {
					break
				}
				args = append(args, envrcPWD().ReplaceAllString(unquoted(a), ".${2}"))
			}
			// Every word that reads as a path (an export's value, a loop's
			// pattern, a file a command reads into the environment): an
			// over-approximation, .envrc being a shell script.
			for _, a := range f {
				if strings.HasPrefix(a, "#") {
					break
				}
				out = append(out, pathTokens(a)...)
				// A variable set to a list of paths (PYTHONPATH=lib,
				// LD_PRELOAD=x.so): each element, a bare name too.
				if name, v, ok := strings.Cut(strings.Trim(a, `"'`), "="); ok && envName(name) {
					for _, e := range strings.Split(strings.Trim(v, `"'`), ":") {
						if e != "" && !strings.ContainsAny(e, "$ ") && !strings.HasPrefix(e, "-") {
							out = append(out, e)
						}
					}
				}
			}
			if len(args) > 0 && f[0] == "use" {
				// direnv's use nix, use flake, use devenv: the files whose
				// shell hooks run on entering.
				out = append(out, envrcUses[args[0]]...)
			}
			if strings.Contains(cmd, "devbox") {
				out = append(out, "devbox.json")
			}
			switch f[0] {
			case "source", ".", "source_env", "source_env_if_exists":
				if len(args) > 0 {
					out = append(out, args[0])
				}
			case "source_up", "source_up_if_exists":
				// direnv's find_up from the .envrc's parent: the name
				// (.envrc by default) at each directory above, sourced
				// without direnv's allow (the hundred-and-sixty-sixth
				// review); watched as a name under the top is.
				name := ".envrc"
				if len(args) > 0 {
					name = args[0]
				}
				out = append(out, string(rune(gitTopMark))+"/"+name)
			case "dotenv", "dotenv_if_exists":
				if len(args) == 0 {
					args = []string{".env"} // direnv's default
				}
				out = append(out, args[0])
			case "PATH_add", "load_prefix":
				out = append(out, args...) // every directory (load_prefix: DIR/bin, DIR/lib, ... kept whole)
			case "path_add":
				if len(args) > 1 {
					out = append(out, args[1:]...) // path_add VAR DIR...
				}
			}
			// PATH=DIR:$PATH, export PATH=...: each directory put in it.
			for _, w := range append([]string{f[0]}, args...) {
				if v, ok := strings.CutPrefix(w, "PATH="); ok {
					for _, d := range strings.Split(strings.Trim(v, `"'`), ":") {
						if d = envrcPWD().ReplaceAllString(d, ".${2}"); d != "" && !strings.Contains(d, "$") {
							out = append(out, d)
						}
					}
				}
			}
		}
	}
	fix()
	return uniq(out)
}

// joinEnvrcDir is the name ref, given after a cd to dir, as the .envrc's
// readers take it (a path, or from the top's mark).
func joinEnvrcDir(dir, ref string) string {
	if ref == "" || ref[0] == '/' || ref[0] == '~' || ref[0] == gitTopMark || ref[0] == '$' {
		return ref
	}
	if dir[0] == gitTopMark {
		return string(rune(gitTopMark)) + pathpkg.Join("/", dir[1:], ref)
	}
	return pathpkg.Join(dir, ref)
}

// envrcDirs are the directories, relative to a .envrc's (as
// joinEnvrcDir reads them), that a cd may have left it in, in the order
// met; the .envrc's own is implied.
type envrcDirs []string

// maxEnvrcDirs bounds envrcDirs; past it a cd's target reads as any
// directory above (the top's mark).
const maxEnvrcDirs = 16

// cd notes where the command f (its words) goes when it changes
// directory: cd, pushd (builtin cd, command cd, (cd, { cd, and a
// function's body's cd too, wherever in the command), from each
// directory the script may be in; it reports whether f is one.
func (ds *envrcDirs) cd(f []string) bool {
	for i, w := range f {
		w = strings.TrimLeft(w, "({")
		if w != "cd" && w != "pushd" {
			continue
		}
		if i > 0 && !slices.Contains([]string{"builtin", "command", "{", "("}, f[i-1]) && !strings.HasSuffix(f[i-1], "()") &&
			!strings.HasSuffix(f[i-1], "{") && !strings.HasSuffix(f[i-1], "(") && f[i] == w {
			continue // an argument named cd (echo cd)
		}
		for _, d := range append([]string{""}, *ds...) {
			ds.add(envrcCd(d, f[i+1:]))
		}
		return i == 0 || slices.Contains([]string{"builtin", "command"}, f[0])
	}
	return false
}

// chdir notes where the command f (its words) runs the program it is
// given when a wrapper changes directory first: env -C DIR, -CDIR,
// --chdir[=]DIR; uv's --directory[=]DIR; poetry's -C DIR, --directory
// (review 190: env --chdir=tools bash setup.sh ran tools/setup.sh, left
// writable). The names read after it are read from DIR too.
func (ds *envrcDirs) chdir(f []string) {
	for i, w := range f {
		var dirs []string
		switch pathpkg.Base(w) {
		case "env":
			dirs = envChdirs(f[i+1:])
		case "uv", "poetry":
			short := "" // uv has no short form
			if pathpkg.Base(w) == "poetry" {
				short = "-C"
			}
			for j := i + 1; j < len(f) && f[j] != "--"; j++ {
				// Past uv's and poetry's subcommand too (uv run
				// --directory=DIR).
				switch a := f[j]; {
				case (a == short || a == "--directory") && j+1 < len(f):
					dirs = append(dirs, f[j+1])
				case short != "" && strings.HasPrefix(a, short) && a != short:
					dirs = append(dirs, a[len(short):])
				case strings.HasPrefix(a, "--directory="):
					dirs = append(dirs, strings.TrimPrefix(a, "--directory="))
				}
			}
		default:
			continue
		}
		for _, dir := range dirs {
			for _, d := range append([]string{""}, *ds...) {
				ds.add(envrcCd(d, []string{dir}))
			}
		}
	}
}

// envChdirs returns the directories GNU env's options args (up to its
// program) change to: -C DIR, -CDIR, a cluster ending in C (-iC DIR),
// --chdir[=]DIR and its abbreviations (getopt_long takes any unambiguous
// prefix: --ch=DIR; review 192), past the options whose value is the next
// word (-u NAME, -S STRING, -a NAME, and their long forms) and the
// assignments (NAME=value).
func envChdirs(args []string) []string {
	var out []string
	long := func(a, name string) bool { return len(a) >= 3 && strings.HasPrefix(name, a) } // "--c" is --chdir's shortest
	for j := 0; j < len(args); j++ {
		a := args[j]
		switch {
		case a == "--" || !strings.HasPrefix(a, "-") && !strings.Contains(a, "="):
			return out // the program
		case !strings.HasPrefix(a, "-") || a == "-":
			continue // NAME=value; "-" is -i
		case strings.HasPrefix(a, "--"):
			name, v, hasV := strings.Cut(a, "=")
			switch {
			case long(name, "--chdir"):
				if hasV {
					out = append(out, v)
				} else if j+1 < len(args) {
					j++
					out = append(out, args[j])
				}
			case !hasV && (long(name, "--unset") || long(name, "--split-string") || long(name, "--argv0")):
				j++ // its value is the next word
			}
		default:
			for k := 1; k < len(a); k++ {
				if !strings.ContainsRune("CuSa", rune(a[k])) {
					continue // -i, -0, -v
				}
				v := a[k+1:]
				if v == "" && j+1 < len(args) {
					j++
					v = args[j]
				}
				if a[k] == 'C' {
					out = append(out, v)
				}
				break
			}
		}
	}
	return out
}

func (ds *envrcDirs) add(d string) {
	if d == "" || d == "." || slices.Contains(*ds, d) {
		return
	}
	if len(*ds) >= maxEnvrcDirs {
		d = string(rune(gitTopMark))
		if slices.Contains(*ds, d) {
			return
		}
	}
	*ds = append(*ds, d)
}

// names are names (read from the .envrc's directory) read from each
// other directory the script may be in.
func (ds envrcDirs) names(names []string) []string {
	var out []string
	for _, d := range ds {
		for _, n := range names {
			if j := joinEnvrcDir(d, n); j != n {
				out = append(out, j)
			}
		}
	}
	return out
}

// envrcCd is where cd args (of a .envrc in dir, as joinEnvrcDir reads
// it) leads: a literal path from dir, or the top's mark for one not told
// (home, "-", a variable), which is watched at every directory above.
func envrcCd(dir string, args []string) string {
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && args[0] != "-" {
		args = args[1:] // -P, -L
	}
	if len(args) == 0 {
		return string(rune(gitTopMark))
	}
	a := strings.Trim(args[0], `"'`)
	switch {
	case a == "" || a == "-" || a[0] == '~' || strings.ContainsAny(a, "$`"):
		return string(rune(gitTopMark))
	case a[0] == '/' || a[0] == gitTopMark:
		return a
	case dir == "":
		return pathpkg.Clean(a)
	}
	return joinEnvrcDir(dir, a)
}

// gitTopSubst matches a command substitution that prints the repository's
// top: $(git … rev-parse … --show-toplevel …), with blanks and options
// (git -C ., --path-format=absolute), or the same in backticks.
var gitTopSubst = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("\\$\\(\\s*git\\b[^()`\\n]*?\\brev-parse\\b[^()`\\n]*?--show-toplevel\\b[^()`\\n]*?\\)|`\\s*git\\b[^()`\\n]*?\\brev-parse\\b[^()`\\n]*?--show-toplevel\\b[^()`\\n]*?`")
})

// findUpSubst matches $(find_up NAME) and `find_up NAME`.
var findUpSubst = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("(?:\\$\\(|`)\\s*find_up\\s+[\"']?([^\"'()`\\s]+)[\"']?\\s*(?:\\)|`)")
})

// gitTopVar matches an assignment of the mark alone to a variable.
var gitTopVar = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)(?:^|[\s;&|(])(?:export\s+|local\s+|declare\s+|readonly\s+)?([A-Za-z_][A-Za-z0-9_]*)=["']?\x02["']?(?:$|[\s;&|)])`)
})

// markGitTop replaces in data what names the repository's top (gitTopSubst,
// and a variable assigned one: top=$(git rev-parse --show-toplevel);
// source "$top/x.sh") by gitTopMark.
func markGitTop(data []byte) []byte {
	if bytes.Contains(data, []byte("find_up")) {
		// direnv's find_up NAME: NAME at the .envrc's directory or the
		// nearest above (the hundred-and-sixty-seventh review).
		data = findUpSubst().ReplaceAll(data, []byte("\x02/$1"))
	}
	if !bytes.Contains(data, []byte("--show-toplevel")) {
		return data
	}
	data = gitTopSubst().ReplaceAll(data, []byte{gitTopMark})
	vars := map[string]bool{}
	for _, m := range gitTopVar().FindAllSubmatch(data, -1) {
		vars[string(m[1])] = true
	}
	if len(vars) == 0 {
		return data
	}
	// One pass over the script, whatever the number of variables.
	return shellVarRef().ReplaceAllFunc(data, func(ref []byte) []byte {
		if vars[strings.Trim(string(ref[1:]), "{}")] {
			return []byte{gitTopMark}
		}
		return ref
	})
}

// shellVarRef matches $NAME and ${NAME}.
var shellVarRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$(?:\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*)`)
})

// envName matches an environment variable's name.
func envName(s string) bool {
	for i, c := range s {
		if !(c == '_' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return s != ""
}

// envrcUses are the files direnv's use functions take a shell from.
var envrcUses = map[string][]string{
	"nix": {"shell.nix", "default.nix"}, "flake": {"flake.nix", "flake.lock"},
	"devenv": {"devenv.nix", "devenv.yaml", "devenv.lock"},
}

// gitTopMark stands for the repository's top in a name envrcRefs returns
// (markGitTop), and for a directory above the .envrc not otherwise told
// (source_up, a cd to a variable): launcherRef watches the name under it
// at the .envrc's directory and at each one above.
const gitTopMark = 0x02

// envrcPWDAnywhere matches the project's directory as a script names it
// ($PWD, ${PWD}, ${PWD%/}, $(pwd), $(pwd -P), $(realpath .), $(readlink
// -f .), $(expand_path .); the script's own directory through
// BASH_SOURCE, which direnv's source_env sets to ./.envrc: the
// hundred-and-fifty-eighth review) before a "/" or the end of a word, and
// ~+ (bash's tilde for $PWD) at a word's start (review 190).
var envrcPWDAnywhere = sync.OnceValue(func() *regexp.Regexp {
	// Blanks inside a substitution, a builtin or command before pwd, pwd's
	// and realpath's options, dirname's "--", the cd-and-pwd idiom with
	// && or ; and its redirections (review 192).
	const (
		b      = `[ \t]*`
		pwd    = `(?:builtin[ \t]+|command[ \t]+)?pwd(?:[ \t]+-[LP])*`
		source = `"?\$\{?BASH_SOURCE(?:\[0\])?\}?"?`
		dirnm  = `dirname(?:[ \t]+--)?[ \t]+` + source
		redir  = `(?:[ \t]*[0-9]?>[ \t]*/dev/null|[ \t]*2>&1)*`
		cdpwd  = `cd[ \t]+"?\$\(` + b + dirnm + b + `\)"?` + redir + b + `(?:&&|;)` + b + pwd
		inner  = b + `(?:` + pwd + `|(?:realpath|readlink|expand_path)(?:[ \t]+-[-a-zA-Z]+)*[ \t]+["']?\.["']?|` + dirnm + `|` + cdpwd + `)` + b
	)
	return regexp.MustCompile(`(?:\$(?:\{PWD\}|\{PWD%%?/\}|PWD|\(` + inner + `\)|\{BASH_SOURCE(?:\[0\])?%/\*\})|` + "`" + inner + "`" +
		`|(?:^|[\s=:"'(])~\+)(/|$|[\s:"';)` + "`" + `])`)
})

// envrcPWDText is text with the project's directory, as envrcPWDAnywhere
// matches it, read as "." (a ~+ keeps what came before it).
func envrcPWDText(text string) string {
	ms := envrcPWDAnywhere().FindAllStringSubmatchIndex(text, -1)
	if ms == nil {
		return text
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		start := m[0]
		if text[start] != '$' && text[start] != '~' && text[start] != '`' {
			start++ // the blank or quote before a ~+, kept
		}
		b.WriteString(text[last:start])
		b.WriteString(".")
		last = m[2] // the delimiter after it, kept
	}
	b.WriteString(text[last:])
	return b.String()
}

// unquoted is a word with its quotes taken out ("$PWD"/x, '.'/x: the
// shell joins the parts).
func unquoted(w string) string {
	return strings.ReplaceAll(strings.ReplaceAll(w, `"`, ""), `'`, "")
}

// envrcKeywords are the shell's words that may come before a command.
var envrcKeywords = []string{"if", "then", "else", "elif", "do", "while", "until", "!", "{", "(", "time"}

// envrcPWD matches $PWD or ${PWD} at the start of a path: direnv runs
// .envrc in its own directory.
var envrcPWD = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\$(\{PWD\}|PWD)(/|$)`) })

// miseHookScripts are the scripts of mise's [hooks] (enter, leave, cd,
// preinstall, postinstall): a string, a list of them, or a table's script,
// each.
func miseHookScripts(data []byte) []string {
	var doc map[string]any
	if toml.Unmarshal(data, &doc) != nil {
		return nil
	}
	return miseDocHookScripts(doc)
}

// miseDocHookScripts is miseHookScripts of a parsed document.
func miseDocHookScripts(doc map[string]any) []string {
	var out []string
	var each func(v any)
	each = func(v any) {
		if m := tomlTable(v); m != nil {
			each(m["script"])
			each(m["run"]) // { run = "…" } (mise 2026.5)
			return
		}
		if vs, ok := v.([]any); ok {
			for _, e := range vs {
				each(e)
			}
			return
		}
		out = append(out, tomlStrings(v)...)
	}
	for _, v := range tomlTable(doc["hooks"]) {
		each(v)
	}
	// [[watch_files]]' run, at a prompt after a matching file changed; a
	// tool's own postinstall, at its install (the
	// hundred-and-fifty-ninth review).
	if ws, ok := doc["watch_files"].([]any); ok {
		for _, w := range ws {
			each(tomlTable(w)["run"])
		}
	}
	for _, v := range tomlTable(doc["tools"]) {
		if vs, ok := v.([]any); ok {
			for _, e := range vs {
				each(tomlTable(e)["postinstall"])
			}
			continue
		}
		each(tomlTable(v)["postinstall"])
	}
	return out
}

// miseRefs: what mise runs or sources for the project: [env] _.source
// (sourced by its shell hook at every prompt), the [hooks] scripts (on
// entering and leaving the directory), and the [tools] given as
// "path:DIR" (DIR/bin first in PATH).
func miseRefs(data []byte) []string {
	var doc map[string]any
	if toml.Unmarshal(data, &doc) != nil {
		return nil
	}
	var out []string
	// A string, a list of them, or a table whose path, script or version
	// is one (mise's forms), each.
	var each func(v any, f func(string))
	each = func(v any, f func(string)) {
		if m := tomlTable(v); m != nil {
			for _, k := range []string{"path", "script", "version"} {
				each(m[k], f)
			}
			return
		}
		if vs, ok := v.([]any); ok { // strings, tables, or both
			for _, e := range vs {
				each(e, f)
			}
			return
		}
		for _, s := range tomlStrings(v) {
			f(s)
		}
	}
	// Variables naming a path (LD_PRELOAD, PYTHONPATH, NODE_OPTIONS'
	// --require, GIT_CONFIG_GLOBAL): what the person's programs load.
	for k, v := range tomlTable(doc["env"]) {
		if k == "_" {
			continue
		}
		if m := tomlTable(v); m != nil {
			v = m["value"]
		}
		if sv, ok := v.(string); ok {
			out = append(out, pathTokens(miseConfigRoot().ReplaceAllString(sv, "."))...)
		}
	}
	underscore := tomlTable(tomlTable(doc["env"])["_"])
	for _, k := range []string{"source", "file", "path"} {
		// sourced scripts, dotenv files, directories put first in PATH
		each(underscore[k], func(s string) { out = append(out, s) })
	}
	for _, s := range miseDocHookScripts(doc) {
		// The program, and a script given to another (bash
		// ./scripts/enter.sh): each word that names a path (a bare name
		// first is a command from PATH).
		for i, w := range strings.Fields(s) {
			if c := pathpkg.Clean(strings.Trim(w, `"'`)); c == "." || c == ".." {
				continue // the hook's directory, not a file it runs (review 189; vscodeTasksRefs)
			}
			if strings.Contains(w, "/") || i > 0 && !strings.HasPrefix(w, "-") && strings.Contains(w, ".") {
				out = append(out, strings.Trim(w, `"'`))
			}
		}
	}
	for _, v := range tomlTable(doc["tools"]) {
		each(v, func(s string) {
			if p, ok := strings.CutPrefix(s, "path:"); ok {
				out = append(out, p)
			}
		})
	}
	// mise's templates: {{config_root}} is the project's directory, the
	// base the paths are taken from.
	for i, p := range out {
		out[i] = miseConfigRoot().ReplaceAllString(p, ".")
	}
	return uniq(out)
}

// miseConfigRoot matches mise's template for the project's directory.
var miseConfigRoot = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{\{-?\s*config_root\s*-?\}\}`) })

// tomlTable is v as a TOML table (nil when it is none; indexing nil is
// safe).
func tomlTable(v any) map[string]any { m, _ := v.(map[string]any); return m }

// tomlStrings is v as a string or an array of strings (the others left
// out).
func tomlStrings(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// uniq is out without repeats and empty strings, in order.
func uniq(out []string) []string {
	var u []string
	seen := make(map[string]bool, len(out))
	for _, p := range out {
		if p != "" && !seen[p] {
			seen[p] = true
			u = append(u, p)
		}
	}
	return u
}

// keyedLineRefs: the value of each line "key<sep>value" for one of keys
// (R's `R_PROFILE_USER=x`), quotes removed.
func keyedLineRefs(data []byte, sep string, keys ...string) []string {
	var out []string
	for line := range lines(data) {
		k, v, ok := strings.Cut(strings.TrimSpace(line), sep)
		if !ok || !slices.Contains(keys, strings.Trim(strings.TrimSpace(k), `"'`)) {
			continue
		}
		out = append(out, strings.Trim(strings.TrimSpace(v), `"'`))
	}
	return out
}

// yarnrcRefs: yarn 1's yarn-path, written "yarn-path x" or, as yarn 1's
// parser also takes it, "yarn-path: x".
func yarnrcRefs(data []byte) []string {
	var out []string
	for line := range lines(data) {
		f := strings.Fields(strings.TrimSpace(line))
		if len(f) < 2 {
			continue
		}
		if k := strings.TrimSuffix(strings.Trim(f[0], `"'`), ":"); k == "yarn-path" || strings.HasSuffix(k, ".yarn-path") {
			_, v, _ := strings.Cut(strings.TrimSpace(line), f[0])
			out = append(out, strings.Trim(strings.TrimSpace(v), `"'`))
		}
	}
	return out
}

var (
	jsonPaths   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)"paths"\s*:\s*\[([^\]]*)\]`) })
	jsonStrings = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`) })
)

// globalJSONRefs: sdk.paths, where the dotnet host looks for its SDK
// ("$host$" is the host's own). The file may hold comments, which the
// host accepts and encoding/json does not: the "paths" arrays are taken
// wherever they are as well.
func globalJSONRefs(data []byte) []string {
	var out []string
	var f struct{ Sdk struct{ Paths []string } }
	if json.Unmarshal(stripJSONComments(data), &f) == nil {
		out = append(out, f.Sdk.Paths...)
	}
	for _, m := range jsonPaths().FindAllSubmatch(data, -1) {
		for _, s := range jsonStrings().FindAllSubmatch(m[1], -1) {
			var v string
			if json.Unmarshal(s[0], &v) == nil {
				out = append(out, v)
			}
		}
	}
	return slices.DeleteFunc(uniq(out), func(p string) bool { return p == "$host$" })
}

// stripJSONComments blanks the // and /* */ comments of data outside its
// strings (the dotnet host reads global.json with comments allowed), and
// the commas before a closing bracket or brace.
func stripJSONComments(data []byte) []byte {
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); i++ {
		c := data[i]
		if c >= utf8.RuneSelf {
			// VS Code's JSONC scanner takes a BOM and the other Unicode
			// blanks for white space (a tasks.json saved "UTF-8 with
			// BOM" was no JSON to encoding/json: the
			// hundred-and-seventy-second review).
			if r, n := utf8.DecodeRune(data[i:]); jsoncBlank(r) {
				out = append(out, ' ')
				i += n - 1
				continue
			}
		}
		switch {
		case c == '"':
			j := i + 1
			for j < len(data) && data[j] != '"' {
				if data[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j, len(data)-1)
			out = append(out, data[i:j+1]...)
			i = j
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			out = append(out, '\n')
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			end := bytes.Index(data[i+2:], []byte("*/"))
			if end < 0 {
				return out
			}
			i += end + 3
			out = append(out, ' ')
		default:
			out = append(out, c)
		}
	}
	return trailingCommas().ReplaceAll(out, []byte("$1"))
}

// jsoncBlank reports whether r, outside a string, is white space to VS
// Code's JSONC scanner beyond JSON's own: no-break spaces, the Unicode
// spaces and the BOM.
func jsoncBlank(r rune) bool {
	switch r {
	case '\u00a0', '\u1680', '\u202f', '\u205f', '\u3000', '\ufeff':
		return true
	}
	return r >= '\u2000' && r <= '\u200b'
}

var trailingCommas = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`,(\s*[\]}])`) })

// toolVersionsRefs: each version written "path:DIR" (asdf and mise run
// DIR/bin's programs).
func toolVersionsRefs(data []byte) []string {
	var out []string
	for line := range lines(data) {
		line, _, _ = strings.Cut(line, "#")
		for _, f := range strings.Fields(line) {
			if p, ok := strings.CutPrefix(f, "path:"); ok {
				out = append(out, p)
			}
		}
	}
	return out
}

// cargoConfigRefs: the programs every cargo build there runs: build.rustc,
// rustc-wrapper, rustc-workspace-wrapper and rustdoc, each target's (and
// the host's) linker and runner, and the credential providers. A program
// named without a "/" is looked up in PATH.
func cargoConfigRefs(data []byte) []string {
	var doc map[string]any
	if toml.Unmarshal(data, &doc) != nil {
		return nil
	}
	var out []string
	// A command line (runner, credential provider: its program first) or
	// a program's path alone (rustc, the wrappers, a linker: spaces are
	// the path's).
	// A command line's program may come after cargo's own provider
	// (cargo:token-from-stdout PROGRAM ARGS): each of its words that
	// holds a "/" is kept (the review 143 forms).
	program := func(v any, line bool) {
		switch v := v.(type) {
		case string:
			if !line {
				out = append(out, v)
			} else {
				out = append(out, strings.Fields(v)...)
			}
		case []any:
			if len(v) > 0 {
				if s, ok := v[0].(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	// rustflags' linker (-C linker=PATH, -Clinker=PATH).
	flags := func(v any) {
		fs := tomlStrings(v)
		if s, ok := v.(string); ok {
			fs = strings.Fields(s) // one string of flags
		}
		for _, f := range fs {
			// Any path a flag names (link-arg=-Wl,-plugin,P,
			// -specs=P, @P, --ld-path=P: the linker loads or runs it).
			out = append(out, pathTokens(f)...)
			f = strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(f, "--codegen="), "--codegen"), "-C")
			if p, ok := strings.CutPrefix(f, "linker="); ok {
				out = append(out, p)
			}
			// The linker driver's -B: where cc looks for ld (mold's
			// documented set-up, link-arg=-Bpath/to/mold).
			for _, pre := range []string{"link-arg=-B", "link-args=-B"} {
				if p, ok := strings.CutPrefix(f, pre); ok {
					p, _, _ = strings.Cut(p, " ")
					out = append(out, p)
				}
			}
		}
	}
	build := tomlTable(doc["build"])
	for _, k := range []string{"rustc", "rustc-wrapper", "rustc-workspace-wrapper", "rustdoc"} {
		program(build[k], false)
	}
	flags(build["rustflags"])
	flags(build["rustdocflags"])
	for _, t := range []map[string]any{tomlTable(doc["target"]), tomlTable(doc["host"])} {
		for _, v := range t {
			if m := tomlTable(v); m != nil {
				program(m["linker"], false)
				program(m["runner"], true)
				flags(m["rustflags"])
			}
		}
	}
	program(tomlTable(doc["host"])["linker"], false)
	reg := tomlTable(doc["registry"])
	program(reg["credential-provider"], true)
	if ps, ok := reg["global-credential-providers"].([]any); ok {
		for _, p := range ps {
			program(p, true)
		}
	}
	for _, r := range tomlTable(doc["registries"]) {
		program(tomlTable(r)["credential-provider"], true)
	}
	// [credential-alias] NAME = "PROGRAM ARGS" or ["PROGRAM", ARGS...]
	// (a provider named by its alias), and cargo doc --open's browser.
	for _, a := range tomlTable(doc["credential-alias"]) {
		program(a, true)
	}
	program(tomlTable(doc["doc"])["browser"], true)
	// [env]: what every process cargo starts gets (LD_PRELOAD = { value
	// = "tools/x.so", relative = true }); a value naming a path.
	// A value cargo takes relative to the config's directory (relative =
	// true) is a path whatever it holds: CC = { value = "zcc", relative =
	// true } (the hundred-and-forty-sixth review).
	var relative []string
	for _, v := range tomlTable(doc["env"]) {
		if m := tomlTable(v); m != nil {
			if r, _ := m["relative"].(bool); r {
				if s, ok := m["value"].(string); ok && s != "" {
					relative = append(relative, s)
				}
			}
			v = m["value"]
		}
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return uniq(append(slices.DeleteFunc(out, func(p string) bool { return !strings.Contains(p, "/") }), relative...))
}

// bunfigRefs: the scripts bun preloads (top level and for bun test) and
// its plugins, where given by path (a bare name is a package).
func bunfigRefs(data []byte) []string {
	var doc map[string]any
	if toml.Unmarshal(data, &doc) != nil {
		return nil
	}
	var out []string
	add := func(v any) { out = append(out, tomlStrings(v)...) }
	add(doc["preload"])
	add(doc["plugins"])
	for _, k := range []string{"test", "run"} {
		add(tomlTable(doc[k])["preload"])
		add(tomlTable(doc[k])["plugins"])
	}
	add(tomlTable(tomlTable(doc["serve"])["static"])["plugins"])
	return slices.DeleteFunc(out, func(p string) bool {
		return !strings.HasPrefix(p, "./") && !strings.HasPrefix(p, "../") && !strings.HasPrefix(p, "/")
	})
}

// jvmOptionRefs: what the JVM options (Maven's, sbt's) load or run: an
// agent (-javaagent:, -agentpath:), an extension or boot class path
// (-Dmaven.ext.class.path=, -Xbootclasspath/a:), the program an error
// runs (-XX:OnOutOfMemoryError=, -XX:OnError=), and sbt's launcher jar
// and Java home (-sbt-jar, -java-home). sbt passes -J-prefixed options
// to the JVM.
func jvmOptionRefs(data []byte) []string {
	var out []string
	var fields []string
	for line := range lines(data) {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		fields = append(fields, strings.Fields(line)...)
	}
	for i, f := range fields {
		f = strings.Trim(strings.TrimPrefix(f, "-J"), `"'`)
		next := ""
		if i+1 < len(fields) {
			next = strings.Trim(strings.TrimPrefix(fields[i+1], "-J"), `"'`)
		}
		switch f {
		case "-sbt-jar", "-java-home", "-sbt-boot", "-sbt-dir", "-ivy", "--patch-module", "-XX:VMOptionsFile":
			out = append(out, next)
			if f == "--patch-module" {
				_, v, _ := strings.Cut(next, "=")
				out = append(out, strings.Split(v, ":")...)
			}
		}
		if p, ok := strings.CutPrefix(f, "@"); ok {
			out = append(out, p) // an argument file: more options
		}
		if strings.HasPrefix(f, "-D") {
			// A property naming a path (java.library.path, where
			// -agentlib and -Xrun take their library; java.ext.dirs).
			out = append(out, pathTokens(f)...)
		}
		for _, pre := range []string{"-javaagent:", "-agentpath:"} {
			if v, ok := strings.CutPrefix(f, pre); ok {
				v, _, _ = strings.Cut(v, "=")
				out = append(out, v)
			}
		}
		for _, pre := range []string{"-Dmaven.ext.class.path=", "-Xbootclasspath/a:", "-Xbootclasspath/p:", "-Xbootclasspath:"} {
			if v, ok := strings.CutPrefix(f, pre); ok {
				out = append(out, strings.FieldsFunc(v, func(r rune) bool { return r == ':' || r == ',' })...)
			}
		}
		for _, pre := range []string{"-XX:OnOutOfMemoryError=", "-XX:OnError=", "-XX:VMOptionsFile=", "-XX:Flags=",
			"-Dsbt.boot.directory=", "-Dsbt.global.base=", "-Dsbt.ivy.home=", "-Dsbt.boot.properties="} {
			if v, ok := strings.CutPrefix(f, pre); ok && v != "" {
				out = append(out, v)
			}
		}
		if v, ok := strings.CutPrefix(f, "--patch-module="); ok {
			_, v, _ = strings.Cut(v, "=")
			out = append(out, strings.Split(v, ":")...)
		}
	}
	return uniq(out)
}

// lines yields data's lines, ended by LF, CRLF or a lone CR (yarn 1's
// parser ends a line at either).
func lines(data []byte) func(func(string) bool) {
	return func(yield func(string) bool) {
		for len(data) > 0 {
			i := bytes.IndexAny(data, "\r\n")
			if i < 0 {
				yield(string(data))
				return
			}
			if !yield(string(data[:i])) {
				return
			}
			if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
				i++
			}
			data = data[i+1:]
		}
	}
}

// pathTokens returns the words of s that read as paths in a project: one
// holding a "/" (not a URL) or naming a dotfile, as they stand, after an
// option's "=", ":" or "," and a response file's "@" (an
// over-approximation for formats that take free option strings: a word
// kept read-only that is no path costs a write, a path missed a program
// run).
func pathTokens(s string) []string {
	var out []string
	for _, part := range bareTokens(s) {
		ws := strings.HasPrefix(part, "%workspace%/") // Bazel's name for the project's directory
		part = strings.TrimPrefix(part, "%workspace%/")
		if part == "" || part == "." || part == ".." || strings.HasPrefix(part, "-") {
			continue
		}
		if ws || strings.Contains(part, "/") || strings.HasPrefix(part, ".") {
			out = append(out, part)
		}
	}
	return out
}

// optionFileRefs: the paths a file of free-form tool options names (npm's
// .npmrc: script-shell, node-options' --require; uv's .python-version: an
// interpreter's path; Bazel's .bazelrc: try-import, host_jvm_args;
// MSBuild's Directory.Build.rsp: a -logger's assembly), comments left out.
func optionFileRefs(data []byte) []string {
	var out []string
	for line := range lines(data) {
		if t := strings.TrimSpace(line); t == "" || t[0] == '#' || t[0] == ';' {
			continue
		}
		out = append(out, pathTokens(line)...)
	}
	return uniq(out)
}

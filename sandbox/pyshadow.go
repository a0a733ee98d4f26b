package sandbox

import (
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
	"mvdan.cc/sh/v3/syntax"
)

// Modules that stand in for Python's standard library.
//
// Python puts a directory first on sys.path: the current one for -c, -m
// and stdin, the script's own for a script. A module there whose name is
// the standard library's is imported in its place: direnv's `layout
// python` runs `python -c "import pkgutil, platform…"` in the .envrc's
// directory each time the person enters it, and a platform.py the agent
// wrote there ran outside the sandbox; `python3 -m venv` imports logging.
// In each such directory a launcher file names, a new module of a
// standard library name (NAME.py, NAME.pyc, NAME.*.so, NAME/__init__.py)
// is refused to a write decision and set aside after a command that made
// it; one that exists is kept read-only. Other modules stay writable: the
// project's own, which its program imports by their names anyway.

// pyShadowPattern is how a pyShadow launcherGlob's pattern reads in a
// refusal.
const pyShadowPattern = "(a module named as Python's standard library's)"

// pyShadowFile reports whether name, a directory's entry, is a module
// file of a standard library name.
func pyShadowFile(name string) bool {
	mod, ext, ok := strings.Cut(name, ".")
	if !ok {
		return false
	}
	if m, two := strings.CutSuffix(mod, "module"); two && ext == "so" && pythonLibName(m) {
		return true // python 2's NAMEmodule.so (review 189)
	}
	if !pythonLibName(mod) {
		return false
	}
	// NAME.py, NAME.pyc, NAME.pyo, NAME.so, NAME.cpython-313-x86_64-linux-gnu.so,
	// NAME.abi3.so.
	return ext == "py" || ext == "pyc" || ext == "pyo" || ext == "so" || strings.HasSuffix(ext, ".so") // .pyo: python 2 -O (review 192)
}

// pythonLibName reports whether mod is the name of a module of Python's
// standard library (pythonStdlib), sysconfig's _sysconfigdata_* (whose
// name it makes at run time: python -m venv imported the agent's
// _sysconfigdata__linux_x86_64-linux-gnu.py; review 189) included.
func pythonLibName(mod string) bool {
	return pythonStdlib()[mod] || strings.HasPrefix(mod, "_sysconfigdata")
}

// pyShadowRel reports whether rel, a path below a directory python runs
// in, is a module of a standard library name there.
func pyShadowRel(rel string) bool {
	dir, file, deep := strings.Cut(rel, "/")
	if !deep {
		return pyShadowFile(rel)
	}
	return pythonLibName(dir) && (file == "__init__.py" || file == "__init__.pyc" || strings.HasPrefix(file, "__init__.") && strings.HasSuffix(file, ".so"))
}

// pythonName reports whether the word w names a python interpreter:
// python, python2, python3, python3.12, pypy3.
func pythonName(w string) bool {
	b := path.Base(w)
	for _, p := range []string{"python", "pypy"} {
		if v, ok := strings.CutPrefix(b, p); ok && (v == "" || v[0] >= '2' && v[0] <= '3' && strings.Trim(v[1:], ".0123456789") == "") {
			return true
		}
	}
	return false
}

// pythonRunDir returns the directory a python call with the arguments
// args (after the program) puts first on sys.path, as a path relative to
// where it runs (".": the current directory), or "" when it is none that
// can be told (an isolated run: -I, -P; a script named by an expansion).
func pythonRunDir(args []string) string {
	dir, scr := pythonRunTarget(args)
	if scr != "" {
		return path.Dir(scr)
	}
	return dir
}

// pythonRunTarget returns what a python call with the arguments args puts
// first on sys.path: the current directory (dir "."), or the script scr
// it runs (its directory, through its links; the script itself when it is
// a directory: pyScriptRef); neither for an isolated run of no script or a
// script whose name is an expansion.
func pythonRunTarget(args []string) (dir, scr string) {
	switch r := pythonArgs(args); {
	case r.isolated && !r.hasScript:
		return "", "" // sys.path holds no such directory
	case r.hasScript && (r.script == "" || strings.Contains(r.script, "$")):
		return "", "" // a script named by an expansion: not told (review 187)
	case r.hasScript:
		// Isolated too: -I and -P keep a script's directory off sys.path,
		// but a directory or zip run as the script is put first whatever
		// the flags (CPython 3.11–3.13, review 192); a script's own
		// directory read so keeps a few more names, no more.
		return "", r.script
	}
	return ".", "" // -m, -c, stdin, the interactive interpreter
}

// wordTexts is each word of ws as a launcher file names it: its value, or,
// where it is an expansion, its source text in script with the project's
// directory ($PWD, ${PWD}, $(pwd), ~+) read as "." (an expansion left
// holds a "$").
func wordTexts(script string, ws []*syntax.Word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		v := ""
		if vs := wordValues(w); len(vs) > 0 {
			v = vs[0]
		} else if a, e := int(w.Pos().Offset()), int(w.End().Offset()); a >= 0 && a <= e && e <= len(script) {
			raw := strings.Trim(script[a:e], `"'`)
			if m := expandPathCall().FindStringSubmatch(raw); m != nil {
				raw = m[1] + m[2] // direnv's expand_path NAME: NAME from the .envrc's directory
			}
			v = unquoted(envrcPWDText(raw))
			if !strings.Contains(v, "$") {
				v = path.Clean(v)
			}
		}
		if v == "~+" || strings.HasPrefix(v, "~+/") {
			v = "." + v[2:]
		}
		out[i] = v
	}
	return out
}

// pyScriptRef watches the directory of the script scr (as a launcher file
// in base names it) python runs: where its links lead, as CPython's
// sys.path[0] is the script's real path's directory (review 187: bin/tool
// a link to ../tools/tool.py imported tools/json.py).
func (d *discovery) pyScriptRef(base, scr string) {
	if atEachTop(base, scr, func(top, rel string) { d.pyScriptRef(top, rel) }) {
		return
	}
	if scr == "" || strings.ContainsAny(scr, "$\x00") {
		return
	}
	if !strings.HasPrefix(scr, "/") {
		scr = path.Join(base, scr)
	}
	if c, exists, ok, err := canonicalPath(scr); err == nil && ok && exists {
		if isDir(c) {
			// python3 ., python3 "$PWD": the directory runs as a module
			// (its __main__.py), and is itself first on sys.path (review
			// 190), not its parent.
			d.pyPathRef(base, c)
			return
		}
		scr = c
	}
	d.pyPathRef(base, path.Dir(scr))
}

// pyPathRef watches the directory dir (as a launcher file in base wrote
// it) that python puts first on sys.path.
func (d *discovery) pyPathRef(base, dir string) {
	if atEachTop(base, dir, func(top, rel string) { d.pyPathRef(top, rel) }) {
		return
	}
	if dir == "" || strings.ContainsAny(dir, "$\x00") {
		return
	}
	if !strings.HasPrefix(dir, "/") {
		dir = path.Join(base, dir)
	}
	c, exists, ok, err := canonicalPath(dir)
	if err != nil || !ok {
		return
	}
	if exists && !isDir(c) || !d.writable(c) {
		return
	}
	key := "pyshadow:" + c
	if d.seen[key] || !d.spendResolved() {
		// Past the launcher file's share it is not marked looked at: a
		// later file, the person's, with a share of its own, looks
		// (review 185: the agent's nested .envrc spent its share on the
		// way to the person's directory).
		return
	}
	d.seen[key] = true
	g := launcherGlob{dir: c, pattern: pyShadowPattern, py: true}
	if !exists {
		// Watched where missing too: a command that makes it, with a
		// module of the library's name in it, has that set aside (review
		// 187); the directory itself stays the project's.
		d.v.launcherGlobs = append(d.v.launcherGlobs, g)
		return
	}
	names := maxLauncherPaths
	ents, _, err := readDirentsKeep(c, &names, func(name []byte, _ uint8) bool {
		n := string(name)
		return pyShadowFile(n) || pythonLibName(n)
	})
	if err != nil && len(ents) == 0 && names > 0 {
		return
	}
	for _, e := range ents {
		if pyShadowFile(e.name) {
			g.had = append(g.had, e.name)
			d.launcherPath(joinPath(c, e.name))
			if strings.HasSuffix(e.name, ".py") {
				// Its cached bytecode (pyExtensionAndCache).
				d.launcherPathCounted(joinPath(c, "__pycache__"), lookupFree)
			}
			continue
		}
		if e.typ == unix.DT_LNK {
			g.had = append(g.had, e.name) // a link the person made (setAsidePyShadows)
			continue
		}
		for _, f := range []string{"__init__.py", "__init__.pyc"} {
			if p := joinPath(joinPath(c, e.name), f); isRegularFile(p) {
				g.had = append(g.had, e.name+"/"+f)
				d.launcherPath(p)
				d.launcherPathCounted(joinPath(joinPath(c, e.name), "__pycache__"), lookupFree)
			}
		}
	}
	slices.Sort(g.had)
	d.v.launcherGlobs = append(d.v.launcherGlobs, g)
}

// setAsidePyShadows sets aside each module of a standard library name the
// command made in g's directory (a pyShadow glob): the file, or a
// package's __init__ file (its directory, maybe the person's, stays).
func (pc *plantCheck) setAsidePyShadows(g launcherGlob, root string) (found []Quarantine) {
	names := 1 << 30
	ents, _, err := readDirentsKeep(g.dir, &names, func(name []byte, _ uint8) bool {
		n := string(name)
		return pyShadowFile(n) || pythonLibName(n)
	})
	if err != nil {
		// The directory made a link (mv tools aside, ln -s real tools:
		// review 190): python run there through the link imports what
		// real/ holds. The directory was no link when the view was built
		// (the glob's is canonical), so the command made it: set aside.
		if fi, lerr := os.Lstat(g.dir); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
			to, err := setAsideBelow(root, path.Dir(g.dir), path.Base(g.dir))
			return []Quarantine{settled(Quarantine{Path: g.dir,
				Reason: "a link the command put in place of a directory where a launcher file runs python (what it leads to is imported in the standard library's place)"}, to, "", err)}
		}
		return nil
	}
	const why = "a module the command made, named as Python's standard library's, where a launcher file runs python (it is imported in the library's place)"
	for _, e := range ents {
		if pyShadowFile(e.name) {
			if p := joinPath(g.dir, e.name); g.newMatch(p) {
				to, err := setAsideBelow(root, g.dir, e.name)
				found = append(found, settled(Quarantine{Path: p, Reason: why}, to, "", err))
			}
			continue
		}
		if _, had := slices.BinarySearch(g.had, e.name); e.typ == unix.DT_LNK && !had {
			// A link of a standard library's name, to a package python
			// follows: set aside whole.
			to, err := setAsideBelow(root, g.dir, e.name)
			found = append(found, settled(Quarantine{Path: joinPath(g.dir, e.name), Reason: why}, to, "", err))
			continue
		}
		sub := joinPath(g.dir, e.name)
		subEnts, _, err := readDirentsKeep(sub, &names, func(name []byte, _ uint8) bool {
			return strings.HasPrefix(string(name), "__init__.")
		})
		if err != nil {
			continue // no directory (or a link: not followed)
		}
		for _, f := range subEnts {
			if p := joinPath(sub, f.name); g.newMatch(p) {
				to, err := setAsideBelow(root, sub, f.name)
				found = append(found, settled(Quarantine{Path: p, Reason: why}, to, "", err))
			}
		}
	}
	return found
}

// pythonLayout reports whether the call fv (its words) is one of direnv's
// layouts that run python in the .envrc's directory: layout python,
// python3, python2, pipenv, pyenv, anaconda, uv, poetry, pdm (or the
// function layout_NAME).
func pythonLayout(fv []string) bool {
	var name string
	switch {
	case len(fv) > 1 && fv[0] == "layout":
		name = fv[1]
	case len(fv) > 0 && strings.HasPrefix(fv[0], "layout_"):
		name = strings.TrimPrefix(fv[0], "layout_")
	default:
		return false
	}
	return strings.HasPrefix(name, "python") || slices.Contains([]string{"pipenv", "pyenv", "anaconda", "uv", "poetry", "pdm", "conda"}, name)
}

// pythonShebang reports whether the regular file p starts with a #! line
// that runs python (#!/usr/bin/python3, #!/usr/bin/env python3 -u).
func pythonShebang(p string) bool {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return false
	}
	var b [256]byte
	n, _ := unix.Read(fd, b[:])
	if n < 2 || b[0] != '#' || b[1] != '!' {
		return false
	}
	line, _, _ := strings.Cut(string(b[2:max(n, 2)]), "\n")
	for _, w := range strings.Fields(line) {
		if base := path.Base(w); base == "env" || strings.HasPrefix(w, "-") {
			continue
		} else {
			// uv's PEP 723 line (#!/usr/bin/env -S uv run --script)
			// runs the script with python too (review 187).
			return pythonName(base) || base == "uv"
		}
	}
	return false
}

// expandPathCall matches direnv's $(expand_path NAME) (NAME literal) and
// what follows it.
var expandPathCall = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\$\(expand_path\s+"?([^"$)\s]+)"?\s*\)(.*)$`)
})

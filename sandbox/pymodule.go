package sandbox

import (
	"path"
	"strings"
)

// Python's -m.
//
// `python3 -m venv .venv` in a .envrc runs the module venv, looked up in
// the current directory (the .envrc's) before the standard library:
// python -m puts the current directory first on sys.path. A venv.py the
// agent wrote beside the .envrc was the person's next direnv's program.
// The module's files in that directory (NAME.py, its sourceless NAME.pyc,
// a package NAME/ with __init__.py and __main__.py, and each enclosing
// package's __init__.py for a dotted name) are kept read-only, watched
// where missing. What the module imports in turn is looked up there too
// (venv imports logging: a logging.py beside it is loaded): a module of a
// standard library name there is watched as well (pyshadow.go); the
// project's own modules are not.

// pyModuleRef is a module python -m runs (mod, dotted) in the directory
// dir (as the launcher file wrote it: relative to its own directory, or
// after a cd).
type pyModuleRef struct{ dir, mod string }

// pythonModuleArg returns the module of python's -m among its arguments
// args (-m NAME, -mNAME, -Bm NAME), or "" when it runs none: a script, -c,
// or options only.
func pythonModuleArg(args []string) string { return pythonArgs(args).module }

// pyRun is what python's arguments (after the program) run.
type pyRun struct {
	module    string // -m NAME
	script    string // the script's word, when hasScript ("" for an expansion)
	scriptAt  int    // its index in the arguments
	hasScript bool
	// isolated: -I or -P before what runs: no script's directory, nor
	// the current one, is put first on sys.path (a directory or zip run
	// as the script still is: pythonRunTarget).
	isolated bool
}

// pythonArgs reads python's arguments as CPython does: options, each
// letter of a cluster (-Bm NAME), the options whose value is the next
// word (-W, -X, --check-hash-based-pycs; python 2's -Q: review 190), up
// to what runs (-m NAME, -c, "-", a script; after "--" the next word is
// the script). The one reader of them (pythonModuleArg,
// pythonRunTarget).
func pythonArgs(args []string) (r pyRun) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-":
			return r // stdin
		case a == "--":
			if i+1 < len(args) {
				r.script, r.scriptAt, r.hasScript = args[i+1], i+1, true
			}
			return r
		case !strings.HasPrefix(a, "-"):
			r.script, r.scriptAt, r.hasScript = a, i, true
			return r
		case strings.HasPrefix(a, "--"):
			if a == "--check-hash-based-pycs" {
				i++ // its value is the next word
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			switch a[j] {
			case 'I', 'P':
				r.isolated = true
			case 'm':
				if rest := a[j+1:]; rest != "" {
					r.module = rest
				} else if i+1 < len(args) {
					r.module = args[i+1]
				}
				return r
			case 'c':
				return r // a command string
			case 'W', 'X', 'Q':
				if a[j+1:] == "" {
					i++ // its argument is the next word
				}
				j = len(a)
			}
		}
	}
	return r // the interactive interpreter
}

// pyModuleRef keeps the files of the module mod that python -m, run in
// dir (as a launcher file in base wrote it), loads from there.
func (d *discovery) pyModuleRef(base, dir, mod string) {
	if atEachTop(base, dir, func(top, rel string) { d.pyModuleRef(top, rel, mod) }) {
		return
	}
	if !strings.HasPrefix(dir, "/") {
		dir = path.Join(base, dir)
	}
	d.pyModule(dir, mod)
}

// pyModule keeps mod's files in dir (clean, absolute): one share of the
// names an interpreter resolves (spendResolved), looked at once.
func (d *discovery) pyModule(dir, mod string) {
	parts := strings.Split(mod, ".")
	for _, p := range parts {
		if !pyIdentifier(p) {
			return // no module name (an expansion, a path)
		}
	}
	key := "pymodule:" + dir + "\x00" + mod
	if d.seen[key] || !d.spendResolved() {
		// Past the launcher file's share it is not marked looked at: a
		// later file, the person's, with a share of its own, looks
		// (review 185: the agent's nested .envrc spent its share on the
		// way to the person's directory).
		return
	}
	d.seen[key] = true
	p := dir
	for i, part := range parts {
		parent := p
		p += "/" + part
		files := []string{p + "/__init__.py", p + "/__init__.pyc"}
		d.pyExtensionAndCache(p, "__init__")
		if i == len(parts)-1 {
			files = append(files, p+".py", p+".pyc", p+"/__main__.py", p+"/__main__.pyc")
			d.pyExtensionAndCache(parent, part)
			d.pyExtensionAndCache(p, "__main__")
		}
		for _, f := range files {
			d.launcherPathCounted(f, lookupFree)
		}
	}
}

// pyExtensionAndCache keeps what python loads for the module name in dir
// besides name.py and name.pyc: an extension module (name.*so: its finder
// tries name.cpython-311-x86_64-linux-gnu.so, name.abi3.so and name.so
// before name.py; a new one refused and set aside), and, where name.py
// exists, its cached bytecode in dir/__pycache__ (an "unchecked hash" .pyc
// is run whatever the source says: review 185), the directory kept
// read-only, watched where missing.
func (d *discovery) pyExtensionAndCache(dir, name string) {
	d.launcherRef(dir, name+".*so")
	if isRegularFile(dir + "/" + name + ".py") {
		d.launcherPathCounted(dir+"/__pycache__", lookupFree)
	}
}

// pyIdentifier reports whether s may be a Python module's name (ASCII
// identifiers; a name with other letters is kept as one too).
func pyIdentifier(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r > 0x7f) {
			return false
		}
	}
	return true
}

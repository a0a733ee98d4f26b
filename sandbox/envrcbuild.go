package sandbox

import (
	"path"
	"slices"
	"strings"
	"unicode"
)

// buildRunner is a program that runs what a file of the project defines
// (a makefile's recipes, package.json's scripts, a justfile's recipes),
// found by its default names in the directory it runs in, or the file
// and directory its options give.
type buildRunner struct {
	// sub, when set, is the subcommand that runs the file's recipes
	// (deno task); other words do not.
	sub string
	// files are the names it looks for, all of them read-only or watched:
	// one made where it was missing may take another's place
	// (GNUmakefile before Makefile).
	files []string
	// patterns are what it loads beside its file, where it runs (rake's
	// rakelib/*.rake).
	patterns []string
	// anyCase: it takes its file's name in any case (just), so a name of
	// another case made where none is is set aside too (in the .envrc's
	// own directory; read as a shell pattern, [jJ][uU]…).
	anyCase bool
	// fileOpts and dirOpts are its options whose value is the file it
	// reads and the directory it runs in ("-f" also takes -fFILE,
	// "--file" also --file=FILE).
	fileOpts, dirOpts []string
	// otherValued, for a runner that reads its options as getopt does,
	// are its other short options that take a value: a cluster (-kf FILE,
	// -sCtools) is read letter by letter up to one of them.
	otherValued string
	// abbrev: it takes a long option by any prefix of its name, as
	// getopt_long does (make --dir=tools: review 194).
	abbrev bool
	// pathRecipe: a first operand DIR/RECIPE runs RECIPE of DIR's file
	// (just tools/build).
	pathRecipe bool
	// walksUp: given no file, it looks for its file in the directories
	// above too when the one it runs in has none (npm's, just's,
	// go-task's, deno's, rake's search).
	walksUp bool
}

// makeRunner is GNU make's reading of its options.
var makeRunner = buildRunner{files: []string{"GNUmakefile", "makefile", "Makefile", "BSDmakefile"}, fileOpts: []string{"-f", "--file", "--makefile"},
	dirOpts: []string{"-C", "--directory"}, otherValued: "IoWjlOE", abbrev: true}

// buildRunners are the build and task runners an .envrc may call, which
// the person's direnv then runs on every entry: make (GNU and BSD names),
// the Node package managers (a package.json's scripts: run, start, test,
// a script bun runs by its name, and the lifecycle scripts install runs),
// deno's tasks, just, go-task and rake. A file they read in turn (a
// makefile's include, a script a recipe runs) is a file as any other: not
// followed.
var buildRunners = map[string]buildRunner{
	"make":  makeRunner,
	"gmake": makeRunner,
	"bmake": {files: []string{"BSDmakefile", "makefile", "Makefile"}, fileOpts: []string{"-f"}, dirOpts: []string{"-C"}, otherValued: "DdIJjmTVv"},
	"npm":   {files: []string{"package.json"}, dirOpts: []string{"--prefix"}, walksUp: true},
	"pnpm":  {files: []string{"package.json"}, dirOpts: []string{"-C", "--dir"}, walksUp: true},
	"yarn":  {files: []string{"package.json"}, dirOpts: []string{"--cwd"}, walksUp: true},
	"bun":   {files: []string{"package.json"}, dirOpts: []string{"--cwd"}, walksUp: true},
	"deno":  {sub: "task", files: []string{"deno.json", "deno.jsonc", "package.json"}, fileOpts: []string{"-c", "--config"}, dirOpts: []string{"--cwd"}, walksUp: true},
	"just": {files: []string{"justfile", "Justfile", "JUSTFILE", ".justfile"}, anyCase: true, fileOpts: []string{"-f", "--justfile"},
		dirOpts: []string{"-d", "--working-directory"}, pathRecipe: true, walksUp: true},
	"task": {files: []string{"Taskfile.yml", "taskfile.yml", "Taskfile.yaml", "taskfile.yaml", "Taskfile.dist.yml", "taskfile.dist.yml",
		"Taskfile.dist.yaml", "taskfile.dist.yaml"}, fileOpts: []string{"-t", "--taskfile"}, dirOpts: []string{"-d", "--dir"}, walksUp: true},
	"rake": {files: []string{"rakefile", "Rakefile", "rakefile.rb", "Rakefile.rb"}, patterns: []string{"rakelib/*.rake"},
		fileOpts: []string{"-f", "--rakefile"}, dirOpts: []string{"-C", "--directory"}, walksUp: true},
}

// buildRefs are what a build or task runner an .envrc calls reads: files
// and patterns relative to where the call runs, and here, patterns in the
// .envrc's own directory only.
type buildRefs struct {
	files, patterns, here []string
}

// envrcBuildRefs returns what a build or task runner the call f (its
// words) makes reads its recipes from (cd tools && make ran
// tools/Makefile, which stayed writable: a note of review 192): its -f
// FILE, relative to its -C DIR, or else its default names in that
// directory, and in each directory from the .envrc's up for one that
// looks there. Nothing when f calls no such runner, or only asks whether
// it exists (has npm, command -v make: review 194).
func envrcBuildRefs(f []string) (r buildRefs) {
	if toolCheck(f) {
		return r
	}
	for i, w := range f {
		br, ok := buildRunners[path.Base(w)]
		if !ok {
			continue
		}
		files, dirs, operands := br.options(f[i+1:])
		if br.sub != "" && (len(operands) == 0 || operands[0] != br.sub) {
			return r
		}
		if br.pathRecipe && len(operands) > 0 && strings.Contains(operands[0], "/") {
			dirs = append(dirs, path.Dir(operands[0]))
		}
		dir := "."
		for _, d := range dirs {
			// make -C a -C b runs in a/b; an absolute one starts over.
			if strings.HasPrefix(d, "/") {
				dir = d
			} else {
				dir = path.Join(dir, d)
			}
		}
		in := func(name string) string {
			if strings.HasPrefix(name, "/") {
				return name
			}
			return path.Join(dir, name)
		}
		for _, name := range files {
			if name != "" && name != "-" { // "-": the recipes on its input
				r.files = append(r.files, in(name))
			}
		}
		if len(files) > 0 {
			return r
		}
		for _, name := range br.files {
			r.files = append(r.files, in(name))
		}
		for _, p := range br.patterns {
			r.patterns = append(r.patterns, in(p))
		}
		if br.walksUp {
			// Each name in every directory from the .envrc's up, as the
			// repository's top is read (launcherRef): one where the
			// runner runs has none, and it takes a parent's.
			for _, name := range br.files {
				r.files = append(r.files, string(rune(gitTopMark))+"/"+name)
			}
		}
		if br.anyCase && dir == "." {
			p := anyCasePattern(br.files[0]) // justfile, and .justfile
			r.here = append(r.here, p, "."+p)
		}
		return r
	}
	return r
}

// toolCheck reports whether the call f only asks whether a program
// exists (has npm, direnv's; command -v make; type, which, hash).
func toolCheck(f []string) bool {
	if len(f) == 0 {
		return false
	}
	switch f[0] {
	case "has", "which", "type", "hash", "whereis":
		return true
	case "command":
		return len(f) > 1 && (strings.HasPrefix(f[1], "-v") || strings.HasPrefix(f[1], "-V"))
	}
	return false
}

// anyCasePattern is name as a shell pattern of its letters in either case
// (justfile: [jJ][uU][sS][tT][fF][iI][lL][eE]).
func anyCasePattern(name string) string {
	var b strings.Builder
	for _, c := range name {
		if lo, up := unicode.ToLower(c), unicode.ToUpper(c); lo != up {
			b.WriteString("[" + string(lo) + string(up) + "]")
		} else {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// options reads the runner's arguments args: the files and directories
// its options give, and its operands (the words that are no option or
// option value, before a "--").
func (br buildRunner) options(args []string) (files, dirs, operands []string) {
	for j := 0; j < len(args) && args[j] != "--"; j++ {
		a := args[j]
		switch {
		case br.otherValued != "" && len(a) > 2 && a[0] == '-' && a[1] != '-':
			// A cluster of short options, as getopt reads it.
			for k := 1; k < len(a); k++ {
				opt := "-" + a[k:k+1]
				isFile, isDir := slices.Contains(br.fileOpts, opt), slices.Contains(br.dirOpts, opt)
				if !isFile && !isDir {
					if strings.IndexByte(br.otherValued, a[k]) >= 0 {
						break // the rest is its value
					}
					continue
				}
				v := a[k+1:]
				if v == "" && j+1 < len(args) {
					j++
					v = args[j]
				}
				if isFile {
					files = append(files, v)
				} else {
					dirs = append(dirs, v)
				}
				break
			}
		case !strings.HasPrefix(a, "-"):
			operands = append(operands, a)
		default:
			if v, next, ok := optionValue(args, j, br.fileOpts, br.abbrev); ok {
				files, j = append(files, v), next
			} else if v, next, ok := optionValue(args, j, br.dirOpts, br.abbrev); ok {
				dirs, j = append(dirs, v), next
			}
		}
	}
	return files, dirs, operands
}

// optionValue reads args[j] as one of opts with its value: "-f FILE",
// "-fFILE", "--file FILE", "--file=FILE", and with abbrev a long option
// by a prefix of its name ("--dir=tools", "--fi x.mk"); next is the index
// of its last word.
func optionValue(args []string, j int, opts []string, abbrev bool) (v string, next int, ok bool) {
	a := args[j]
	name, value, hasValue := strings.Cut(a, "=")
	for _, o := range opts {
		long := strings.HasPrefix(o, "--")
		switch {
		case long && (name == o || abbrev && len(name) > 2 && strings.HasPrefix(o, name)):
			if hasValue {
				return value, j, true
			}
			if j+1 < len(args) {
				return args[j+1], j + 1, true
			}
		case !long && a == o && j+1 < len(args):
			return args[j+1], j + 1, true
		case !long && strings.HasPrefix(a, o) && len(a) > len(o):
			return a[len(o):], j, true
		}
	}
	return "", j, false
}

package sandbox

import (
	"path"
	"slices"
	"strings"
)

// buildRunner is a program that runs what a file of the project defines
// (a makefile's recipes, package.json's scripts, a justfile's recipes),
// found by its default names in the directory it runs in, or the file
// and directory its options give.
type buildRunner struct {
	// sub, when set, is the subcommand that runs the file's recipes
	// (deno task, bun run); other words do not.
	sub string
	// files are the names it looks for, all of them read-only or watched:
	// one made where it was missing may take another's place
	// (GNUmakefile before Makefile).
	files []string
	// fileOpts and dirOpts are its options whose value is the file it
	// reads and the directory it runs in ("-f" also takes -fFILE,
	// "--file" also --file=FILE).
	fileOpts, dirOpts []string
	// otherValued, for a runner that reads its options as getopt does,
	// are its other short options that take a value: a cluster (-kf FILE,
	// -sCtools) is read letter by letter up to one of them.
	otherValued string
	// walksUp: given no file or directory, it looks for its file in the
	// directories above too when the one it runs in has none (npm's,
	// just's, go-task's, deno's search).
	walksUp bool
}

// buildRunners are the build and task runners an .envrc may call, which
// the person's direnv then runs on every entry: make (GNU and BSD names),
// the Node package managers (a package.json's scripts: run, start, test,
// and the lifecycle scripts install runs), deno's and bun's tasks, just,
// go-task and rake. A file they read in turn (a makefile's include, a
// script a recipe runs) is a file as any other: not followed.
var buildRunners = map[string]buildRunner{
	"make":  {files: []string{"GNUmakefile", "makefile", "Makefile", "BSDmakefile"}, fileOpts: []string{"-f", "--file", "--makefile"}, dirOpts: []string{"-C", "--directory"}, otherValued: "IoWjlOE"},
	"gmake": {files: []string{"GNUmakefile", "makefile", "Makefile"}, fileOpts: []string{"-f", "--file", "--makefile"}, dirOpts: []string{"-C", "--directory"}, otherValued: "IoWjlOE"},
	"bmake": {files: []string{"BSDmakefile", "makefile", "Makefile"}, fileOpts: []string{"-f"}, dirOpts: []string{"-C"}, otherValued: "DdIJjmTVv"},
	"npm":   {files: []string{"package.json"}, dirOpts: []string{"--prefix"}, walksUp: true},
	"pnpm":  {files: []string{"package.json"}, dirOpts: []string{"-C", "--dir"}, walksUp: true},
	"yarn":  {files: []string{"package.json"}, dirOpts: []string{"--cwd"}, walksUp: true},
	"bun":   {sub: "run", files: []string{"package.json"}, dirOpts: []string{"--cwd"}, walksUp: true},
	"deno":  {sub: "task", files: []string{"deno.json", "deno.jsonc", "package.json"}, fileOpts: []string{"-c", "--config"}, dirOpts: []string{"--cwd"}, walksUp: true},
	"just":  {files: []string{"justfile", "Justfile", "JUSTFILE", ".justfile"}, fileOpts: []string{"-f", "--justfile"}, dirOpts: []string{"-d", "--working-directory"}, walksUp: true},
	"task": {files: []string{"Taskfile.yml", "taskfile.yml", "Taskfile.yaml", "taskfile.yaml", "Taskfile.dist.yml", "taskfile.dist.yml",
		"Taskfile.dist.yaml", "taskfile.dist.yaml"}, fileOpts: []string{"-t", "--taskfile"}, dirOpts: []string{"-d", "--dir"}, walksUp: true},
	"rake": {files: []string{"rakefile", "Rakefile", "rakefile.rb", "Rakefile.rb"}, fileOpts: []string{"-f", "--rakefile"}, dirOpts: []string{"-C", "--directory"}},
}

// envrcBuildFiles returns the files, relative to where the call f (its
// words) runs, whose recipes a build or task runner it calls runs (cd
// tools && make ran tools/Makefile, which stayed writable: a note of
// review 192): its -f FILE, relative to its -C DIR, or else its default
// names in that directory. None when f calls no such runner.
func envrcBuildFiles(f []string) []string {
	for i, w := range f {
		br, ok := buildRunners[path.Base(w)]
		if !ok {
			continue
		}
		args := f[i+1:]
		if br.sub != "" {
			j := 0
			for j < len(args) && strings.HasPrefix(args[j], "-") {
				j++
			}
			if j == len(args) || args[j] != br.sub {
				return nil
			}
		}
		var files, dirs []string
		for j := 0; j < len(args) && args[j] != "--"; j++ {
			a := args[j]
			if br.otherValued != "" && len(a) > 2 && a[0] == '-' && a[1] != '-' {
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
				continue
			}
			if v, next, ok := optionValue(args, j, br.fileOpts); ok {
				files, j = append(files, v), next
			} else if v, next, ok := optionValue(args, j, br.dirOpts); ok {
				dirs, j = append(dirs, v), next
			}
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
		var above []string
		if len(files) == 0 {
			files = br.files
			if br.walksUp && len(dirs) == 0 {
				// Each name in every directory from the .envrc's up,
				// as the repository's top is read (launcherRef): one
				// where the runner runs has none, and it takes a
				// parent's.
				for _, name := range files {
					above = append(above, string(rune(gitTopMark))+"/"+name)
				}
			}
		}
		out := make([]string, 0, len(files))
		for _, name := range files {
			if name == "" || name == "-" {
				continue // the recipes on its input
			}
			if strings.HasPrefix(name, "/") {
				out = append(out, name)
			} else {
				out = append(out, path.Join(dir, name))
			}
		}
		return append(out, above...)
	}
	return nil
}

// optionValue reads args[j] as one of opts with its value: "-f FILE",
// "-fFILE", "--file FILE", "--file=FILE"; next is the index of its last
// word.
func optionValue(args []string, j int, opts []string) (v string, next int, ok bool) {
	a := args[j]
	for _, o := range opts {
		switch {
		case a == o && j+1 < len(args):
			return args[j+1], j + 1, true
		case strings.HasPrefix(o, "--") && strings.HasPrefix(a, o+"="):
			return a[len(o)+1:], j, true
		case !strings.HasPrefix(o, "--") && strings.HasPrefix(a, o) && len(a) > len(o):
			return a[len(o):], j, true
		}
	}
	return "", j, false
}

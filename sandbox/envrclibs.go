package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"turnstile/domain"
)

// What a .envrc's libraries add to what it runs.
//
// A library the .envrc sources (source_env lib/direnv.sh) runs its own
// lines in the .envrc's directory when direnv loads it, and defines
// functions the .envrc then calls (load site.sh, with load() { source
// "$1"; } in the library); so does a library such a library sources, and
// the person's direnv libraries, which direnv sources before every .envrc
// ($DIRENV_CONFIG, else ${XDG_CONFIG_HOME:-~/.config}/direnv: lib/*.sh,
// then direnvrc; ~/.direnvrc). The hundred-and-fifty-ninth and
// hundred-and-sixty-first reviews planted a script each of these ran.

// maxEnvrcLibDepth bounds how deep libraries sourcing libraries are
// followed, and maxEnvrcLibBytes what they may hold together.
const (
	maxEnvrcLibDepth = 4
	maxEnvrcLibBytes = 1 << 20
	// maxEnvrcLibTries bounds the names looked up as libraries for one
	// .envrc.
	maxEnvrcLibTries = 4096
)

// envrcLibraries returns the functions that run what they are given,
// defined by the person's direnv libraries and by the libraries the
// .envrc in base (data) sources, transitively, and those libraries'
// contents (each once). cr spells a name of data as bash reads it.
// envrcLib is a library's contents and its own directory (source_env
// runs it from there; what it names is read from there and from the
// .envrc's: the hundred-and-sixty-seventh review).
type envrcLib struct {
	data []byte
	dir  string
}

func (d *discovery) envrcLibraries(base string, data []byte, cr func(string) string) (runners []string, libs []envrcLib) {
	runners = d.direnvRunners()
	seen := map[string]bool{}
	// Each name with the directory of the script that gave it: a
	// library's own names are read from there too (source_env runs it
	// there), as well as from the .envrc's.
	type named struct{ name, from string }
	var queue []named
	for _, n := range sourcedBy(data, runners, cr) {
		queue = append(queue, named{n, base})
	}
	budget, tries := maxEnvrcLibBytes, 0
	for depth := 0; depth < maxEnvrcLibDepth && len(queue) > 0; depth++ {
		var next []named
		for _, q := range queue {
			if tries++; tries > maxEnvrcLibTries {
				// Each name is a file to open; a script naming thousands
				// (behind cds that multiply them: the
				// hundred-and-sixty-eighth review) is not read further,
				// and the commands are refused.
				if d.v.overflow == "" {
					d.v.overflow = fmt.Sprintf("a .envrc in the writable roots, with the libraries it sources, names more than %d scripts: what they define cannot all be read", maxEnvrcLibTries)
				}
				return runners, libs
			}
			var ps []string
			switch rest, ok := strings.CutPrefix(q.name, string(rune(gitTopMark))); {
			case ok:
				// Under the repository's top: read where it is now
				// (launcherRef watches the name at every directory above).
				ps = []string{gitTopOf(base) + "/" + rest}
			case strings.HasPrefix(q.name, "/"):
				ps = []string{q.name}
			default:
				ps = uniq([]string{joinPath(base, q.name), joinPath(q.from, q.name)})
			}
			for _, p := range ps {
				p = domain.CleanPath(p)
				if seen[p] {
					continue
				}
				seen[p] = true
				lib, ok := readLauncherFile(p)
				if !ok {
					continue
				}
				if budget -= len(lib); budget < 0 || !d.spendLauncherBytes(len(lib)) {
					// The view's budget too: every .envrc the walk finds
					// reads its libraries (a thousand of them sourcing 1 MiB
					// each would read 1 GB a view).
					return runners, libs
				}
				libs = append(libs, envrcLib{data: lib, dir: filepath.Dir(p)})
				runners = envrcRunners(string(lib), runners)
				for _, n := range sourcedBy(lib, runners, func(s string) string { return s }) {
					next = append(next, named{n, filepath.Dir(p)})
				}
			}
		}
		queue = next
	}
	return runners, libs
}

// sourcedBy lists what the script data runs or sources by name (bare
// names and paths), as the .envrc readers find them; not a dotenv file
// (.env, .env.local: read for variables, not run).
func sourcedBy(data []byte, runners []string, cr func(string) string) []string {
	var out []string
	add := func(n string) {
		if !strings.Contains(n, "$") && !strings.HasPrefix(filepath.Base(n), ".env") {
			out = append(out, cr(n))
		}
	}
	for _, n := range keepBare(envrcBareRefsWith(data, runners).run) {
		add(n)
	}
	for _, ref := range launcherRefsOf(".envrc", data) {
		add(ref)
	}
	return uniq(out)
}

// direnvRunners are the runners the person's direnv libraries define
// (read once per view).
func (d *discovery) direnvRunners() []string {
	if d.direnvRead {
		return d.direnvRun
	}
	d.direnvRead = true
	home, _ := os.UserHomeDir()
	dir := os.Getenv("DIRENV_CONFIG")
	if dir == "" {
		if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
			dir = filepath.Join(x, "direnv")
		} else if home != "" {
			dir = filepath.Join(home, ".config", "direnv")
		}
	}
	var files []string
	if dir != "" {
		libs, _ := filepath.Glob(filepath.Join(dir, "lib", "*.sh"))
		slices.Sort(libs)
		files = append(libs, filepath.Join(dir, "direnvrc"))
	}
	if home != "" {
		files = append(files, filepath.Join(home, ".direnvrc"))
	}
	budget := maxEnvrcLibBytes
	for _, f := range files {
		data, ok := readLauncherFile(f)
		if !ok {
			continue
		}
		if budget -= len(data); budget < 0 {
			break
		}
		d.direnvRun = envrcRunners(string(data), d.direnvRun)
	}
	return d.direnvRun
}

// gitTopOf is the nearest directory at or above dir holding a .git, as
// git rev-parse --show-toplevel finds it, or dir when there is none.
func gitTopOf(dir string) string {
	for d, n := dir, 0; n < maxGitTopDepth; d, n = filepath.Dir(d), n+1 {
		if _, err := os.Lstat(joinPath(d, ".git")); err == nil {
			return d
		}
		if d == "/" {
			break
		}
	}
	return dir
}

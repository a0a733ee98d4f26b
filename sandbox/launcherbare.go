package sandbox

import (
	"slices"
	"strings"
)

// Bare names a launcher file may give.
//
// launcherRefsOf reads a word as a path where it holds a "/" or names a
// dotfile; a bare name ("bash setup.sh" in .envrc, "-logger:L,L.dll" in
// Directory.Build.rsp, "-Dmaven.repo.local=m2repo") was left writable,
// and the person's next direnv, dotnet build or mvn ran what the agent
// wrote there (the hundred-and-forty-sixth review). Most bare words are no
// paths (a version, a flag's value, a command's name), so a bare name is
// kept read-only only where it exists in the launcher file's directory:
// one that does not exist is not watched (a command that makes a
// directory named "build" is not set aside for it).

// launcherBareRefsOf returns the bare names the launcher file item (with
// data its contents) may name, for the formats that take free words, and
// the patterns a .envrc loop iterates (envrcBareRefs).
func launcherBareRefsOf(item string, data []byte) bareRefs {
	var out []string
	var r bareRefs
	if slices.Contains(miseConfigs, item) {
		// A hook's script, read as .envrc is: a bare name it runs (enter =
		// "sh bootstrap") is watched where it does not exist too (the
		// hundred-and-fifty-eighth review).
		for _, sc := range miseHookScripts(data) {
			envrcWords(sc, 0, &r)
		}
		out = r.names
	}
	switch item {
	case ".envrc":
		r = envrcBareRefs(data)
		out = r.names
	case vscodeTasksItem, codeWorkspaceItem, devcontainerItem, vscodeSettingsItem:
		r = vscodeTasksBare(launchScripts(item, data))
		out = r.names
	case ".npmrc", ".bazelrc", ".bazeliskrc":
		// key=value or "command --options": the first word is no path.
		for line := range lines(data) {
			if t := strings.TrimSpace(line); t == "" || t[0] == '#' || t[0] == ';' {
				continue
			}
			if ws := optionTokens(line, ""); len(ws) > 1 {
				out = append(out, ws[1:]...)
			}
		}
	case ".python-version", "Directory.Build.rsp":
		for line := range lines(data) {
			if t := strings.TrimSpace(line); t == "" || t[0] == '#' {
				continue
			}
			// MSBuild's -distributedLogger joins its two loggers with "*"
			// (-dl:C,central.dll*F,fwd.dll: the hundred-and-forty-ninth
			// review).
			out = append(out, optionTokens(line, "*")...)
		}
	case ".mvn/jvm.config", ".mvn/maven.config", ".jvmopts", ".sbtopts":
		// A -D property whose name says it holds a path.
		for line := range lines(data) {
			for _, f := range strings.Fields(line) {
				f = strings.Trim(strings.TrimPrefix(f, "-J"), `"'`)
				k, v, ok := strings.Cut(strings.TrimPrefix(f, "-D"), "=")
				if ok && strings.HasPrefix(f, "-D") && pathProperty(k) {
					out = append(out, bareTokens(v)...)
				}
			}
		}
	}
	r.names, r.run = keepBare(out), keepBare(r.run)
	return r
}

// keepBare keeps of ws the words that may name a file: not empty, "." or
// "..", no option, no expansion or wildcard, no URL.
func keepBare(ws []string) []string {
	return uniq(slices.DeleteFunc(ws, func(w string) bool {
		return w == "" || w == "." || w == ".." || strings.HasPrefix(w, "-") || strings.ContainsAny(w, "$*?[\x00") || strings.Contains(w, "://")
	}))
}

// bareRefs is what a launcher file names by bare names: names (every free
// word, kept read-only where it exists), run (those in a place where the
// tool runs, sources or puts in PATH what they name: watched where they do
// not exist too, so that a command cannot make one), patterns (a
// .envrc loop's wildcards), modules (a directory an interpreter runs
// as a module: node ., dirmodule.go) and pyModules (python -m's module,
// pymodule.go).
type bareRefs struct {
	names, run, patterns, modules []string
	pyModules                     []pyModuleRef
	pyPaths                       []string // where python runs with the directory first on sys.path (pyshadow.go)
	pyScripts                     []string // a script python runs: its directory (through its links) first on sys.path
}

// pathProperty reports whether a Java property's name says it holds a
// path (maven.repo.local, java.library.path, sbt.global.base).
func pathProperty(k string) bool {
	k = strings.ToLower(k)
	for _, s := range []string{"path", "dir", "home", "repo", "file", "lib", "jar", "class", "boot", "base", "ext", "agent", "root", "local"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// optionTokens is the words of an option file's line as its tool reads
// them (blanks outside quotes separate words; quotes are removed: -logger:
// L,"My Logger.dll" names "My Logger.dll"), each split at "=", ",", ";",
// ":" and the bytes of more, an argument file's "@" taken off.
func optionTokens(line, more string) []string {
	var words []string
	var b strings.Builder
	var q byte
	in := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case q != 0 && c == q:
			q = 0
		case q != 0:
			b.WriteByte(c)
		case c == '"' || c == '\'':
			q, in = c, true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, b.String())
	}
	var out []string
	for _, w := range words {
		if strings.Contains(w, "://") {
			continue
		}
		for _, part := range strings.FieldsFunc(w, func(r rune) bool { return strings.ContainsRune("=,;:"+more, r) }) {
			out = append(out, strings.TrimPrefix(part, "@"))
		}
	}
	return out
}

// bareTokens is the words of s split as pathTokens splits them, each part
// of a ":"-list too, an argument file's "@" taken off.
func bareTokens(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(s, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '=' || r == ',' || r == ';' || r == '"' || r == '\''
	}) {
		if strings.Contains(w, "://") {
			continue
		}
		for _, part := range strings.Split(w, ":") {
			out = append(out, strings.TrimPrefix(part, "@"))
		}
	}
	return out
}

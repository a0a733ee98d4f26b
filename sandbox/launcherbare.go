package sandbox

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
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
// data its contents) may name, for the formats that take free words.
func launcherBareRefsOf(item string, data []byte) []string {
	var out []string
	switch item {
	case ".envrc":
		out = envrcBareRefs(data)
	case ".npmrc", ".bazelrc", ".bazeliskrc":
		// key=value or "command --options": the first word is no path.
		for line := range lines(data) {
			if t := strings.TrimSpace(line); t == "" || t[0] == '#' || t[0] == ';' {
				continue
			}
			if ws := bareTokens(line); len(ws) > 1 {
				out = append(out, ws[1:]...)
			}
		}
	case ".python-version", "Directory.Build.rsp":
		for line := range lines(data) {
			if t := strings.TrimSpace(line); t == "" || t[0] == '#' {
				continue
			}
			out = append(out, bareTokens(line)...)
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
	return uniq(slices.DeleteFunc(out, func(w string) bool {
		return w == "" || w == "." || w == ".." || strings.HasPrefix(w, "-") || strings.ContainsAny(w, "$*?[\x00") || strings.Contains(w, "://")
	}))
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

// envrcBareRefs: every argument of every command in .envrc, as the shell
// reads it (quotes removed, "my env.sh" one word), in command
// substitutions too (eval "$(cat env.sh)"), and the words of a builtin,
// command or exec prefix; the words of each line split on blanks where
// the script does not parse.
func envrcBareRefs(data []byte) []string {
	var out []string
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(string(data)), ".envrc")
	if err != nil {
		for line := range lines(data) {
			for i, w := range strings.Fields(line) {
				if strings.HasPrefix(w, "#") {
					break
				}
				if i > 0 {
					out = append(out, strings.Trim(w, `"'`))
				}
			}
		}
		return out
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok {
			for _, a := range c.Args[min(1, len(c.Args)):] {
				if w, ok := literalWord(a); ok {
					out = append(out, w)
				}
			}
			for _, as := range c.Assigns {
				if as.Value != nil {
					if w, ok := literalWord(as.Value); ok {
						out = append(out, strings.Split(w, ":")...)
					}
				}
			}
		}
		return true
	})
	return out
}

// literalWord returns the word as the shell reads it when it holds no
// expansion (literal text and quotes only).
func literalWord(w *syntax.Word) (string, bool) {
	var b strings.Builder
	var lit func(parts []syntax.WordPart) bool
	lit = func(parts []syntax.WordPart) bool {
		for _, p := range parts {
			switch p := p.(type) {
			case *syntax.Lit:
				b.WriteString(p.Value)
			case *syntax.SglQuoted:
				b.WriteString(p.Value)
			case *syntax.DblQuoted:
				if !lit(p.Parts) {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	if !lit(w.Parts) {
		return "", false
	}
	return path.Clean(b.String()), true
}

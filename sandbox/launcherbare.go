package sandbox

import (
	"path"
	"slices"
	"strconv"
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
// data its contents) may name, for the formats that take free words, and
// the patterns a .envrc loop iterates (envrcBareRefs).
func launcherBareRefsOf(item string, data []byte) (names, patterns []string) {
	var out []string
	switch item {
	case ".envrc":
		out, patterns = envrcBareRefs(data)
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
	return uniq(slices.DeleteFunc(out, func(w string) bool {
		return w == "" || w == "." || w == ".." || strings.HasPrefix(w, "-") || strings.ContainsAny(w, "$*?[\x00") || strings.Contains(w, "://")
	})), patterns
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
func envrcBareRefs(data []byte) (names, patterns []string) {
	envrcWords(string(data), 0, &names, &patterns)
	return names, patterns
}

// envrcShells are the shells whose -c script is read as .envrc is.
var envrcShells = []string{"sh", "bash", "dash", "zsh", "ksh", "mksh", "yash", "ash", "busybox"}

// maxEnvrcDepth bounds the scripts read inside strings (eval "…").
const maxEnvrcDepth = 3

func envrcWords(script string, depth int, names, patterns *[]string) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), ".envrc")
	if err != nil {
		for line := range lines([]byte(script)) {
			for i, w := range strings.Fields(line) {
				if strings.HasPrefix(w, "#") {
					break
				}
				if i > 0 {
					*names = append(*names, strings.Trim(w, `"'`))
				}
			}
		}
		return
	}
	add := func(w *syntax.Word, split, program bool) []string {
		vs := wordValues(w)
		if program {
			return vs // a program's name is looked up in PATH
		}
		for _, v := range vs {
			if split {
				*names = append(*names, strings.Split(v, ":")...)
			} else {
				*names = append(*names, v)
			}
		}
		return vs
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CallExpr:
			var args []string
			for i, a := range x.Args {
				args = append(args, add(a, false, i == 0)...)
			}
			for _, as := range x.Assigns {
				if as.Value != nil {
					add(as.Value, true, false)
				}
			}
			// A string run as a script: eval's words, a shell's -c.
			if depth < maxEnvrcDepth && len(args) > 1 {
				prog := path.Base(args[0])
				switch {
				case prog == "eval":
					envrcWords(strings.Join(args[1:], " "), depth+1, names, patterns)
				case slices.Contains(envrcShells, prog):
					for i, a := range args[1 : len(args)-1] {
						if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "c") {
							envrcWords(args[i+2], depth+1, names, patterns)
							break
						}
					}
				}
			}
		case *syntax.Redirect:
			if x.Word != nil {
				add(x.Word, false, false)
			}
			if x.Hdoc != nil && depth < maxEnvrcDepth {
				if vs := wordValues(x.Hdoc); len(vs) == 1 {
					envrcWords(vs[0], depth+1, names, patterns) // bash <<EOF … EOF
				}
			}
		case *syntax.WordIter:
			for _, w := range x.Items {
				for _, v := range wordValues(w) {
					if strings.ContainsAny(v, "*?[") {
						*patterns = append(*patterns, v)
					} else {
						*names = append(*names, v)
					}
				}
			}
		case *syntax.DeclClause:
			for _, a := range x.Args {
				if a.Value != nil {
					add(a.Value, true, false)
				}
			}
		}
		return true
	})
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

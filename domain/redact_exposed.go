package domain

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// A secret-named variable's value (TOKEN=x, MY_SECRET=x) is hidden, and the
// shell does not read names: a command that assigns a host, a path or a
// program to one and then expands it where a host, a path or a program
// goes (GH_TOKEN=evil.example; curl "https://$GH_TOKEN/",
// API_TOKEN=~/.bashrc; … >> "$API_TOKEN", MY_SECRET=/tmp/x; "$MY_SECRET")
// hid where it sent, wrote or what it ran (the thirty-ninth review). So a
// variable the text expands anywhere but where a credential goes has its
// value shown: exposedVars.

// exposedAll, a key of exposedVars's answer, says every variable is:
// the text reads variables by names it builds or holds (${!N},
// printenv N, declare -n, eval), which no scan of expansions finds (the
// forty-second review).
const exposedAll = "*"

// indirections are commands that read a named variable by a name the
// scan of expansions does not see (printenv NAME, eval, declare -n). A
// command that prints every variable (a bare env, set, printenv) is not
// one: what it prints is its output, as a file's content is, and the
// approver sees a secret passed to it hidden (TestSecretsNeverInClear).
var indirections = []string{"eval", "declare -n", "local -n", "typeset -n"}

// readsIndirectly reports whether s reads variables by names it builds or
// holds: ${!N}, printenv with a name, or one of the indirections as a
// command.
func readsIndirectly(s string) bool {
	if strings.Contains(s, "${!") {
		return true
	}
	for _, w := range indirections {
		if wordAt(s, w, false) {
			return true
		}
	}
	return wordAt(s, "printenv", false) && !wordAt(s, "printenv", true)
}

// exposedVars returns the names of the variables s expands ($NAME,
// ${NAME…}) other than as a credential (credentialAt), or nil; a name
// expanded only as a URL's or curl -u's password is NAME+"@" (its value
// is shown when it holds what moves the host: '@', '/', '?', '#').
func exposedVars(s string) map[string]bool {
	var out map[string]bool
	if readsIndirectly(s) {
		return map[string]bool{exposedAll: true}
	}
	for i := strings.IndexByte(s, '$'); i >= 0 && i+1 < len(s); {
		j := i + 1
		if s[j] == '{' {
			j++
		}
		k := j
		for k < len(s) && (s[k] == '_' || s[k] >= 'A' && s[k] <= 'Z' || s[k] >= 'a' && s[k] <= 'z' || k > j && s[k] >= '0' && s[k] <= '9') {
			k++
		}
		if k > j {
			if out == nil {
				out = map[string]bool{}
			}
			switch cred, userinfo := credentialAt(s, i, k); {
			case !cred:
				out[s[j:k]] = true
			case userinfo:
				out[s[j:k]+"@"] = true
			}
		}
		next := strings.IndexByte(s[i+1:], '$')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return out
}

// authSchemes are the words an Authorization header's credential follows.
var authSchemes = []string{"bearer ", "basic ", "token ", "digest "}

// credentialAt reports whether the expansion at s[i:e] (its '$' at i, its
// name ending at e) is where a credential goes, the one place a secret's
// value is expanded without deciding where a command sends, writes or what
// it runs: after an authorization scheme ("Bearer $T"), a header or an
// option whose name says it holds a secret ("X-Api-Key: $K",
// --password "$P", --token=$T, ?token=$T), or as a password after a user
// name (user:$P@host, curl -u user:$P). A quote just before it is skipped.
func credentialAt(s string, i, e int) (cred, userinfo bool) {
	p := s[:i]
	if n := len(p); n > 0 && (p[n-1] == '"' || p[n-1] == '\'') {
		p = p[:n-1]
	}
	if stdinOfAProgram(s, p, e) {
		return true, false
	}
	l := strings.ToLower(p[max(0, len(p)-8):])
	for _, w := range authSchemes {
		if strings.HasSuffix(l, w) {
			return true, false
		}
	}
	name := func(q string) string { // the name that ends q
		k := len(q)
		for k > 0 && (q[k-1] == '_' || q[k-1] == '-' || q[k-1] >= 'A' && q[k-1] <= 'Z' || q[k-1] >= 'a' && q[k-1] <= 'z' || q[k-1] >= '0' && q[k-1] <= '9') {
			k--
		}
		return q[k:]
	}
	switch {
	case strings.HasSuffix(p, ":") || strings.HasSuffix(p, ": "):
		if n := name(strings.TrimSuffix(strings.TrimSuffix(p, " "), ":")); n != "" && (secretKey(n) || strings.EqualFold(n, "authorization")) {
			return true, false
		}
		// user:$P@host, a URL's or curl -u's password.
		end := e
		if end < len(s) && s[end] == '}' {
			end++
		}
		if strings.HasSuffix(p, ":") && end < len(s) && s[end] == '@' {
			return true, true
		}
		// curl -u name:$P, --user name:$P.
		w := strings.TrimSuffix(p, ":")
		w = strings.TrimSuffix(w, name(w))
		w = strings.TrimRight(w, "'\"")
		u := strings.HasSuffix(w, " -u ") || strings.HasSuffix(w, " --user ")
		return u, u
	case strings.HasSuffix(p, "="):
		n := strings.TrimLeft(name(p[:len(p)-1]), "-")
		return n != "" && secretKey(n) && (strings.HasPrefix(name(p[:len(p)-1]), "-") || queryName(p[:len(p)-1], n)), false
	case strings.HasSuffix(p, " "):
		w := p[:len(p)-1]
		if n := name(w); strings.HasPrefix(n, "-") && len(w) > len(n) && (w[len(w)-len(n)-1] == ' ' || w[len(w)-len(n)-1] == '\t') || n == w && strings.HasPrefix(n, "-") {
			return secretKey(strings.TrimLeft(n, "-")), false
		}
	}
	return false, false
}

// queryName reports whether the name n ending p is a URL query's (after a
// '?' or '&'): ?token=$T.
func queryName(p, n string) bool {
	k := len(p) - len(n)
	return k > 0 && (p[k-1] == '?' || p[k-1] == '&')
}

// wordAt reports whether the word w occurs in s where a word starts and
// ends; bare: with nothing after it but blanks up to the command's end.
func wordAt(s, w string, bare bool) bool {
	for from := 0; ; {
		k := strings.Index(s[from:], w)
		if k < 0 {
			return false
		}
		i, e := from+k, from+k+len(w)
		from = i + 1
		if i > 0 && strings.IndexByte(" \t\n;&|(`", s[i-1]) < 0 {
			continue
		}
		if bare {
			for e < len(s) && (s[e] == ' ' || s[e] == '\t') {
				e++
			}
			if e == len(s) || strings.IndexByte("\n;&|)`", s[e]) >= 0 {
				return true
			}
			continue
		}
		if e == len(s) || strings.IndexByte(" \t\n;&|)`", s[e]) >= 0 {
			return true
		}
	}
}

// exposedValue reports whether the value v of the variable name, hidden
// as a secret, is to be shown: the text expands the variable where it
// decides what the command does (exposedVars).
func exposedValue(exposed map[string]bool, name, v string) bool {
	if exposed == nil || name == "" || strings.TrimLeft(name, "-") != name {
		return false
	}
	return exposed[exposedAll] || exposed[name] || exposed[name+"@"] && strings.ContainsAny(v, "@/?#\\")
}

// prefixCommands run the word after them as a program: an assignment's
// shape there is a program's name (command API_TOKEN=tools/x).
var prefixCommands = []string{"command", "exec", "builtin", "nohup", "nice", "stdbuf", "setsid", "chroot"}

// programWord reports whether the word of s that holds i is the program a
// shell command runs: the first word of a simple command that is not an
// assignment (my-secret=bin/x, "API_TOKEN"=tools/x, --api-key=bin/x,
// X-Token:bin/x), or the word after a command that runs the next word
// (the forty-second review). A redaction never hides it.
func programWord(s string, i int) bool {
	ws := i
	for ws > 0 && strings.IndexByte(" \t\n;&|()<>", s[ws-1]) < 0 {
		ws--
	}
	start, afterPrefix := commandStart(s, ws)
	return afterPrefix || start && !assignmentWord(s[ws:])
}

// assignmentWord reports whether w starts with NAME= (a shell variable's
// name, unquoted).
func assignmentWord(w string) bool {
	k := 0
	for k < len(w) && identByte(w[k]) && !(k == 0 && w[k] >= '0' && w[k] <= '9') {
		k++
	}
	return k > 0 && k < len(w) && w[k] == '='
}

// commandStart reports whether the word of s at ws starts a simple command
// (after its assignments, if any), or follows a command that runs the next
// word (afterPrefix).
func commandStart(s string, ws int) (start, afterPrefix bool) {
	p := strings.TrimRight(s[:ws], " \t")
	if p == "" || strings.IndexByte(";&|(){!\n`", p[len(p)-1]) >= 0 {
		return true, false
	}
	k := len(p)
	for k > 0 && strings.IndexByte(" \t\n;&|()<>", p[k-1]) < 0 {
		k--
	}
	switch prev := p[k:]; {
	case slices.Contains(prefixCommands, prev):
		return false, true
	case prev == "then" || prev == "do" || prev == "else" || prev == "elif" || prev == "time":
		return true, false
	case assignmentWord(prev):
		start, _ := commandStart(s, k)
		return start, false
	}
	return false, false
}

// identByte reports whether c may be in a shell variable's name.
func identByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// pipedEcho matches the text before an expansion that echo or printf
// '%s' writes whole.
var pipedEcho = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[\s;&|(])(?:echo(?:\s+-n)?|printf\s+(?:'%s(?:\\n)?'|"%s(?:\\n)?"))\s*$`)
})

// readersOfStdin are programs that read standard input as code, or as
// words of a command line: a value piped to one decides what runs.
var readersOfStdin = []string{"sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "xargs", "eval", "source", "python", "python3",
	"perl", "ruby", "node", "php", "lua", "awk", "gawk", "sed", "env", "sudo", "su", "ssh", "parallel", "busybox"}

// stdinOfAProgram reports whether the expansion ending at e (p is the
// text before it, its quote removed) is what echo or printf pipes into a
// program that reads it as data (echo "$PW" | docker login
// --password-stdin): a credential position (the forty-fourth review found
// it shown). A program that reads it as code or as words (sh, xargs, an
// interpreter) is none.
func stdinOfAProgram(s, p string, e int) bool {
	if !pipedEcho().MatchString(p) {
		return false
	}
	if e < len(s) && s[e] == '}' {
		e++
	}
	if e < len(s) && (s[e] == '"' || s[e] == '\'') {
		e++
	}
	r := strings.TrimLeft(s[e:], " \t")
	if !strings.HasPrefix(r, "|") || strings.HasPrefix(r, "||") {
		return false
	}
	r = strings.TrimLeft(r[1:], " \t")
	w := r
	if k := strings.IndexAny(r, " \t\n;&|)"); k >= 0 {
		w = r[:k]
	}
	return w != "" && !slices.Contains(readersOfStdin, path.Base(w))
}

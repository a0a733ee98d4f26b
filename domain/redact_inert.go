package domain

import (
	"path"
	"regexp"
	"strings"
	"sync"
)

// An inert hidden value: in a shell command judged plain, a value hidden
// on the card (a secret's "[redacted]") must be one that cannot name a
// file or be code by itself: no '/', no white space, no quote, no shell
// operator or expansion. The plain rule (computesProgram) judges how the
// text uses what it hides, from lists of runners, writers and readers of
// code that reviews kept finding short of (the hundred-and-tenth found
// nineteen ways: `ionice password=tools/x`, a program the agent wrote,
// hidden behind a wrapper not on the lists); a value that is neither a
// path nor code cannot be a program the agent wrote, whatever runs it
// (but a program by that name on the PATH). A command that hides anything
// else is shown whole. Left: a URL's hidden userinfo and query and a
// header's credential keep '/' and '+' (base64), as the audit must not
// show them (REFERENCE §7); a wrapper that ran such a word as a program
// would need directories named like the URL or the header.

// secretMarker matches what the redaction puts for a hidden value and a
// hidden path.
var secretMarker = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\[redacted(?::[0-9a-f]{12})?\]`)
})

// notInert are the bytes an inert hidden value holds none of.
const notInert = "/ \t\r\n\v\f;|&<>()$`'\"\\*?[]{}!#~"

// inertHidden reports whether every secret r hides of s (r is s redacted)
// is inert, or lies in a URL or a header where base64's '/' is common. A
// redaction that cannot be aligned with s is not inert.
func inertHidden(s, r string) bool { return inertHiddenIn(s, r, false) }

// inertHiddenIn is inertHidden where homeSet says the exec's environment
// sets HOME (~ and $HOME are then not the home).
func inertHiddenIn(s, r string, homeSet bool) bool {
	spans, ok := hiddenSpans(s, r)
	if !ok {
		return false
	}
	for _, sp := range spans {
		h := s[sp.a:sp.e]
		if sp.path {
			// A hidden path in the home's credential store names a file
			// there, which no command may write (sensitive paths are
			// denied); one elsewhere (gcloud/x, ./.ssh/x: a directory the
			// agent named so, the hundred-and-fifteenth review) or that
			// leaves it ("..") may name the agent's.
			if !homeStorePath(s[:sp.a], h, homeSet) {
				return false
			}
			continue
		}
		if !strings.ContainsAny(h, notInert) {
			continue
		}
		switch {
		case urlBefore(s[:sp.a]) && !strings.ContainsAny(h, "/ \t\r\n;|&<>()$`'\"\\"),
			assignedURL().MatchString(s[:sp.a]) && !strings.ContainsAny(h, " \t\r\n;|&<>()$`'\"\\"),
			headerCredential(s, sp.a, sp.e):
			continue
		}
		return false
	}
	return true
}

// hiddenSpan is where a hidden part lies in the original text, as widely
// as the redacted text allows (the earliest start and the latest end of
// the alignments forward and backward); path: a path's "[redacted:…]".
type hiddenSpan struct {
	a, e int
	path bool
}

// hiddenSpans aligns r (s with parts replaced by markers) with s.
func hiddenSpans(s, r string) ([]hiddenSpan, bool) {
	marks := secretMarker().FindAllStringIndex(r, -1)
	if len(marks) == 0 {
		return nil, r == s
	}
	lits := make([]string, len(marks)+1) // the literal pieces around the markers
	prev := 0
	for i, m := range marks {
		lits[i] = r[prev:m[0]]
		prev = m[1]
	}
	lits[len(marks)] = r[prev:]
	n := len(marks)
	if !strings.HasPrefix(s, lits[0]) || !strings.HasSuffix(s, lits[n]) || len(lits[0])+len(lits[n]) > len(s) {
		return nil, false
	}
	fwd := make([][2]int, n)
	p := len(lits[0])
	for i := 1; i <= n; i++ {
		var k int
		if i == n {
			k = len(s) - len(lits[n])
			if k < p {
				return nil, false
			}
		} else {
			j := strings.Index(s[p:], lits[i])
			if j < 0 || lits[i] == "" {
				return nil, false // two markers together: not told apart
			}
			k = p + j
		}
		fwd[i-1] = [2]int{p, k}
		p = k + len(lits[i])
	}
	bwd := make([][2]int, n)
	q := len(s) - len(lits[n])
	for i := n - 1; i >= 0; i-- {
		var k int
		if i == 0 {
			k = len(lits[0])
			if k > q {
				return nil, false
			}
		} else {
			j := strings.LastIndex(s[:q], lits[i])
			if j < 0 {
				return nil, false
			}
			k = j + len(lits[i])
		}
		bwd[i] = [2]int{k, q}
		q = k - len(lits[i])
	}
	out := make([]hiddenSpan, n)
	for i := range n {
		a, e := min(fwd[i][0], bwd[i][0]), max(fwd[i][1], bwd[i][1])
		out[i] = hiddenSpan{a: a, e: e, path: r[marks[i][0]:marks[i][1]] != redacted}
	}
	return out, true
}

// assignedURL matches a URL assigned before a command (WEBHOOK_URL=https://
// h/T0/[…] node x.js; export X=…): the shell runs no part of an
// assignment's value, so its hidden path keeps its '/'.
var assignedURL = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|^Run )[ \t]*(?:export[ \t]+)?(?:[A-Za-z_][A-Za-z0-9_]*=[^\s'"]*[ \t]+)*[A-Za-z_][A-Za-z0-9_]*=[A-Za-z][A-Za-z0-9+.-]*://[^\s'"]*$`)
})

// homeStorePath reports whether the hidden path h, after pre, lies in a
// credential store of the home: the shell word it ends (from the last
// unquoted blank) begins with the home as the shell reads it (~ unquoted,
// $HOME, /root, /home/u: a:~/.ssh/x and "~"/.ssh/x are relative, the
// hundred-and-seventeenth review), and no environment the exec is given
// sets HOME (homeSet).
func homeStorePath(pre, h string, homeSet bool) bool {
	start := 0
	for i, q := 0, byte(0); i < len(pre); i++ {
		switch c := pre[i]; {
		case q != 0:
			if c == q {
				q = 0
			} else if c == '\\' && q == '"' {
				i++
			}
		case c == '\\':
			i++
		case c == '\'' || c == '"':
			q = c
		case c == ' ' || c == '\t' || c == '\n':
			start = i + 1
		}
	}
	w := pre[start:]
	m := homeLead().FindString(w)
	if m == "" || homeSet && !strings.Contains(m, "/root/") && !strings.Contains(m, "/home/") {
		return false
	}
	rest := w[len(m):]
	if strings.ContainsAny(rest, "\"'\\$") {
		return false
	}
	return inHomeStore(path.Clean(strings.Trim(m, "\"'") + rest + h))
}

var homeLead = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:~/|"?\$HOME/|"?\$\{HOME\}/|["']?/root/|["']?/home/[^/"'\s]+/)`)
})

// inHomeStore reports whether the clean path p lies in a credential store
// of the home directory: its first sensitive element (sensitiveSegment)
// directly in the home, or in its .config.
func inHomeStore(p string) bool {
	i := firstSensitive(p, 0)
	return i >= 0 && homeRoot().MatchString(p[:i])
}

// homeRoot matches a home directory (and its .config) before a store.
var homeRoot = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:~|\$HOME|\$\{HOME\}|/root|/home/[^/]+)/(?:\.config/)?$`)
})

// urlBefore reports whether the word that ends at the end of pre is a
// URL's ("https://u:[…]@h", "?key=[…]", "NAME=https://…").
func urlBefore(pre string) bool {
	w := pre
	if i := strings.LastIndexAny(w, " \t\n'\""); i >= 0 {
		w = w[i+1:]
	}
	return urlWord().MatchString(w)
}

var urlWord = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|=)[A-Za-z][A-Za-z0-9+.-]*://[^\s]*$`)
})

// headerCredential reports whether s[a:e] is the credential of a header
// quoted whole: a quote opens, the header's name and colon follow, then
// the hidden part (its scheme and its value: "Basic dXNl/cjpw"), and the
// quote closes. A header's shape outside one quoted word (env
// X=”Authorization: tools/x, where tools/x is env's program: the
// hundred-and-fifteenth review) is no header.
func headerCredential(s string, a, e int) bool {
	q := openQuote(s[:a])
	if q < 0 || e >= len(s) || s[e] != s[q] {
		return false
	}
	// Given to a header option (curl -H, --header=, an argv's "-H",), or
	// the whole of an environment value (quoted by its caller): a word of
	// a header's shape elsewhere may be a path the agent made ('X: Bearer
	// tools/x' run by a wrapper).
	if q != 0 && (!headerOption().MatchString(s[:q]) || !httpClient().MatchString(s)) {
		return false // a header option given to an HTTP client (choom -- --header='…' runs that word)
	}
	if q == 0 && strings.Contains(s[a:e], "/") {
		return false // an environment value may be a program (RUSTC="Authorization: Bearer tools/x": the hundred-and-seventeenth review)
	}
	return headerLead().MatchString(s[q+1:a]) && headerValue().MatchString(s[a:e])
}

var httpClient = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:Run )?(?:\[")?(?:[^\s"]*/)?(?:curl|wget|wget2|http|https|xh|xhs|grpcurl|httpie|hurl)["\s]`)
})

var headerOption = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[\s,"'])(?:-H|--header|--headers?)(?:[ \t]+|=|",[ \t]*)$`)
})

// openQuote returns where the quote open at the end of pre began (a
// shell's or a JSON string's), or -1.
func openQuote(pre string) int {
	open := -1
	for i := 0; i < len(pre); i++ {
		c := pre[i]
		switch {
		case open >= 0 && pre[open] == '\'':
			if c == '\'' {
				open = -1
			}
		case c == '\\':
			i++ // escaped (outside quotes and in double quotes)
		case open >= 0:
			if c == '"' {
				open = -1
			}
		case c == '\'' || c == '"':
			open = i
		}
	}
	return open
}

var headerLead = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9-]*:[ \t]*(?:[A-Za-z]+[ \t]+)?$`)
})

var headerValue = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:[A-Za-z]+ )?[A-Za-z0-9+/=._~:-]+$`)
})

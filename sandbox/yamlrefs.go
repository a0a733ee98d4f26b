package sandbox

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// A reader of the YAML a .yarnrc.yml is, as far as yarnPath and the
// plugins' paths need: block and flow mappings and sequences, plain,
// quoted (with escapes) and block scalars, comments. Not a YAML library:
// go.yaml.in/yaml/v4's initialisation alone took a millisecond of every
// sandboxed command's start (the helper links this package).

// yamlToken is a scalar or one of the structural characters of a YAML
// document ('{', '}', '[', ']', ',', ':', '-').
type yamlToken struct {
	text   string
	punct  byte // the structural character, 0 for a scalar
	indent int  // the indentation of the line the token starts on
	flow   int  // the depth of flow collections it lies in
}

// yamlTokens splits data into tokens.
func yamlTokens(data string) []yamlToken {
	data = strings.TrimPrefix(data, "\ufeff")
	// A lone CR ends a line too (js-yaml, yarn 1's parser).
	data = strings.ReplaceAll(strings.ReplaceAll(data, "\r\n", "\n"), "\r", "\n")
	var out []yamlToken
	flow := 0
	lines := strings.Split(data, "\n")
	// Anchors (&name) name the scalar after them; an alias (*name) is it.
	anchors, anchor := map[string]string{}, ""
	emit := func(t yamlToken) {
		if t.punct == 0 {
			if name, ok := strings.CutPrefix(t.text, "*"); ok {
				if v, ok := anchors[name]; ok {
					t.text = v
				}
			}
			if anchor != "" {
				anchors[anchor], anchor = t.text, ""
			}
		}
		out = append(out, t)
	}
	for li := 0; li < len(lines); li++ {
		line := lines[li]
		indent := len(line) - len(strings.TrimLeft(line, " \t"))
		i := indent
		afterQuoted := false // the last token was a quoted scalar ending at i
		for i < len(line) {
			c := line[i]
			quoted := afterQuoted
			afterQuoted = false
			switch {
			case c == ' ' || c == '\t':
				i++
			case quoted && c == ':':
				// "key":value, as in JSON (valid YAML, which yarn reads).
				emit(yamlToken{punct: c, indent: indent, flow: flow})
				i++
			case i == indent && (strings.HasPrefix(line[i:], "---") || strings.HasPrefix(line[i:], "...")) && (len(line) == i+3 || line[i+3] == ' ' || line[i+3] == '\t'):
				i += 3 // a document's start or end
			case c == '!' || c == '&':
				// A tag or an anchor: a property of the node after it.
				j := i
				for j < len(line) && line[j] != ' ' && line[j] != '\t' && (flow == 0 || strings.IndexByte(",]}", line[j]) < 0) {
					j++
				}
				if c == '&' {
					anchor = line[i+1 : j]
				}
				i = j
			case c == '?' && (i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t'):
				i++ // an explicit key: the key follows, its ':' after it
			case c == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
				i = len(line)
			case c == '{' || c == '[':
				emit(yamlToken{punct: c, indent: indent, flow: flow})
				flow++
				i++
			case c == '}' || c == ']':
				flow = max(flow-1, 0)
				emit(yamlToken{punct: c, indent: indent, flow: flow})
				i++
			case c == ',' && flow > 0:
				emit(yamlToken{punct: c, indent: indent, flow: flow})
				i++
			case (c == ':' || c == '-') && (i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t' || flow > 0 && c == ':' && strings.IndexByte(",]}", line[i+1]) >= 0):
				emit(yamlToken{punct: c, indent: indent, flow: flow})
				i++
			case c == '"' || c == '\'':
				// A quoted scalar may go on over lines.
				rest := line[i:]
				if li+1 < len(lines) {
					rest += "\n" + strings.Join(lines[li+1:], "\n")
				}
				text, n := yamlQuoted(rest)
				emit(yamlToken{text: text, indent: indent, flow: flow})
				if nl := strings.Count(rest[:n], "\n"); nl > 0 {
					li += nl
					line = lines[li]
					i = n - (strings.LastIndexByte(rest[:n], '\n') + 1)
				} else {
					i += n
				}
				afterQuoted = true
			case (c == '|' || c == '>') && flow == 0:
				// A block scalar: the lines indented more than this
				// one's, folded into one.
				var parts []string
				for li+1 < len(lines) {
					next := strings.TrimSuffix(lines[li+1], "\r")
					if t := strings.TrimSpace(next); t != "" && len(next)-len(strings.TrimLeft(next, " \t")) <= indent {
						break
					}
					li++
					if t := strings.TrimSpace(next); t != "" {
						parts = append(parts, t)
					}
				}
				emit(yamlToken{text: strings.Join(parts, " "), indent: indent, flow: flow})
				i = len(line)
			default:
				j := i
				for j < len(line) {
					d := line[j]
					if d == ':' && j > i && (j+1 == len(line) || line[j+1] == ' ' || line[j+1] == '\t') || d == '#' && (line[j-1] == ' ' || line[j-1] == '\t') {
						break
					}
					if flow > 0 && strings.IndexByte(",]}", d) >= 0 || flow > 0 && d == ':' && j+1 < len(line) && strings.IndexByte(",]}", line[j+1]) >= 0 {
						break
					}
					j++
				}
				emit(yamlToken{text: strings.TrimSpace(line[i:j]), indent: indent, flow: flow})
				i = j
			}
		}
	}
	return out
}

// yamlHexEscapes are the hex digits each escape letter takes, and
// yamlEscapes what the others stand for.
var (
	yamlHexEscapes = map[byte]int{'x': 2, 'u': 4, 'U': 8}
	yamlEscapes    = map[byte]string{'n': "\n", 't': "\t", '0': "\x00", '"': "\"", '\\': "\\", '/': "/", ' ': " "}
)

// yamlQuoted reads the quoted scalar s begins with and returns its value
// and its length in s (to the end of s when unterminated).
func yamlQuoted(s string) (string, int) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == q && q == '\'' && i+1 < len(s) && s[i+1] == '\'':
			b.WriteByte('\'')
			i++
		case c == q:
			return b.String(), i + 1
		case c == '\\' && q == '"' && i+1 < len(s) && s[i+1] == '\n':
			// An escaped line break: the next line's leading blanks go too.
			i++
			for i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == '\t') {
				i++
			}
		case c == '\n':
			// A line break in a quoted scalar folds to a space, with the
			// blanks around it.
			b.WriteByte(' ')
			for i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == '\t') {
				i++
			}
		case c == '\\' && q == '"' && i+1 < len(s):
			i++
			n := yamlHexEscapes[s[i]]
			if n > 0 && i+n < len(s) {
				if r, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32); err == nil {
					b.WriteString(string(rune(r)))
					i += n
					continue
				}
			}
			if e, ok := yamlEscapes[s[i]]; ok {
				b.WriteString(e)
			}
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			b.WriteRune(r)
			i += size - 1
		}
	}
	return b.String(), len(s)
}

// yarnrcYMLRefs: yarnPath (the release node runs for every yarn command)
// and each plugin's path (loaded by every yarn command): the value of a
// yarnPath key, of a path key anywhere, and the plain items of the plugins
// sequence (a plugin given by its path alone).
func yarnrcYMLRefs(data []byte) []string {
	toks := yamlTokens(string(data))
	var out []string
	// value returns the scalar after the key at k (its ':' at k+1).
	value := func(k int) (string, bool) {
		if k+2 < len(toks) && toks[k+1].punct == ':' && toks[k+2].punct == 0 {
			return toks[k+2].text, true
		}
		return "", false
	}
	isKey := func(k int) bool { return toks[k].punct == 0 && k+1 < len(toks) && toks[k+1].punct == ':' }
	plugins := 0
	for k := range toks {
		if !isKey(k) {
			continue
		}
		switch toks[k].text {
		case "yarnPath", "path":
			if v, ok := value(k); ok {
				out = append(out, v)
			}
		case "plugins":
			// The items until the next key at its level or above (the
			// first few plugins keys: a chain of nested ones would
			// make the scans quadratic).
			if plugins++; plugins > 8 {
				continue
			}
			lvl := toks[k]
			for j := k + 2; j < len(toks); j++ {
				t := toks[j]
				if isKey(j) && (t.flow < lvl.flow || t.flow == lvl.flow && (t.flow > 0 || t.indent <= lvl.indent)) {
					break
				}
				if t.punct == 0 && !isKey(j) && (j == 0 || toks[j-1].punct != ':') {
					out = append(out, t.text) // an item, not a key's value
				}
			}
		}
	}
	return uniq(out)
}

package domain

import (
	"encoding/base64"
	"hash/maphash"
	"slices"
	"strings"
)

// keyBlockWord marks the first line of a private key in PEM or armoured
// form: "-----BEGIN RSA PRIVATE KEY-----", "-----BEGIN OPENSSH PRIVATE
// KEY-----", "-----BEGIN PGP PRIVATE KEY BLOCK-----", ….
const keyBlockWord = "PRIVATE KEY"

// minKeyRun is the shortest run of base64 bytes a key block's body has
// hidden. Such a block's lines are 64 (PEM) or 70 (OpenSSH, PGP) bytes;
// its last line is shorter.
const minKeyRun = 16

// redactKeyBlocks hides the body of every private key block in s: the one
// secret that spans lines, which the patterns of each line (redactLine)
// never see whole (a line of base64 holds no needle of theirs). After a
// "-----BEGIN … PRIVATE KEY…-----" marker, the block is read a line at a
// time (a line ends at a line break or at a "\n" escape, as in a JSON
// string holding a key) and a word at a time (a key kept on one line has
// blanks between its lines): a word of base64 bytes alone (letters,
// digits, '+', '/', '=') of minKeyRun or more is replaced with the marker,
// unless it reads as a path (pathRun); blank lines and headers
// ("Proc-Type: …", "Version: …") are kept. The block ends at its "-----END "
// marker, and at the first word that is not base64 (after hiding the
// base64 it starts with: a key's last line before the quote that ends
// it). So what a command runs stays in view, as replaceClipped keeps it,
// even when the block is never closed, or its END marker comes after
// commands of the agent's own: only the words a key is made of are
// hidden.
//
// Three other private keys are blocks of base64 lines after a line that
// names them, and their bodies are read the same way: a PuTTY key file's
// after its "Private-Lines: N" header, and a minisign or signify secret
// key after its "untrusted comment: … secret key" line.
func redactKeyBlocks(s string) string {
	if !strings.Contains(s, keyBlockWord) && !strings.Contains(s, puttyPrivateLines) && !strings.Contains(s, untrustedComment) {
		return s
	}
	var b strings.Builder
	last := 0 // s[:last] is in b
	keyMaterial(s, func(a, e int) {
		b.WriteString(s[last:a])
		b.WriteString(redacted)
		last = e
	})
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// keyMaterial calls hide with each span of s that redactKeyBlocks hides,
// in order.
func keyMaterial(s string, hide func(a, e int)) {
	delims := heredocDelimiters(s)
	if delims.expanded {
		return // where a document ends is not known: nothing is hidden
	}
	var openers keyOpeners
	for from := 0; from < len(s); {
		k, i, ok := openers.next(s, from)
		if k < 0 {
			break
		}
		from = i
		if !ok {
			continue
		}
		if delims.endsRead(realLine(s, strings.LastIndexByte(s[:k], '\n')+1)) {
			continue // the marker's line ends a here-document: what follows runs
		}
		i = keyBody(s, i, delims, hide)
		from = i
	}
}

// keyBody reads the body of a key block from i (redactKeyBlocks), calling
// hide for each span of key material, and returns where the block ends.
// A line of base64 words alone (up to an END marker) is key material: each
// word of minKeyRun or more is hidden, unless it reads as a path. Any other
// line ends the block, and of it only what its first word starts with is
// hidden, when that is a long run of base64 the word goes on past (a key's
// last line and the quote that closes the string it is in): a word that is
// base64 whole there may be a program, and stays in view.
func keyBody(s string, i int, delims heredocEnds, hide func(a, e int)) int {
	first := true
	for i < len(s) {
		end, next := keyLineEnd(s, i)
		line := strings.Trim(s[i:end], " \t\r")
		if delims.endsAt(s, i) {
			return i // a here-document ends here: what follows runs
		}
		if line == "" || keyHeader(line) {
			i = next
			continue
		}
		type word struct{ a, e int }
		var words []word
		closed, keyLine := -1, true
		for w := i; w < end; {
			for w < end && (s[w] == ' ' || s[w] == '\t' || s[w] == '\r') {
				w++
			}
			if w == end {
				break
			}
			if strings.HasPrefix(s[w:], "-----END ") {
				closed = w
				break
			}
			e := w
			for e < end && base64Byte(s[e]) {
				e++
			}
			if assignmentShape(s[w:e]) {
				return end // no key holds it; a shell runs it (the thirty-ninth review)
			}
			words = append(words, word{w, e})
			if e < end && s[e] != ' ' && s[e] != '\t' && s[e] != '\r' && !strings.HasPrefix(s[e:], "-----END ") {
				keyLine = false
				break
			}
			w = e
		}
		if !keyLine {
			// A delimiter that ends the line's word (D' or D" closing a
			// script a nested shell runs: its document ends there) stays
			// in view.
			if f := words[0]; len(words) == 1 && f.e-f.a >= minKeyRun && !pathRun(s[f.a:f.e]) && !delims.words[s[f.a:f.e]] {
				hide(f.a, f.e)
			}
			return end
		}
		if first && len(words) > 0 && words[0].e-words[0].a < minFirstKeyRun {
			return i // a key's first line is a full one: this is no key
		}
		first = false
		for _, w := range words {
			if w.e-w.a >= minKeyRun && !pathRun(s[w.a:w.e]) {
				hide(w.a, w.e)
			}
		}
		if closed >= 0 {
			return closed
		}
		i = next
	}
	return i
}

// keyLineEnd returns where the line of a key block that starts at i ends,
// and where the next one starts: at a line break, or at a "\n" (or
// "\r\n") escape, escaped any number of times ("\\n" in a JSON string
// within another, or in a shell's double quotes around a JSON text).
func keyLineEnd(s string, i int) (end, next int) {
	for j := i; j < len(s); j++ {
		switch {
		case s[j] == '\n':
			return j, j + 1
		case s[j] == '\\':
			k := escapedByte(s, j)
			if k < len(s) && s[k] == 'n' {
				return j, k + 1
			}
			if k < len(s) && s[k] == 'r' && k+1 < len(s) && s[k+1] == '\\' {
				if n := escapedByte(s, k+1); n < len(s) && s[n] == 'n' {
					return j, n + 1
				}
			}
			j = k - 1
		}
	}
	return len(s), len(s)
}

// escapedByte returns where the run of backslashes at s[j:] ends: the
// byte they escape.
func escapedByte(s string, j int) int {
	for j < len(s) && s[j] == '\\' {
		j++
	}
	return j
}

// realLine returns the line of s that starts at i, up to its line break
// (not a "\n" escape: the shell's line, which a here-document's delimiter
// is), trimmed of blanks and carriage returns.
func realLine(s string, i int) string {
	end := strings.IndexByte(s[i:], '\n')
	if end < 0 {
		end = len(s) - i
	}
	return strings.Trim(s[i:i+end], " \t\r")
}

// keyHeader reports whether a line of a key block is a header of its
// armour: a name of letters, digits and '-', a ':' and a blank or nothing.
func keyHeader(line string) bool {
	name, rest, ok := strings.Cut(line, ":")
	if !ok || name == "" || rest != "" && rest[0] != ' ' {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

const keyBegin = "-----BEGIN "

// puttyPrivateLines heads the private half of a PuTTY key file
// ("Private-Lines: 14" and the key's base64 lines), and untrustedComment
// the first line of a minisign or signify key, a secret one when it says
// "secret key" (the second line is the key).
const (
	puttyPrivateLines = "Private-Lines: "
	untrustedComment  = "untrusted comment: "
	secretKeyWords    = "secret key"
)

// keyOpeners finds the markers that open key blocks (next).
type keyOpeners struct {
	started    bool
	found      [3]int // where each marker is, at or after the last from; -1: none
	noSecretTo int    // untrusted comments before it name no secret key
}

// next finds the first marker at or after from that opens a key
// block: a BEGIN marker, a PuTTY file's "Private-Lines: N", a minisign or
// signify "untrusted comment: " line. It returns where the marker starts
// (-1: none), where reading goes on, and whether it opens a private key's
// body there: after a BEGIN marker naming a private key, after the
// digits of Private-Lines, and after the first "secret key" of an
// untrusted comment's line (read up to a line break or a backslash).
//
// It is called with from never smaller than the last call's, and keeps
// where each marker was found and where an untrusted comment's line was
// found to hold no "secret key", so that a text of many markers costs one
// pass over it, not one per marker.
func (o *keyOpeners) next(s string, from int) (at, next int, ok bool) {
	if !o.started {
		o.started = true
		o.found = [3]int{-2, -2, -2}
	}
	at = -1
	kind := 0
	for n, m := range []string{keyBegin, puttyPrivateLines, untrustedComment} {
		if o.found[n] != -1 && o.found[n] < from {
			o.found[n] = -1
			k := strings.Index(s[from:], m)
			keyScanned(k, len(s)-from)
			if k >= 0 {
				o.found[n] = from + k
			}
		}
		if k := o.found[n]; k >= 0 && (at < 0 || k < at) {
			at, kind = k, n
		}
	}
	if at < 0 {
		return -1, len(s), false
	}
	switch kind {
	case 0:
		i := at + len(keyBegin)
		j, ok := privateKeyLabel(s, i)
		if !ok {
			return at, i, false
		}
		return at, j, true
	case 1:
		i := at + len(puttyPrivateLines)
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		return at, j, j > i
	default:
		i := at + len(untrustedComment)
		if at < o.noSecretTo {
			return at, i, false // its line's rest holds none, as one before it found
		}
		e := i
		for e < len(s) && s[e] != '\n' && s[e] != '\\' {
			e++
		}
		keyScanned(e-i, e-i)
		k := strings.Index(s[i:e], secretKeyWords)
		if k < 0 {
			o.noSecretTo = e
			return at, i, false
		}
		return at, i + k + len(secretKeyWords), true
	}
}

// minFirstKeyRun is the shortest first word of a key block's body: a key's
// first line is a full one (64 bytes in PEM, 70 in OpenSSH and PGP), and
// a shorter word there (bin/uploadAll…, a program after an echo of a
// marker) is no key.
const minFirstKeyRun = 40

// heredocDelimiters returns the delimiters of the here-documents s opens
// (<<WORD, <<-WORD; a here-string's word counts too, which only ends a
// block sooner): a line that is one ends a key block, since what follows
// it is a command, not the document. The delimiter is the shell word after
// the operator with its quotes removed, as the shell removes them
// (heredocWord): <<\EOF, <<'E'"OF", <<EOF.k and <<'A\nB' end at the lines
// EOF, EOF, EOF.k and A\nB, and a delimiter read as its leading letters
// alone was never found, so that a key's line of that shape hid where the
// document ended and the commands after it began.
func heredocDelimiters(s string) heredocEnds {
	var out heredocEnds
	add := func(w string) {
		if w = strings.Trim(w, " \t\r"); w != "" {
			if out.words == nil {
				out.words = map[string]bool{}
			}
			if !out.words[w] && !slices.Contains(out.lens, len(w)) {
				out.lens = append(out.lens, len(w))
			}
			out.words[w] = true
		}
	}
	shellReadings(s, func(t string) bool {
		for from := 0; ; {
			k := strings.Index(t[from:], "<<")
			if k < 0 {
				break
			}
			j := from + k + 2
			// A here-string's (<<<) word, read as a delimiter, only ends
			// a block sooner; its expansions are no delimiter's.
			herestring := j < len(t) && t[j] == '<' || from+k > 0 && t[from+k-1] == '<'
			from = from + k + 1
			if j < len(t) && t[j] == '-' {
				j++
			}
			for j < len(t) && (t[j] == ' ' || t[j] == '\t') {
				j++
			}
			bash, dash := heredocWord(t[j:])
			add(bash)
			add(dash)
			if j < len(t) && t[j] == '~' {
				// Perl's and Ruby's <<~EOF (indented) ends at EOF.
				b, d := heredocWord(t[j+1:])
				add(b)
				add(d)
			}
			if !herestring && strings.ContainsAny(bash, "$`%") {
				out.expanded = true
			}
		}
		return false
	})
	return out
}

// maxShellLayers is how many shells deep shellReadings reads a text in
// every order of its two readings, and maxShellChain how many deep it
// reads it in one of them.
const (
	maxShellLayers = 4
	maxShellChain  = 20
)

// shellReadings calls f with s and each text the shells nested in it
// read, until f returns true (and then returns true):
// a script in double quotes (bash -c "…", eval "…") or within ` ` is read
// with a backslash before $ ` " \ or a line break removed (dquoted), one
// in bash's $'…' with its escapes made the bytes they stand for
// (ansiCText), and a script nested in such a script is read so again. So
// in bash -c "cat <<\\D …", x=`cat <<\\D …` and bash -c $'cat <<\x44 …'
// the document ends at the line D, not \D or x44. Each reading is of the
// whole text (a delimiter too many only ends a key block sooner), and
// only a text that holds a backslash is read again: in every order up to
// maxShellLayers deep, and deeper (a shell in double quotes in one in
// double quotes …, each layer doubling the backslashes) in one reading
// repeated, with the other's reading of each, up to maxShellChain deep
// (a double-quote reading halves a run of backslashes, so 17 of them
// read any text of the argument cap; $'…' escapes can be written to take
// a reading each, and the bound keeps their cost linear).
func shellReadings(s string, f func(string) bool) bool {
	if f(s) {
		return true
	}
	if strings.IndexByte(s, '\\') < 0 && strings.IndexByte(s, '\'') < 0 && strings.IndexByte(s, '"') < 0 {
		return false
	}
	// seen is the readings met, by hash, with the fewest layers each was
	// met at: one met again at fewer is read deeper from there. Only a
	// path of readings is held at a time.
	seed := maphash.MakeSeed()
	seen := map[uint64]int{maphash.String(seed, s): 0}
	visit := func(t string, layer int) (stop, deeper bool) {
		h := maphash.String(seed, t)
		was, ok := seen[h]
		if ok && was <= layer {
			return false, false
		}
		seen[h] = layer
		return !ok && f(t), true
	}
	var walk func(t string, layer int) bool
	walk = func(t string, layer int) bool {
		if layer == maxShellLayers || strings.IndexByte(t, '\\') < 0 {
			return false
		}
		for _, read := range []func(string) string{dquoted, ansiCText} {
			u := read(t)
			stop, deeper := visit(u, layer+1)
			if stop || deeper && walk(u, layer+1) {
				return true
			}
		}
		return false
	}
	if walk(s, 0) {
		return true
	}
	// printf %b and echo -e (a script piped to a shell) read "\0NNN" as
	// the byte NNN: a reading of the text itself, then read on as above.
	if u := echoText(s); u != s {
		if stop, deeper := visit(u, 1); stop || deeper && walk(u, 1) {
			return true
		}
	}
	// A script written as an unquoted word or pieces of quotes (bash -c
	// cat\ \<\<D…, bash -c 'cat <''<D…'): its quotes and the backslashes
	// that escape a byte removed, read on as above.
	unq := unquoted(s)
	if unq != s {
		if stop, deeper := visit(unq, 1); stop || deeper && walk(unq, 1) {
			return true
		}
	}
	for t, n := unq, 1; t != s && n < maxShellChain; n++ {
		u := unquoted(t)
		if u == t {
			break
		}
		t = u
		if stop, _ := visit(t, maxShellLayers); stop {
			return true
		}
		if strings.IndexByte(t, '\\') >= 0 {
			if stop, _ := visit(ansiCText(t), maxShellLayers); stop {
				return true
			}
		}
	}
	for _, c := range [][2]func(string) string{{dquoted, ansiCText}, {ansiCText, dquoted}} {
		t := s
		for n := 0; n < maxShellChain && strings.IndexByte(t, '\\') >= 0; n++ {
			u := c[0](t)
			if u == t {
				break
			}
			t = u
			if stop, _ := visit(t, maxShellLayers); stop {
				return true
			}
			if strings.IndexByte(t, '\\') >= 0 {
				if stop, _ := visit(c[1](t), maxShellLayers); stop {
					return true
				}
			}
		}
	}
	return false
}

// dquoted is s as a shell reads it within double quotes or ` `: a
// backslash before $, `, ", \ or a line break is removed (with the line
// break).
func dquoted(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			if i++; s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unquoted is s as bash reads the pieces of a word (shellWord), through
// blanks, line breaks and operators: a script written as an unquoted word
// or in pieces of quotes.
func unquoted(s string) string { return shellRead(s, true, false) }

// echoText is s as printf's %b and echo -e read it: "\0" and up to three
// octal digits is the byte they stand for, the other escapes as in $'…'.
func echoText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case s[i] != '\\' || i+1 == len(s):
			b.WriteByte(s[i])
			i++
		case s[i+1] == '0':
			v, j := 0, i+2
			for ; j < len(s) && j < i+5 && s[j] >= '0' && s[j] <= '7'; j++ {
				v = v*8 + int(s[j]-'0')
			}
			b.WriteByte(byte(v))
			i = j
		default:
			i = ansiCEscape(&b, s, i, false)
		}
	}
	return b.String()
}

// ansiCText is s with bash's $'…' escapes made the bytes they stand for
// throughout (ansiCEscape).
func ansiCText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			i++
			continue
		}
		i = ansiCEscape(&b, s, i, false)
	}
	return b.String()
}

// heredocEnds is the delimiters of a text's here-documents
// (heredocDelimiters), and their lengths; expanded is set when one holds
// a '$' or '`' as bash reads it (an expansion a script in double quotes
// has made before its shell reads it), or a '%' (a conversion of the
// printf that writes the script: printf 'cat <<%s…' D | bash).
type heredocEnds struct {
	words    map[string]bool
	lens     []int
	expanded bool
}

// ends reports whether a line (trimmed of blanks) ends a here-document:
// it is a delimiter, or one followed by ')' or '`', as bash and dash end
// a document within $( ) or ` ` at such a line and read what follows the
// delimiter as commands.
func (h heredocEnds) ends(line string) bool {
	if h.words[line] {
		return true
	}
	for _, n := range h.lens {
		if n < len(line) && (line[n] == ')' || line[n] == '`') && h.words[line[:n]] {
			return true
		}
	}
	return false
}

// endsAt reports whether the line of s that starts at i (after a line
// break or a "\n" escape) may end a here-document: the line up to its
// next break of either kind, or the shell's line up to its line break, is
// a delimiter as written or as a nested shell reads it (shellReadings: a
// line of a script in $'…' written \x4DzE…); or the line ends with a
// backslash, which bash removes with the line break after it before it
// compares a document's line with the delimiter, so that the line it
// joins the next to may be one (a key's line never ends with one: such a
// line ends a key block, whatever the lines after it are, at the cost of
// one line).
func (h heredocEnds) endsAt(s string, i int) bool {
	if len(h.words) == 0 {
		return false
	}
	end, next := keyLineEnd(s, i)
	if h.endsRead(strings.Trim(s[i:end], " \t\r")) || s[i-1] == '\n' && h.endsRead(realLine(s, i)) {
		return true
	}
	// A backslash before the line break, or, within a nested shell's
	// script, an escape of one before a "\n" escape ("\\\n" in $'…').
	return strings.HasSuffix(strings.TrimRight(s[i:end], " \t\r"), `\`) || strings.HasPrefix(s[end:next], `\\\`)
}

// endsRead reports whether a line ends a here-document as written or as
// a nested shell reads it.
func (h heredocEnds) endsRead(line string) bool {
	return len(h.words) > 0 && shellReadings(line, h.ends)
}

// heredocWord reads the shell word at the start of s, up to an unquoted
// blank, line break or operator, with its quotes removed: \x is x (a
// backslash and a line break are nothing), '…' its text, "…" its text with
// a backslash before $ ` " \ or a line break removed; an unclosed quote
// runs to the end. bash reads $'…' as its text with its escapes made the
// bytes they stand for (\x45, \', \n, …) and $"…" as "…", and dash reads
// both as '$' and a quote: both readings are returned.
func heredocWord(s string) (bash, dash string) {
	return shellWord(s, true), shellWord(s, false)
}

// shellWord is heredocWord's reading of s as bash reads it, or as dash.
func shellWord(s string, bash bool) string { return shellRead(s, bash, true) }

// shellRead reads the pieces of a shell word at the start of s, up to an
// unquoted blank, line break or operator when word is set, else to its end.
func shellRead(s string, bash, word bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case word && strings.IndexByte(" \t\n;&|<>()", c) >= 0:
			return b.String()
		case c == '\\':
			if i+1 < len(s) && s[i+1] != '\n' {
				b.WriteByte(s[i+1])
			}
			i += 2
		case c == '\'':
			e := strings.IndexByte(s[i+1:], '\'')
			if e < 0 {
				e = len(s) - i - 1
			}
			b.WriteString(s[i+1 : i+1+e])
			i += e + 2
		case c == '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
					if i++; s[i] == '\n' {
						continue
					}
				}
				b.WriteByte(s[i])
			}
			i++
		case bash && c == '$' && i+1 < len(s) && s[i+1] == '"':
			i++ // $"…" is "…" (a translation of it: the C locale's is itself)
		case bash && c == '$' && i+1 < len(s) && s[i+1] == '\'':
			i = ansiCQuoted(&b, s, i+2)
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// ansiCQuoted writes the text of bash's $'…' whose inside starts at s[i:],
// its escapes made the bytes they stand for, and returns where the quote
// ends (past its closing '; the end of s when it is unclosed).
func ansiCQuoted(b *strings.Builder, s string, i int) int {
	for i < len(s) && s[i] != '\'' {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			i++
			continue
		}
		i = ansiCEscape(b, s, i, true)
	}
	return i + 1
}

// ansiCEscape writes the bytes the escape of bash's $'…' at s[i:] (a
// backslash and what follows it) stands for, and returns where it ends;
// inQuote: a \c before the closing quote takes no byte.
func ansiCEscape(b *strings.Builder, s string, i int, inQuote bool) int {
	digits := func(j, most, base int) (int, int) {
		v, n := 0, 0
		for ; n < most && j+n < len(s); n++ {
			d := strings.IndexByte("0123456789abcdef"[:base], s[j+n]|0x20)
			if s[j+n] >= '0' && s[j+n] <= '9' {
				d = int(s[j+n] - '0')
				if d >= base {
					d = -1
				}
			}
			if d < 0 {
				break
			}
			v = v*base + d
		}
		return v, n
	}
	c := s[i+1]
	i += 2
	switch c {
	case 'a', 'b', 'e', 'E', 'f', 'n', 'r', 't', 'v':
		b.WriteByte(map[byte]byte{'a': 7, 'b': 8, 'e': 27, 'E': 27, 'f': 12, 'n': 10, 'r': 13, 't': 9, 'v': 11}[c])
	case '\\', '\'', '"', '?':
		b.WriteByte(c)
	case '0', '1', '2', '3', '4', '5', '6', '7':
		v, n := digits(i-1, 3, 8)
		b.WriteByte(byte(v))
		i += n - 1
	case 'x', 'u', 'U':
		most := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
		v, n := digits(i, most, 16)
		switch {
		case n == 0:
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == 'x':
			b.WriteByte(byte(v))
		default:
			b.WriteRune(rune(v))
		}
		i += n
	case 'c':
		if i < len(s) && (!inQuote || s[i] != '\'') {
			b.WriteByte(s[i] & 0x1f)
			i++
		}
	default:
		b.WriteByte('\\')
		b.WriteByte(c)
	}
	return i
}

// pathRun reports whether a run of base64 bytes in a key block reads as a
// path: it starts with '/' and no name between its '/'s is minKeyRun bytes
// or more. A line of a key's base64 starts with '/' one time in 64 and
// holds a '/' about once in its 64 bytes, so a run that starts with one
// and has a long stretch without is key material, shown in clear when any
// run that started with '/' was kept.
func pathRun(run string) bool {
	if !strings.HasPrefix(run, "/") {
		return false
	}
	for name := range strings.SplitSeq(run[1:], "/") {
		if len(name) >= minKeyRun {
			return false
		}
	}
	return true
}

// privateKeyLabel reads the label of a BEGIN marker at s[i:] (after
// "-----BEGIN "): upper-case words holding keyBlockWord, then "-----". It
// returns where the marker ends.
func privateKeyLabel(s string, i int) (int, bool) {
	j := i
	for j < len(s) && (s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9' || s[j] == ' ') {
		j++
	}
	keyScanned(j-i, j-i)
	if !strings.HasPrefix(s[j:], "-----") || !strings.Contains(s[i:j], keyBlockWord) {
		return 0, false
	}
	return j + len("-----"), true
}

// keyScanHook, set by a test only, is told how many bytes of a text each
// search of the key readings looked at (keyScanned): their cost over a
// text of many markers is counted, not timed.
var keyScanHook func(n int)

// keyScanned tells keyScanHook how many bytes a search looked at: found
// bytes when it found what it looked for (>= 0), all of them when not.
func keyScanned(found, all int) {
	if keyScanHook != nil {
		if found < 0 {
			found = all
		}
		keyScanHook(found)
	}
}

// assignmentShape reports whether a run of base64 bytes has a '=' before
// a byte that is not one: base64 pads with '=' at its end only, and a
// shell reads NAME=value as an assignment (HOME=testdata/x… decides what
// the next line's git reads).
func assignmentShape(run string) bool {
	i := strings.IndexByte(run, '=')
	return i > 0 && strings.TrimLeft(run[i:], "=") != ""
}

// base64Byte reports whether c is a byte of standard base64 text.
func base64Byte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '='
}

// encodedKeyBegin is the base64 of "-----BEGIN ": a PEM file encoded whole
// (a Kubernetes secret's tls.key, base64 -w0 key.pem, an environment
// variable that holds a key) starts with it.
const encodedKeyBegin = "LS0tLS1CRUdJTi"

// minEncodedKey is the shortest encoded key hidden: the base64 of the
// smallest private key's PEM file (an EC key's, 227 bytes) is longer, and
// a word longer than a file name (255 bytes) is no name of a program.
const minEncodedKey = 256

// redactEncodedKeys hides a private key's PEM file encoded in base64 (the
// key block redactKeyBlocks hides, made one word that holds no marker): a
// run of base64 bytes that starts a word with encodedKeyBegin and holds no
// '/' (the base64 of a PEM text has none: a '/' encodes a byte above 0x7f,
// '?' or DEL), with the lines that follow it when it was wrapped (base64's
// 76 columns, or 64: lines as long as the first, and a last one no
// longer), each a run alone on its line but for the line's indentation
// and what ends it (a quote, a blank, a "\n" escape). It is hidden when
// the runs decode to a BEGIN marker of a private key and are minEncodedKey
// bytes or more.
func redactEncodedKeys(s string) string {
	if !strings.Contains(s, encodedKeyBegin) {
		return s
	}
	var b strings.Builder
	last := 0 // s[:last] is in b
	delims := heredocDelimiters(s)
	if delims.expanded {
		return s // where a document ends is not known: nothing is hidden
	}
	for from := 0; ; {
		k := strings.Index(s[from:], encodedKeyBegin)
		keyScanned(k, len(s)-from)
		if k < 0 {
			break
		}
		a := from + k
		from = a + 1
		if a > 0 && base64Byte(s[a-1]) && s[a-1] != '=' { // in a word ('=' ends a name: NAME=value)
			continue
		}
		runs, ok := encodedKeyRuns(s, a, delims)
		// A start within these runs is no key of its own: one pass over
		// a run or lines of many starts, not one each.
		from = max(from, runs[len(runs)-1][1])
		if !ok {
			continue
		}
		var enc strings.Builder
		for _, r := range runs {
			enc.WriteString(s[r[0]:r[1]])
		}
		if enc.Len() < minEncodedKey || !encodedPrivateKey(enc.String()) {
			continue
		}
		for _, r := range runs {
			b.WriteString(s[last:r[0]])
			b.WriteString(redacted)
			last = r[1]
		}
		from = last
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// encodedKeyRuns returns the runs of an encoded PEM file that starts at
// a (redactEncodedKeys), and false when one holds a '/'. A wrapped line is
// one only when nothing but blanks follows its run up to its end (a
// quote, a line break, a "\n" escape), and a line that is a
// here-document's delimiter is none: what follows it runs, and a word
// with arguments after it is a command (as is a delimiter, read as the
// encoding's short last line, whose commands after it read to the
// approver as more of the document).
func encodedKeyRuns(s string, a int, delims heredocEnds) ([][2]int, bool) {
	run := func(i int) int {
		a := i
		for i < len(s) && base64Byte(s[i]) {
			i++
		}
		keyScanned(i-a, i-a)
		return i
	}
	e := run(a)
	runs := [][2]int{{a, e}}
	width := e - a
	for n := width; n == width && (width == 64 || width == 76); {
		i := e
		switch {
		case strings.HasPrefix(s[i:], "\r\n"):
			i += 2
		case strings.HasPrefix(s[i:], "\n"):
			i++
		case strings.HasPrefix(s[i:], `\r\n`):
			i += 4
		case strings.HasPrefix(s[i:], `\n`):
			i += 2
		default:
			n = 0
			continue
		}
		if delims.endsAt(s, i) {
			break
		}
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		j := run(i)
		n = j - i
		if delims.words[s[i:j]] {
			break
		}
		k := j
		for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
			k++
		}
		if n == 0 || n > width || k < len(s) && strings.IndexByte("\r\n\\'\"", s[k]) < 0 {
			break
		}
		runs = append(runs, [2]int{i, j})
		e = j
	}
	for _, r := range runs {
		if strings.IndexByte(s[r[0]:r[1]], '/') >= 0 {
			return runs, false
		}
	}
	return runs, true
}

// encodedPrivateKey reports whether enc, base64, decodes to a text that
// starts with a private key's BEGIN marker and is text throughout
// (printable ASCII, tabs and line breaks, as a PEM file is): a word after
// the encoding's full lines, a program's name, decodes to other bytes.
func encodedPrivateKey(enc string) bool {
	all := strings.TrimRight(enc, "=")
	if len(all)%4 == 1 { // no whole byte: base64 of text never ends so
		return false
	}
	dec, err := base64.RawStdEncoding.DecodeString(all)
	if err != nil {
		return false
	}
	for i := 0; i < len(dec); i++ {
		if c := dec[i]; (c < 0x20 || c > 0x7e) && c != '\n' && c != '\r' && c != '\t' {
			return false
		}
	}
	_, ok := privateKeyLabel(string(dec), len(keyBegin))
	return ok && strings.HasPrefix(string(dec), keyBegin)
}

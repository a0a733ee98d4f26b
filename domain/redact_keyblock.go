package domain

import "strings"

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
// never see whole (a line of base64 holds no needle of theirs). From the
// end of a "-----BEGIN … PRIVATE KEY…-----" marker up to the next
// "-----END " (or the end of s), each run of base64 bytes (letters,
// digits, '+', '/', '=') of minKeyRun or more is replaced with the marker,
// unless it reads as a path (pathRun). Everything else stays in
// view, line breaks and the markers included: the shell's syntax (a
// here-document's end, a ';' and what follows) and any word shorter than
// that, so that what a command runs is shown, as replaceClipped keeps it.
// A JSON string holding a key ("\n" escapes) is hidden the same way.
func redactKeyBlocks(s string) string {
	if !strings.Contains(s, keyBlockWord) {
		return s
	}
	var b strings.Builder
	last := 0 // s[:last] is in b
	for from := 0; from < len(s); {
		k := strings.Index(s[from:], keyBegin)
		if k < 0 {
			break
		}
		from = k + from + len(keyBegin)
		bodyStart, ok := privateKeyLabel(s, from)
		if !ok {
			continue
		}
		end := len(s)
		if e := strings.Index(s[bodyStart:], "-----END "); e >= 0 {
			end = bodyStart + e
		}
		for i := bodyStart; i < end; {
			if !base64Byte(s[i]) {
				i++
				continue
			}
			j := i
			for j < end && base64Byte(s[j]) {
				j++
			}
			if j-i >= minKeyRun && !pathRun(s[i:j]) {
				b.WriteString(s[last:i])
				b.WriteString(redacted)
				last = j
			}
			i = j
		}
		from = end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

const keyBegin = "-----BEGIN "

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
	if !strings.HasPrefix(s[j:], "-----") || !strings.Contains(s[i:j], keyBlockWord) {
		return 0, false
	}
	return j + len("-----"), true
}

// base64Byte reports whether c is a byte of standard base64 text.
func base64Byte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '='
}

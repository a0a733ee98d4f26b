package domain

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"
)

// ScopeEntry is one key of a normalised scope.
type ScopeEntry struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Scope is the normalised description of what an invocation touches
// (REFERENCE §3). Entries are sorted by key and keys are unique. Values never
// hold an environment value, file content, or a URL's userinfo, query or
// fragment.
type Scope []ScopeEntry

// NewScope sorts entries by key; a later duplicate key replaces an earlier one.
func NewScope(entries ...ScopeEntry) Scope {
	s := Scope(slices.Clone(entries))
	slices.SortStableFunc(s, func(a, b ScopeEntry) int { return strings.Compare(a.Key, b.Key) })
	out := s[:0]
	for i, e := range s {
		if i+1 < len(s) && s[i+1].Key == e.Key {
			continue
		}
		out = append(out, e)
	}
	return out
}

// Get returns the value of key.
func (s Scope) Get(key string) (string, bool) {
	i, ok := slices.BinarySearchFunc(s, key, func(e ScopeEntry, k string) int { return strings.Compare(e.Key, k) })
	if !ok {
		return "", false
	}
	return s[i].Value, true
}

// CanonicalJSON renders the scope as a JSON object with sorted keys and no
// insignificant white space: exactly what encoding/json produces for a
// map[string]string with HTML escaping off.
func (s Scope) CanonicalJSON() []byte {
	n := 2
	for _, e := range s {
		n += len(e.Key) + len(e.Value) + 6
	}
	b := make([]byte, 0, n)
	return s.appendCanonical(b)
}

func (s Scope) appendCanonical(b []byte) []byte { return s.AppendJSON(b, false) }

// AppendJSON appends the scope as a JSON object, entries in their order
// (nil as {}), each string escaped as AppendJSONString does: with
// escapeHTML false this is CanonicalJSON, with it true what json.Marshal
// stores for a Scope (its MarshalJSON compacted with HTML escaping).
func (s Scope) AppendJSON(b []byte, escapeHTML bool) []byte {
	b = append(b, '{')
	for i, e := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendJSONString(b, e.Key, escapeHTML)
		b = append(b, ':')
		b = AppendJSONString(b, e.Value, escapeHTML)
	}
	return append(b, '}')
}

// Hash is the scope hash: lowercase hex SHA-256 of CanonicalJSON.
func (s Scope) Hash() string {
	var stack [512]byte
	sum := sha256.Sum256(s.appendCanonical(stack[:0]))
	return hex.EncodeToString(sum[:])
}

// AppendJSONString appends s as a JSON string the way encoding/json writes
// it: quotes, backslashes and controls escaped, invalid UTF-8 replaced by
// \ufffd, U+2028 and U+2029 escaped, and with escapeHTML HTML's <, > and &
// escaped too (json.Marshal; without it, an Encoder with SetEscapeHTML(false)).
func AppendJSONString(b []byte, s string, escapeHTML bool) []byte {
	const hexd = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!escapeHTML || c != '<' && c != '>' && c != '&') {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default: // the other controls, and <, > and & with escapeHTML
				b = append(b, '\\', 'u', '0', '0', hexd[c>>4], hexd[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', byte('8'+r-'\u2028'))
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// jsonList renders a string list as compact JSON (for argv, env_keys, paths).
func jsonList(items []string) string {
	if items == nil {
		items = []string{}
	}
	b := []byte{'['}
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendJSONString(b, it, false)
	}
	return string(append(b, ']'))
}

// hashHex returns the lowercase hex SHA-256 of b.
func hashHex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// canonicalPayloadHash digests a JSON value re-encoded canonically (object
// keys sorted, no white space) under key, so that key order does not
// change it. Undecodable input is digested as raw bytes.
func canonicalPayloadHash(raw json.RawMessage, key DigestKey) string {
	var v any
	if len(raw) == 0 {
		return key.Sum([]byte("null"))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return key.Sum(raw)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return key.Sum(raw)
	}
	return key.Sum(b)
}

// MarshalJSON renders the scope as its canonical JSON object, so a stored
// scope (when nothing in it was redacted) hashes to its scope hash.
func (s Scope) MarshalJSON() ([]byte, error) { return s.CanonicalJSON(), nil }

// UnmarshalJSON reads a flat JSON object of strings, sorting its keys.
func (s *Scope) UnmarshalJSON(b []byte) error {
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	out := make(Scope, 0, len(m))
	for k, v := range m {
		out = append(out, ScopeEntry{k, v})
	}
	slices.SortFunc(out, func(a, b ScopeEntry) int { return strings.Compare(a.Key, b.Key) })
	*s = out
	return nil
}

package eventcodec

import (
	"encoding/json"
	"errors"
	"strconv"
)

// errSlow makes a fast decoder give up; the caller then decodes with
// encoding/json, so the result never depends on which decoder ran.
var errSlow = errors.New("fast decoder: not handled")

// scanner walks compact JSON as the codec writes it, without reflection or
// closures. The first failure sticks in err and every later call is a
// no-op, so decoders check it once at the end. It handles objects, arrays,
// strings (unescaping through encoding/json when they hold an escape),
// booleans, integers and null; anything else fails with errSlow.
type scanner struct {
	b   []byte
	i   int
	err error
}

func (s *scanner) fail() { s.err = errSlow }

func (s *scanner) peek() byte {
	for s.i < len(s.b) {
		switch c := s.b[s.i]; c {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return c
		}
	}
	return 0
}

// null consumes a null and reports whether there was one.
func (s *scanner) null() bool {
	if s.err == nil && s.peek() == 'n' && len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null" {
		s.i += 4
		return true
	}
	return false
}

// strBytes returns the bytes of a string token (without quotes) and whether
// it holds an escape or a non-ASCII byte (encoding/json then decodes it,
// replacing invalid UTF-8 as it does).
func (s *scanner) strBytes() ([]byte, bool) {
	if s.err != nil || s.peek() != '"' {
		s.fail()
		return nil, false
	}
	s.i++
	start, esc := s.i, false
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], esc
		case c == '\\':
			esc = true
			s.i += 2
		case c < 0x20:
			s.fail()
			return nil, false
		case c >= 0x80:
			esc = true
			s.i++
		default:
			s.i++
		}
	}
	s.fail()
	return nil, false
}

// str reads a string (null reads as "").
func (s *scanner) str() string {
	if s.null() {
		return ""
	}
	start := s.i
	raw, esc := s.strBytes()
	if s.err != nil {
		return ""
	}
	if !esc {
		return string(raw)
	}
	var out string
	if json.Unmarshal(s.b[start:s.i], &out) != nil {
		s.fail()
	}
	return out
}

// text reads a string into set (an UnmarshalText method); null leaves it.
func (s *scanner) text(set func([]byte) error) {
	if s.null() || s.err != nil {
		return
	}
	start := s.i
	raw, esc := s.strBytes()
	if s.err != nil {
		return
	}
	if esc {
		var out string
		if json.Unmarshal(s.b[start:s.i], &out) != nil {
			s.fail()
			return
		}
		raw = []byte(out)
	}
	if err := set(raw); err != nil {
		s.fail()
	}
}

func (s *scanner) boolean() bool {
	if s.err != nil {
		return false
	}
	s.peek()
	switch {
	case len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "true":
		s.i += 4
		return true
	case len(s.b)-s.i >= 5 && string(s.b[s.i:s.i+5]) == "false":
		s.i += 5
	case !s.null():
		s.fail()
	}
	return false
}

func (s *scanner) integer() int64 {
	if s.err != nil {
		return 0
	}
	s.peek()
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	digits := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	n, err := strconv.ParseInt(string(s.b[start:s.i]), 10, 64)
	leadingZero := s.i-digits > 1 && s.b[digits] == '0' // JSON forbids 00, -01
	if err != nil || leadingZero || (s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E')) {
		s.fail()
	}
	return n
}

// iter is the state of a loop over an object or array.
type iter uint8

const (
	iterDone  iter = iota // null, failed, or past the end
	iterFirst             // just opened
	iterMore              // after a member
)

// open enters an object ('{') or array ('['); null (or a failure) gives a
// loop that runs no member. Loop with next until it reports false:
//
//	for it := s.open('{'); s.next('}', &it); { key := s.key(); … }
func (s *scanner) open(c byte) iter {
	if s.err != nil || s.null() {
		return iterDone
	}
	if s.peek() != c {
		s.fail()
		return iterDone
	}
	s.i++
	return iterFirst
}

// next moves to the next member of an open object or array (close is '}'
// or ']'); it reports false at the end.
func (s *scanner) next(close byte, it *iter) bool {
	if s.err != nil || *it == iterDone {
		return false
	}
	c := s.peek()
	if *it == iterFirst {
		if c == close {
			s.i++
			*it = iterDone
			return false
		}
		*it = iterMore
		return true
	}
	switch c {
	case ',':
		s.i++
		return true
	case close:
		s.i++
		*it = iterDone
		return false
	}
	s.fail()
	return false
}

// key reads an object key and its colon.
func (s *scanner) key() []byte {
	k, esc := s.strBytes()
	if esc {
		s.fail()
	}
	if s.err == nil && s.peek() != ':' {
		s.fail()
	}
	s.i++
	return k
}

// done reports the sticky error, or errSlow if anything but white space
// follows.
func (s *scanner) done() error {
	if s.err != nil {
		return s.err
	}
	if s.peek(); s.i != len(s.b) {
		return errSlow
	}
	return nil
}

package domain

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// decodeArgsFast decodes a tool call's arguments as encoding/json (with
// UseNumber) decodes a JSON object into a map[string]any, for the shapes
// tool calls almost always have: a flat object whose keys and values are
// strings without escapes, numbers, true, false, null, or arrays of those.
// ok is false for anything else — an escape, a control character or invalid
// UTF-8 in a string, a nested object or array, trailing data, a syntax
// error — and the caller decodes with encoding/json: what this returns is
// what encoding/json would have (FuzzDecodeArgsFast compares them).
func decodeArgsFast(b []byte) (m map[string]any, ok bool) {
	if bytes.IndexByte(b, '\\') >= 0 {
		return nil, false // an escape (a patch, a file's content): no work wasted on a partial map
	}
	p := argsParser{b: b}
	p.ws()
	if !p.byte('{') {
		return nil, false
	}
	m = map[string]any{}
	p.ws()
	if p.byte('}') {
		return m, p.end()
	}
	for {
		p.ws()
		k, ok := p.str()
		if !ok {
			return nil, false
		}
		p.ws()
		if !p.byte(':') {
			return nil, false
		}
		p.ws()
		v, ok := p.value(true)
		if !ok {
			return nil, false
		}
		if _, dup := m[k]; dup {
			return nil, false // a repeated key: the slow path refuses it
		}
		m[k] = v
		p.ws()
		if p.byte('}') {
			return m, p.end()
		}
		if !p.byte(',') {
			return nil, false
		}
	}
}

type argsParser struct {
	b []byte
	i int
}

func (p *argsParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *argsParser) byte(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// end reports whether only whitespace is left.
func (p *argsParser) end() bool {
	p.ws()
	return p.i == len(p.b)
}

// str reads a string without escapes or control characters, in valid
// UTF-8.
func (p *argsParser) str() (string, bool) {
	if !p.byte('"') {
		return "", false
	}
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			s := p.b[start:p.i]
			p.i++
			if !utf8.Valid(s) {
				return "", false
			}
			return string(s), true
		case c == '\\' || c < 0x20:
			return "", false
		}
		p.i++
	}
	return "", false
}

// value reads a string, a number, true, false, null or (when arrays) an
// array of those.
func (p *argsParser) value(arrays bool) (any, bool) {
	if p.i >= len(p.b) {
		return nil, false
	}
	switch c := p.b[p.i]; {
	case c == '"':
		return p.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == '[' && arrays:
		p.i++
		out := []any{}
		p.ws()
		if p.byte(']') {
			return out, true
		}
		for {
			p.ws()
			v, ok := p.value(false)
			if !ok {
				return nil, false
			}
			out = append(out, v)
			p.ws()
			if p.byte(']') {
				return out, true
			}
			if !p.byte(',') {
				return nil, false
			}
		}
	}
	for _, lit := range []struct {
		s string
		v any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if len(p.b)-p.i >= len(lit.s) && string(p.b[p.i:p.i+len(lit.s)]) == lit.s {
			p.i += len(lit.s)
			return lit.v, true
		}
	}
	return nil, false
}

// number reads a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *argsParser) number() (any, bool) {
	start := p.i
	p.byte('-')
	digits := func() int {
		n := 0
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	switch {
	case p.byte('0'):
	case digits() == 0:
		return nil, false
	}
	if p.byte('.') && digits() == 0 {
		return nil, false
	}
	if p.byte('e') || p.byte('E') {
		if !p.byte('+') {
			p.byte('-')
		}
		if digits() == 0 {
			return nil, false
		}
	}
	return json.Number(p.b[start:p.i]), true
}

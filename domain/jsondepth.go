package domain

import "fmt"

// MaxKeptJSONDepth bounds the nesting of a JSON value a turn keeps as the
// client sent it (a turn's input, a JSON-RPC turn/start's capabilities or
// sandbox_policy). encoding/json refuses a document nested more than
// 10,000 levels deep, and the events API wraps each payload in more: a
// value stored just under the limit made every page of its turn's events
// undecodable, so that `turnstile audit verify TURN` and `replay` failed
// over an intact chain (the hundred-and-fifty-third review).
const MaxKeptJSONDepth = 64

// CheckJSONDepth refuses the JSON value raw, of field, when its arrays and
// objects nest more than MaxKeptJSONDepth levels deep.
func CheckJSONDepth(field string, raw []byte) error {
	depth, inString, escaped := 0, false, false
	for _, c := range raw {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			if depth++; depth > MaxKeptJSONDepth {
				return &FieldError{Field: field, Message: fmt.Sprintf("its value nests more than %d levels deep", MaxKeptJSONDepth)}
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return nil
}

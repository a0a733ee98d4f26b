package domain

import (
	"bytes"
	"encoding/json"
	"strings"
)

// RedactJSON redacts the string values of a JSON document as RedactText
// redacts a command: a turn's prompt and the settings a client sends with
// it are recorded and shown to everyone who may read the turn, and a
// person may paste a token into a prompt. A member's value is redacted as
// the assignment "key=value" would be (a password under "PGPASSWORD" is
// one). Keys and the document's shape are kept; a document that needs no
// redaction, or that is not JSON, is returned unchanged.
func RedactJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return raw
	}
	v, changed := redactValue(v, "")
	if !changed {
		return raw
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return raw
	}
	return json.RawMessage(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// RedactJSONMap is RedactJSON over each value of m (a new map when one
// changes), each redacted as the member of its key.
func RedactJSONMap(m map[string]json.RawMessage) map[string]json.RawMessage {
	var out map[string]json.RawMessage
	for k, raw := range m {
		r := redactMember(k, raw)
		if bytes.Equal(r, raw) {
			continue
		}
		if out == nil {
			out = make(map[string]json.RawMessage, len(m))
			for k2, v2 := range m {
				out[k2] = v2
			}
		}
		out[k] = r
	}
	if out == nil {
		return m
	}
	return out
}

func redactMember(key string, raw json.RawMessage) json.RawMessage {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		r, changed := redactValue(s, key)
		if !changed {
			return raw
		}
		b, err := json.Marshal(r)
		if err != nil {
			return raw
		}
		return b
	}
	return RedactJSON(raw)
}

// redactValue redacts v's strings; key is the member v is the value of.
func redactValue(v any, key string) (any, bool) {
	switch x := v.(type) {
	case string:
		r := RedactText(x)
		if key != "" {
			if a := RedactText(key + "=" + x); a != key+"="+x && strings.HasPrefix(a, key+"=") {
				r = RedactText(a[len(key)+1:])
			}
		}
		return r, r != x
	case map[string]any:
		changed := false
		for k, e := range x {
			if r, c := redactValue(e, k); c {
				x[k], changed = r, true
			}
		}
		return x, changed
	case []any:
		changed := false
		for i, e := range x {
			if r, c := redactValue(e, ""); c {
				x[i], changed = r, true
			}
		}
		return x, changed
	}
	return v, false
}

package turn

import (
	"bytes"
	"encoding/json"
	"testing"

	"pgregory.net/rapid"
)

// TestJSONStringMatchesMarshal: appendJSONString writes what json.Marshal
// writes for a string, hostile ones included.
func TestJSONStringMatchesMarshal(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s := genString().Draw(rt, "s")
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			rt.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}

// TestEnvelopeJSONMatchesMarshal: the envelope's encoder writes what
// json.Marshal writes, byte for byte, after whatever the buffer held, and
// fails where it fails.
func TestEnvelopeJSONMatchesMarshal(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		env := genEnvelope().Draw(rt, "envelope")
		prefix := []byte(genString().Draw(rt, "prefix"))
		want, werr := json.Marshal(env)
		got, gerr := env.appendJSON(bytes.Clone(prefix))
		if (werr != nil) != (gerr != nil) {
			rt.Fatalf("json.Marshal error %v, appendJSON error %v", werr, gerr)
		}
		if werr == nil && !bytes.Equal(got, append(prefix, want...)) {
			rt.Fatalf("appendJSON\n%q\nwant\n%q", got, append(prefix, want...))
		}
	})
}

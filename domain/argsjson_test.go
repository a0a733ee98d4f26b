package domain

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// decodeArgsStd is what ClassifyResolved does without the fast path.
func decodeArgsStd(b []byte) (map[string]any, error) {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	err := dec.Decode(&m)
	return m, err
}

var argsSeeds = []string{
	`{"path":"src/main.go"}`, `{"cmd":["go","test","./..."],"workdir":"src"}`, ` { "a" : 1 , "b" : -0.5e+3 } `,
	`{"a":true,"b":false,"c":null,"d":[],"e":[1,"x",null,true]}`, `{}`, `{"a":"x","a":"y"}`, `{"a":"é☃"}`,
	`{"a":"\u0041"}`, `{"a":"x\ny"}`, `{"a":{"b":1}}`, `{"a":[[1]]}`, `{"a":1} trailing`, `{"a":01}`, `{"a":1.}`,
	`{"a":-}`, `{"a":tru}`, `{"a":truex}`, "{\"a\":\"\xff\"}", `["x"]`, `"x"`, `{"a":1,}`, `{"a" 1}`, `{`, `{"a":[1,]}`,
	`{"a":1e5}`, `{"a":1E-5}`, `{"a":0.25}`, `{"a":"x"}{"b":1}`,
}

// FuzzDecodeArgsFast: whatever the fast path accepts, encoding/json accepts
// too and decodes to the same map.
func FuzzDecodeArgsFast(f *testing.F) {
	for _, s := range argsSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := decodeArgsFast(b)
		if !ok {
			return
		}
		want, err := decodeArgsStd(b)
		if err != nil {
			t.Fatalf("%q: the fast path accepted what encoding/json refuses: %v", b, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: fast %#v, encoding/json %#v", b, got, want)
		}
	})
}

// TestDecodeArgsFastTakesTheCommonShapes: the shapes tool calls have take
// the fast path (so the fuzz comparison is not vacuous), and escapes, nested
// values, invalid UTF-8, trailing data and a repeated key are left to
// encoding/json.
func TestDecodeArgsFastTakesTheCommonShapes(t *testing.T) {
	for _, s := range []string{`{"path":"src/main.go"}`, `{"cmd":["go","test","./..."],"workdir":"src","timeout_ms":1000}`,
		`{"url":"https://example.com/"}`, `{}`, `{"a":true,"b":null,"c":[]}`} {
		got, ok := decodeArgsFast([]byte(s))
		want, err := decodeArgsStd([]byte(s))
		if !ok || err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: fast (%v, %v), encoding/json (%v, %v)", s, got, ok, want, err)
		}
	}
	for _, s := range []string{`{"a":"\u0041"}`, `{"a":"x\ny"}`, `{"a":{"b":1}}`, `{"a":[[1]]}`, `{"a":1} x`, "{\"a\":\"\xff\"}",
		`["x"]`, `{"a":01}`, `{"a":1}{"b":2}`, `{"a":"x","a":"y"}`} { // a repeated key: refused on the slow path
		if _, ok := decodeArgsFast([]byte(s)); ok {
			t.Errorf("%s: taken by the fast path", s)
		}
	}
}

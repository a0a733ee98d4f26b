package eventcodec

import (
	"encoding/json"
	"testing"
)

// TestPrevHashMatchesJSON: the scanner's prev_hash is encoding/json's on
// the envelopes the codec writes and on the odd ones it does not.
func TestPrevHashMatchesJSON(t *testing.T) {
	for _, in := range []string{
		`{"event_id":"6f0b5f3e-2b1c-5d7a-9c43-7e1f0a8b9d21","type":"permission.decision_allowed","schema_version":1,"turn_id":"t","occurred_at":"2026-11-30T10:00:00Z","actor":{"name":"admin","role":"admin"},"correlation_id":"x","prev_hash":"abc"}`,
		`{"prev_hash":"","type":"t"}`,
		`{"type":"t"}`,
		`{"actor":"bob","prev_hash":"a\u0062c"}`,
		`{"prev_hash":"first","prev_hash":"second"}`,
		`{"PREV_HASH":"folded"}`,
		`{"prev_hash":"x","n":1.5}`,
		`{"prev_hash":"x","nested":{"a":[1,true,null,{"prev_hash":"inner"}]}}`,
		`{"prev_hash":null}`,
		` { "prev_hash" : "spaced" } `,
		`{"prev_hash":"x"} trailing`,
		`{"prev_hash":"x"`,
		`not json`,
		`{"prev_hash":7}`,
	} {
		got, gotErr := PrevHash([]byte(in))
		var env struct {
			PrevHash string `json:"prev_hash"`
		}
		wantErr := json.Unmarshal([]byte(in), &env)
		if got != env.PrevHash || (gotErr == nil) != (wantErr == nil) {
			t.Errorf("%s: got %q (%v), encoding/json %q (%v)", in, got, gotErr, env.PrevHash, wantErr)
		}
	}
}

// FuzzPrevHash holds PrevHash to encoding/json on any input.
func FuzzPrevHash(f *testing.F) {
	f.Add([]byte(`{"prev_hash":"abc","actor":{"name":"a"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, gotErr := PrevHash(b)
		var env struct {
			PrevHash string `json:"prev_hash"`
		}
		wantErr := json.Unmarshal(b, &env)
		if (gotErr == nil) != (wantErr == nil) || (gotErr == nil && got != env.PrevHash) {
			t.Fatalf("%q: got %q (%v), encoding/json %q (%v)", b, got, gotErr, env.PrevHash, wantErr)
		}
	})
}

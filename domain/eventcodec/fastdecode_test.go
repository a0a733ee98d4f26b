package eventcodec

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"turnstile/domain/turn"
)

// TestFastDecodeMatchesJSON: on every event the codec writes, the fast
// decoders succeed and give exactly what encoding/json gives.
func TestFastDecodeMatchesJSON(t *testing.T) {
	recs := sampleRecords(t)
	fast := 0
	for typ, r := range recs {
		var viaJSON turn.Envelope
		if err := json.Unmarshal(r.Metadata, &viaJSON); err != nil {
			t.Fatal(err)
		}
		var viaFast turn.Envelope
		s := scanner{b: r.Metadata}
		if decodeEnvelopeFast(&s, &viaFast); s.done() != nil || !reflect.DeepEqual(viaFast, viaJSON) {
			t.Errorf("%s envelope: fast %+v (%v), json %+v", typ, viaFast, s.done(), viaJSON)
		}
		p, _ := turn.EventRegistry.New(typ, 1)
		q, _ := turn.EventRegistry.New(typ, 1)
		if err := json.Unmarshal(r.Data, q); err != nil {
			t.Fatal(err)
		}
		if !hasFast(typ) {
			continue
		}
		if !decodeFast(r.Data, p) {
			t.Errorf("%s: the fast decoder gave up on what the codec wrote:\n%s", typ, r.Data)
			continue
		}
		if !reflect.DeepEqual(p, q) {
			t.Errorf("%s: fast decode differs from encoding/json:\n fast %+v\n json %+v", typ, p, q)
		}
		fast++
	}
	if fast < 4 {
		t.Fatalf("only %d event types took the fast path", fast)
	}
}

// FuzzFastDecode: on any input the fast path either gives up or agrees with
// encoding/json, and never panics.
func FuzzFastDecode(f *testing.F) {
	for typ, r := range sampleRecords(f) {
		f.Add(typ, string(r.Data))
		f.Add(typ, strings.Replace(string(r.Data), `"`, `\u0022`, 3))
		f.Add("meta", string(r.Metadata))
	}
	f.Add(turn.TypeApprovalResolved, `{"request_id":"a\nb","resolution":"deny","reason":"user_denied","tool_call_id":null}`)
	f.Fuzz(func(t *testing.T, typ, data string) {
		if typ == "meta" {
			var a, b turn.Envelope
			s := scanner{b: []byte(data)}
			decodeEnvelopeFast(&s, &a)
			if s.done() == nil {
				if err := json.Unmarshal([]byte(data), &b); err != nil || !reflect.DeepEqual(a, b) {
					t.Fatalf("envelope: fast %+v, json %+v (%v)", a, b, err)
				}
			}
			return
		}
		p, err := turn.EventRegistry.New(typ, 1)
		if err != nil {
			return
		}
		q, _ := turn.EventRegistry.New(typ, 1)
		if !decodeFast([]byte(data), p) {
			return
		}
		if err := json.Unmarshal([]byte(data), q); err != nil {
			t.Fatalf("fast path accepted what encoding/json refuses (%v): %s", err, data)
		}
		if !reflect.DeepEqual(p, q) {
			t.Fatalf("fast %+v, json %+v for %s", p, q, data)
		}
	})
}

// hasFast reports whether events of typ have a fast decoder.
func hasFast(typ string) bool {
	p, _ := turn.EventRegistry.New(typ, 1)
	// An empty object is what every fast decoder accepts.
	return decodeFast([]byte("{}"), p)
}

// TestDecodeMatchesReference: on every event the codec writes, Decode gives
// exactly the event turn.Decode (encoding/json, the reference) gives, hash
// included, and a second decode of a cached snapshot payload is equal to
// the first without sharing its top-level value.
func TestDecodeMatchesReference(t *testing.T) {
	recs := sampleRecords(t)
	if len(recs) < 6 {
		t.Fatalf("only %d sample records", len(recs))
	}
	for typ, r := range recs {
		want, err := turn.Decode(&r)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			got, err := Decode(&r)
			if err != nil {
				t.Fatalf("%s: %v", typ, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s (decode %d): fast %+v\nreference %+v", typ, i, got, want)
			}
			if got.Payload == want.Payload {
				t.Errorf("%s: the payload value is shared", typ)
			}
		}
	}
	// Control: a record whose data the payload cannot hold fails both ways.
	bad := recs[turn.TypeApprovalResolved]
	bad.Data = []byte(`{"resolution":42}`)
	if _, err := turn.Decode(&bad); err == nil {
		t.Fatal("the reference decoder accepted a number for a resolution")
	}
	if _, err := Decode(&bad); err == nil {
		t.Fatal("the fast decoder accepted a number for a resolution")
	}
}

package turn

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestFastDecodeMatchesJSON: on every event the codec writes, the fast
// decoders succeed and give exactly what encoding/json gives.
func TestFastDecodeMatchesJSON(t *testing.T) {
	recs := sampleRecords(t)
	fast := 0
	for typ, r := range recs {
		var viaJSON envelope
		if err := json.Unmarshal(r.Metadata, &viaJSON); err != nil {
			t.Fatal(err)
		}
		var viaFast envelope
		s := scanner{b: r.Metadata}
		if viaFast.decodeFast(&s); s.done() != nil || !reflect.DeepEqual(viaFast, viaJSON) {
			t.Errorf("%s envelope: fast %+v (%v), json %+v", typ, viaFast, s.done(), viaJSON)
		}
		p, _ := Events.New(typ, 1)
		q, _ := Events.New(typ, 1)
		if err := json.Unmarshal(r.Data, q); err != nil {
			t.Fatal(err)
		}
		f, ok := p.(fastDecoder)
		if !ok {
			continue
		}
		s = scanner{b: r.Data}
		f.decodeFast(&s)
		if err := s.done(); err != nil {
			t.Errorf("%s: the fast decoder gave up on what the codec wrote: %v\n%s", typ, err, r.Data)
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
	f.Add(TypeApprovalResolved, `{"request_id":"a\nb","resolution":"deny","reason":"user_denied","tool_call_id":null}`)
	f.Fuzz(func(t *testing.T, typ, data string) {
		if typ == "meta" {
			var a, b envelope
			s := scanner{b: []byte(data)}
			a.decodeFast(&s)
			if s.done() == nil {
				if err := json.Unmarshal([]byte(data), &b); err != nil || !reflect.DeepEqual(a, b) {
					t.Fatalf("envelope: fast %+v, json %+v (%v)", a, b, err)
				}
			}
			return
		}
		p, err := Events.New(typ, 1)
		if err != nil {
			return
		}
		q, _ := Events.New(typ, 1)
		f, ok := p.(fastDecoder)
		if !ok {
			return
		}
		s := scanner{b: []byte(data)}
		f.decodeFast(&s)
		if s.done() != nil {
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

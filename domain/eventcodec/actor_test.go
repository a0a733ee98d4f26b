package eventcodec

import (
	"encoding/json"
	"reflect"
	"testing"

	"turnstile/domain"
	"turnstile/domain/turn"
)

// TestEnvelopeActor: the fast envelope decoder reads the actor as stored
// now ({name, role}) and as stored before roles existed (a bare string),
// exactly as encoding/json does.
func TestEnvelopeActor(t *testing.T) {
	for in, want := range map[string]domain.Actor{
		`{"type":"x","actor":{"name":"alice","role":"approver"}}`: {Name: "alice", Role: domain.RoleApprover},
		`{"type":"x","actor":{"role":"runtime","name":"rt"}}`:     {Name: "rt", Role: domain.RoleRuntime},
		`{"type":"x","actor":"agent"}`:                            {Name: "agent"},
		`{"type":"x"}`:                                            {},
	} {
		var viaJSON, viaFast turn.Envelope
		if err := json.Unmarshal([]byte(in), &viaJSON); err != nil {
			t.Fatal(err)
		}
		s := scanner{b: []byte(in)}
		decodeEnvelopeFast(&s, &viaFast)
		if err := s.done(); err != nil || !reflect.DeepEqual(viaFast, viaJSON) || viaFast.Actor != want {
			t.Errorf("%s: fast %+v (%v), json %+v, want actor %+v", in, viaFast.Actor, err, viaJSON.Actor, want)
		}
	}
}

package turn

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"pgregory.net/rapid"
)

// TestDecidedJSONMatchesMarshal: the decisions' encoder writes what
// json.Marshal writes for both decision events, hostile strings, unsorted
// and nil scopes, and a nil event included.
func TestDecidedJSONMatchesMarshal(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		d := genDecided(rt)
		var p Payload = &DecisionAllowed{d}
		switch rapid.IntRange(0, 3).Draw(rt, "type") {
		case 1:
			p = &DecisionDenied{d}
		case 2:
			p = (*DecisionAllowed)(nil)
		case 3:
			p = (*DecisionDenied)(nil)
		}
		want, werr := json.Marshal(p)
		got, gerr := marshalPayload(p)
		if werr != nil || gerr != nil || !bytes.Equal(got, want) {
			rt.Fatalf("marshalPayload (%v)\n%s\njson.Marshal (%v)\n%s", gerr, got, werr, want)
		}
	})
}

// TestEncodersKnowEveryField: with every field of a decision (or an
// envelope) set
// (fill sets each field the types have now or will have), the encoder
// still writes what json.Marshal writes, so a field added to Envelope,
// Decided, ActionRecord, DecisionRecord or what they hold cannot be left
// out of it.
func TestEncodersKnowEveryField(t *testing.T) {
	for _, p := range []Payload{&DecisionAllowed{}, &DecisionDenied{}} {
		fill(reflect.ValueOf(p).Elem())
		want, _ := json.Marshal(p)
		got, _ := marshalPayload(p)
		if !bytes.Equal(got, want) {
			t.Errorf("%T with every field set:\nmarshalPayload %s\njson.Marshal   %s", p, got, want)
		}
	}
	var env Envelope
	fill(reflect.ValueOf(&env).Elem())
	want, _ := json.Marshal(env)
	if got, _ := env.appendJSON(nil); !bytes.Equal(got, want) {
		t.Errorf("Envelope with every field set:\nappendJSON   %s\njson.Marshal %s", got, want)
	}
}

// fill sets every field reachable from v to a value that is not its zero
// (slices get two elements).
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("v<" + v.Type().Name())
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i))
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fill(v.Index(i))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k)
		fill(e)
		v.SetMapIndex(k, e)
	default:
		panic("fill: " + v.Type().String())
	}
}

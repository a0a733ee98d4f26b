package api

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestOpenAPIDescribesAndExemplifiesEveryOperation checks that every
// operation has a description, and every operation with a body an example
// that decodes into its body type with unknown fields refused (the
// decision operation: one per catalogued tool); and that no example is
// left for an operation that does not exist.
func TestOpenAPIDescribesAndExemplifiesEveryOperation(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(openapiDoc(), &doc); err != nil {
		t.Fatal(err)
	}
	strict := func(raw []byte, typ reflect.Type) error {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		return dec.Decode(reflect.New(typ).Interface())
	}
	known := map[string]bool{}
	for _, op := range operations {
		key := op.method + " " + op.path
		known[key] = true
		o := doc.Paths[op.path][strings.ToLower(op.method)]
		if d, _ := o["description"].(string); d == "" {
			t.Errorf("%s has no description", key)
		}
		if op.body == nil {
			checkResponseExample(t, key, op, o, strict)
			continue
		}
		content := o["requestBody"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)
		var examples []any
		if ex, ok := content["example"]; ok {
			examples = append(examples, ex)
		}
		if exs, ok := content["examples"].(map[string]any); ok {
			for _, e := range exs {
				examples = append(examples, e.(map[string]any)["value"])
			}
		}
		if len(examples) == 0 {
			t.Errorf("%s has no example body", key)
		}
		for _, ex := range examples {
			raw, _ := json.Marshal(ex)
			if err := strict(raw, reflect.TypeOf(op.body)); err != nil {
				t.Errorf("%s: the example %s does not decode: %v", key, raw, err)
			}
		}
	}
	for key := range responseExamples() {
		if !known[key] {
			t.Errorf("a response example for %s, which is no operation", key)
		}
	}
	for key := range bodyExamples {
		if !known[key] {
			t.Errorf("an example for %s, which is no operation", key)
		}
	}
}

// checkResponseExample: an operation without a request body shows an
// example answer (unless exempt, with the reason); a JSON one decodes into
// the operation's response type with unknown fields refused.
func checkResponseExample(t *testing.T, key string, op operation, o map[string]any, strict func([]byte, reflect.Type) error) {
	t.Helper()
	if _, ok := exampleExempt[key]; ok {
		return
	}
	var found any
	responses, _ := o["responses"].(map[string]any)
	for _, status := range []string{"200", "201", "202"} {
		r, _ := responses[status].(map[string]any)
		content, _ := r["content"].(map[string]any)
		for _, c := range content {
			if ex, ok := c.(map[string]any)["example"]; ok {
				found = ex
			}
		}
	}
	if found == nil {
		t.Errorf("%s has no example answer", key)
		return
	}
	if op.response == nil {
		return
	}
	raw, _ := json.Marshal(found)
	if err := strict(raw, reflect.TypeOf(op.response)); err != nil {
		t.Errorf("%s: the example answer %s does not decode into %T: %v", key, raw, op.response, err)
	}
}

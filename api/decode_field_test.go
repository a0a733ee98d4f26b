package api

import (
	"encoding/json"
	"errors"
	"testing"

	"turnstile/domain"
)

// TestDecodeErrorsNameTheField: a value a type's own decoder refuses (here
// nested two levels down) is a field error naming its dotted path, not an
// anonymous "invalid JSON"; the control, a well-formed body, decodes.
func TestDecodeErrorsNameTheField(t *testing.T) {
	for body, want := range map[string]string{
		`{"turn_id":"t","workspace_id":"w","permission_profile":{"mode":7}}`:                                  "permission_profile.mode",
		`{"turn_id":"t","workspace_id":"w","task_cap":{"policy":{"default_behavior":"allow","file_read":9}}}`: "task_cap.policy.file_read",
		`{"turn_id":"t","workspace_id":"w","task_cap":{"policy":{}}}`:                                         "task_cap.policy.default_behavior",
		`{"turn_id":"t","workspace_id":"w","permission_profile":{"mode":"bogus"}}`:                            "permission_profile.mode",
	} {
		var req StartTurnRequest
		err := decodeBytes([]byte(body), &req)
		var fe *domain.FieldError
		var te *json.UnmarshalTypeError
		var ee *domain.InvalidEnumError
		switch {
		case errors.As(err, &fe):
			if fe.Field != want {
				t.Errorf("%s: field %q, want %q (%v)", body, fe.Field, want, err)
			}
		case errors.As(err, &te):
			if te.Field != want {
				t.Errorf("%s: type error field %q, want %q (%v)", body, te.Field, want, err)
			}
		case errors.As(err, &ee):
			if ee.Field != want {
				t.Errorf("%s: enum error field %q, want %q (%v)", body, ee.Field, want, err)
			}
		default:
			t.Errorf("%s: %T %v, want an error naming %s", body, err, err, want)
		}
	}
	var ok StartTurnRequest
	if err := decodeBytes([]byte(`{"turn_id":"t","workspace_id":"w","permission_profile":{"mode":"supervised"}}`), &ok); err != nil {
		t.Fatalf("control: %v", err)
	}
}

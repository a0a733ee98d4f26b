package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// MaxBodyBytes is the largest request body accepted (413 above it).
const MaxBodyBytes = 1 << 20

// errMalformed is wrapped by every malformed-JSON error.
var errMalformed = errors.New("malformed JSON")

type unknownFieldError struct{ field string }

func (e *unknownFieldError) Error() string { return "unknown field " + e.field }

// decodeJSON reads one JSON object into v, refusing unknown fields, trailing
// data and bodies over MaxBodyBytes.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		return err
	}
	return decodeBytes(body, v)
}

func decodeBytes(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return fmt.Errorf("%w: empty body", errMalformed)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return &unknownFieldError{field: strings.Trim(f, `"`)}
		}
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return fmt.Errorf("%w: %v", errMalformed, err)
		}
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%w: trailing data after the JSON value", errMalformed)
	}
	return nil
}

package sandbox

import (
	"errors"
	"strings"
	"testing"
)

func TestRefusalUnwrap(t *testing.T) {
	inner := refuse(CodeMissingPath, "/x", "gone")
	outer := &Refusal{Code: CodeCwdNotReadable, Message: "m", Cause: inner}
	var r *Refusal
	if !errors.As(outer, &r) || r.Code != CodeCwdNotReadable {
		t.Fatal("outer")
	}
	if errors.Unwrap(outer) != error(inner) || !strings.Contains(inner.Error(), "/x") {
		t.Fatal("cause")
	}
	if (&Refusal{Code: "c", Message: "m"}).Unwrap() != nil {
		t.Fatal("nil cause")
	}
}

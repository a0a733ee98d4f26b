package domain

import (
	"strings"
	"testing"
)

// TestCheckJSONDepth: a value nested deeper than MaxKeptJSONDepth is
// refused, naming the field; one at the bound, and brackets inside
// strings (escaped quotes too), are not.
func TestCheckJSONDepth(t *testing.T) {
	nest := func(n int) string { return strings.Repeat(`{"a":[`, n/2) + strings.Repeat(`]}`, n/2) }
	if err := CheckJSONDepth("capabilities", []byte(nest(MaxKeptJSONDepth))); err != nil {
		t.Errorf("a value at the bound was refused: %v", err)
	}
	err := CheckJSONDepth("capabilities", []byte(nest(MaxKeptJSONDepth+2)))
	if err == nil || !strings.Contains(err.Error(), "capabilities") {
		t.Errorf("a value past the bound: %v", err)
	}
	if err := CheckJSONDepth("input", []byte(`["`+strings.Repeat(`[{\"`, 500)+`"]`)); err != nil {
		t.Errorf("brackets and escaped quotes in a string were counted: %v", err)
	}
}

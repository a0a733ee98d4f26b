package domain

import (
	"encoding/json"
	"net/url"
	"slices"
	"testing"
)

// TestNamedMethodsOfArguments: the methods a web_fetch's headers argument
// and URL name besides its method, in every shape the argument takes;
// control: headers that name none.
func TestNamedMethodsOfArguments(t *testing.T) {
	for _, c := range []struct {
		args, query string
		want        []string
	}{
		{`{"headers":{"X-HTTP-Method-Override":"delete"}}`, "", []string{"DELETE"}},
		{`{"headers":{"x_http_method":["PUT"," patch "]}}`, "", []string{"PUT", "PATCH"}},
		{`{"headers":["X-Method-Override: DELETE"]}`, "", []string{"DELETE"}},
		{`{"headers":{"X-Method-Override":{"v":1}}}`, "", []string{`{"V":1}`}},
		{`{}`, "_method=delete&a=b", []string{"DELETE"}},
		{`{"headers":{"Accept":"text/html","X-Trace":"method"}}`, "a=_method", nil},
	} {
		q, _ := url.ParseQuery(c.query)
		_, got := NamedMethods(ArgumentHeaders(json.RawMessage(c.args)), q)
		slices.Sort(got)
		want := slices.Clone(c.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s ?%s: %q, want %q", c.args, c.query, got, want)
		}
	}
}

package domain

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestAttack9LoneKeyInAnotherCase: the ninth review. The seventh and eighth
// refused two keys that differ only in case, and a non-ASCII letter that
// folds to an ASCII one, because Go's decoders match names without regard to
// case. A lone key in another case got past both: the classifier looked its
// arguments up by their exact names and read none, while a runtime decoding
// into a Go struct read it. {"cmd":"rm -rf build","Workdir":"/home/u"} was
// judged, shown and granted in the turn's cwd; {"Method":"POST"} was judged
// GET (and passed a limited network's method check); a download's
// "Destination" was judged the default file in the cwd.
func TestAttack9LoneKeyInAnotherCase(t *testing.T) {
	type goRuntime struct {
		Workdir     string `json:"workdir"`
		Method      string `json:"method"`
		Destination string `json:"destination"`
		TimeoutMs   int64  `json:"timeout_ms"`
	}
	for _, c := range []struct{ tool, args string }{
		{"exec_command", `{"cmd":"rm -rf build","Workdir":"/home/u"}`},
		{"exec_command", `{"cmd":"sleep 100000","TIMEOUT_MS":99999999}`},
		{"web_fetch", `{"url":"https://example.com/x","Method":"POST"}`},
		{"download_url", `{"url":"https://example.com/x","Destination":"/home/u/.bashrc"}`},
	} {
		var rt goRuntime
		if err := json.Unmarshal([]byte(c.args), &rt); err != nil {
			t.Fatal(err)
		}
		a, err := Classify(Invocation{ToolName: c.tool, Arguments: []byte(c.args)}, "/w", nil)
		var fe *FieldError
		if errors.As(err, &fe) {
			continue // refused
		}
		if err != nil {
			t.Fatal(err)
		}
		cwd, _ := a.Scope.Get("cwd")
		timeout, _ := a.Scope.Get("timeout_ms")
		switch {
		case rt.Workdir != "" && cwd != rt.Workdir,
			rt.TimeoutMs != 0 && timeout == "",
			rt.Method != "" && a.Method != rt.Method,
			rt.Destination != "" && (len(a.Files) != 1 || a.Files[0].Path != rt.Destination):
			t.Errorf("%s %s: judged %q (cwd %q, method %q, files %+v); a Go runtime reads %+v", c.tool, c.args, a.Summary, cwd, a.Method, a.Files, rt)
		}
	}
	// control: the documented names in their own case.
	for _, c := range []struct{ tool, args string }{
		{"exec_command", `{"cmd":"rm -rf build","workdir":"/w/sub","timeout_ms":5000}`},
		{"web_fetch", `{"url":"https://example.com/x","method":"POST"}`},
		{"download_url", `{"url":"https://example.com/x","destination":"dl/x"}`},
	} {
		if _, err := Classify(Invocation{ToolName: c.tool, Arguments: []byte(c.args)}, "/w", nil); err != nil {
			t.Errorf("control %s %s: %v", c.tool, c.args, err)
		}
	}
}

// TestAttack9ArgumentOfAnotherType: the ninth review. An argument the
// classifier reads, given with another JSON type than its own, was read as
// absent: {"method":["POST"]} was judged GET (and passed a limited
// network's method check), while fetch in Node (WebIDL's ByteString
// conversion: String(["POST"]) is "POST") sends a POST; {"tty":"false"} was
// judged without a terminal, and JavaScript's truthiness runs it on one.
func TestAttack9ArgumentOfAnotherType(t *testing.T) {
	for _, c := range []struct{ tool, args string }{
		{"web_fetch", `{"url":"https://example.com/x","method":["POST"]}`},
		{"download_url", `{"url":"https://example.com/x","method":["PUT"],"destination":"x"}`},
		{"exec_command", `{"cmd":"vim notes","tty":"false"}`},
		{"exec_command", `{"cmd":"sleep 100000","timeout_ms":"99999999"}`},
	} {
		a, err := Classify(Invocation{ToolName: c.tool, Arguments: []byte(c.args)}, "/w", nil)
		var fe *FieldError
		if !errors.As(err, &fe) {
			t.Errorf("%s %s: accepted as %q (method %q)", c.tool, c.args, a.Summary, a.Method)
		}
	}
	// control: the documented types.
	for _, c := range []struct{ tool, args string }{
		{"web_fetch", `{"url":"https://example.com/x","method":"POST"}`},
		{"exec_command", `{"cmd":["vim","notes"],"tty":true,"timeout_ms":5000,"env":{"A":"1"}}`},
		{"download_url", `{"url":"https://example.com/x","destination":"x","overwrite":true}`},
	} {
		if _, err := Classify(Invocation{ToolName: c.tool, Arguments: []byte(c.args)}, "/w", nil); err != nil {
			t.Errorf("control %s %s: %v", c.tool, c.args, err)
		}
	}
}

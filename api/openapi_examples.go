package api

import (
	_ "embed"
	"encoding/json"
	"strings"
	"sync"
)

// responsesJSON holds one answer per operation that has no request body to
// show, captured from a running server (and trimmed): the success answer's
// example. A JSON example must decode into the operation's response type
// with unknown fields refused (TestOpenAPIDescribesAndExemplifiesEveryOperation),
// so the examples cannot drift from the code; a text one (metrics, events)
// is a string.
//
//go:embed examples/responses.json
var responsesJSON []byte

// responseExamples are the examples of responsesJSON by "METHOD /path".
// Decoded on first use (the OpenAPI document is built lazily too), not at
// every start of the binary.
var responseExamples = sync.OnceValue(func() map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	if err := json.Unmarshal(responsesJSON, &m); err != nil {
		panic("api: examples/responses.json: " + err.Error())
	}
	return m
})

// exampleExempt are the operations without an example, and why.
var exampleExempt = map[string]string{
	"GET /openapi.json": "the answer is this document",
	"GET /rpc":          "a 101 switch to a WebSocket has no body; POST /rpc shows the messages",
}

// addResponseExamples puts each response example on its operation's
// success answer, under the answer's first media type.
func addResponseExamples(paths map[string]map[string]any) {
	for key, raw := range responseExamples() {
		method, path, _ := strings.Cut(key, " ")
		o, ok := paths[path][strings.ToLower(method)].(map[string]any)
		if !ok {
			continue
		}
		responses, _ := o["responses"].(map[string]any)
		for _, status := range []string{"200", "201", "202"} {
			r, ok := responses[status].(map[string]any)
			if !ok {
				continue
			}
			content, _ := r["content"].(map[string]any)
			for _, c := range content { // one media type per answer
				var v any
				if json.Unmarshal(raw, &v) == nil {
					c.(map[string]any)["example"] = v
				}
			}
			break
		}
	}
}

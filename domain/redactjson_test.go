package domain

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRedactJSON: a prompt's and a client's strings are redacted wherever
// they are in the document, a member's value as its assignment would be,
// keys and shape kept. Controls: a document without secrets is returned as
// sent, byte for byte, and so is one that is not JSON.
func TestRedactJSON(t *testing.T) {
	const token, password = "ghp_Zq8Lk2Wm4Rt6Yp1Xn3Vb5Jc7Hd9Gf0Ks2Aa7", "summer2024"
	in := json.RawMessage(`[{"type":"text","text":"deploy with GITHUB_TOKEN=` + token + ` now","n":1.50},{"env":{"PGPASSWORD":"` + password + `","HOME":"/home/me"}}]`)
	out := string(RedactJSON(in))
	for _, sec := range []string{token, password} {
		if strings.Contains(out, sec) {
			t.Fatalf("%s still in %s", sec[:6], out)
		}
	}
	var v []map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil || len(v) != 2 || v[0]["type"] != "text" || !strings.Contains(v[0]["text"].(string), "deploy with GITHUB_TOKEN=") {
		t.Fatalf("shape not kept: %s (%v)", out, err)
	}
	if !strings.Contains(out, `"n":1.50`) || !strings.Contains(out, `"HOME":"/home/me"`) {
		t.Fatalf("numbers or plain values changed: %s", out)
	}
	plain := json.RawMessage(`{"b": 1,  "a": "hello"}`)
	if got := RedactJSON(plain); string(got) != string(plain) {
		t.Fatalf("a document without secrets changed: %s", got)
	}
	if got := RedactJSON(json.RawMessage(`not json ` + token)); string(got) != `not json `+token {
		t.Fatalf("not JSON: %s", got)
	}
	m := RedactJSONMap(map[string]json.RawMessage{"OPENAI_API_KEY": json.RawMessage(`"` + password + `"`), "model": json.RawMessage(`"x"`)})
	if strings.Contains(string(m["OPENAI_API_KEY"]), password) || string(m["model"]) != `"x"` {
		t.Fatalf("map: %s", m)
	}
}

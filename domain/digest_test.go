package domain

import (
	"encoding/json"
	"strings"
	"testing"
)

func classifyKeyed(t *testing.T, key DigestKey, tool string, args map[string]any) Action {
	t.Helper()
	raw, _ := json.Marshal(args)
	a, err := Classify(Invocation{ToolName: tool, Arguments: raw, Key: key}, "/work", nil)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestShownScopeBindsWhatItHides: a scope whose redaction hides a value is
// shown with a redacted_hash entry, the key's digest of the whole scope;
// the scope hash is the SHA-256 of what is shown (so a recorded scope
// hashes to it), and a guess of the hidden value put back in the shown
// scope does not hash to it. Two calls differing only in the hidden value
// differ in their hash, the same call under the same key hashes the same,
// and under another key differently. Control: a scope with nothing hidden
// has no redacted_hash and hashes as it always did.
func TestShownScopeBindsWhatItHides(t *testing.T) {
	k1, k2 := RandomDigestKey(), RandomDigestKey()
	cmd := func(pw string) map[string]any { return map[string]any{"cmd": "PGPASSWORD=" + pw + " psql -h db"} }
	a := classifyKeyed(t, k1, "exec_command", cmd("summer2024"))
	if a.Shown.Hash() != a.ScopeHash {
		t.Fatalf("the shown scope does not hash to the scope hash")
	}
	if _, ok := a.Shown.Get(RedactedHashKey); !ok {
		t.Fatalf("no %s in %v", RedactedHashKey, a.Shown)
	}
	if strings.Contains(string(a.Shown.CanonicalJSON()), "summer2024") {
		t.Fatalf("the shown scope holds the secret: %s", a.Shown.CanonicalJSON())
	}
	rec, _ := a.RedactedRecord()
	if rec.Hash() != a.ScopeHash {
		t.Fatalf("the recorded scope does not hash to the scope hash")
	}
	guess := Scope{}
	for _, e := range a.Shown {
		guess = append(guess, ScopeEntry{e.Key, strings.ReplaceAll(e.Value, "[redacted]", "summer2024")})
	}
	if guess.Hash() == a.ScopeHash || a.Scope.Hash() == a.ScopeHash {
		t.Fatalf("the right guess hashes to the scope hash")
	}
	if b := classifyKeyed(t, k1, "exec_command", cmd("summer2024")); b.ScopeHash != a.ScopeHash {
		t.Fatalf("the same call hashes differently under one key")
	}
	if b := classifyKeyed(t, k1, "exec_command", cmd("winter2023")); b.ScopeHash == a.ScopeHash {
		t.Fatalf("another password hashes the same")
	}
	if b := classifyKeyed(t, k2, "exec_command", cmd("summer2024")); b.ScopeHash == a.ScopeHash {
		t.Fatalf("another key hashes the same")
	}
	plain := classifyKeyed(t, k1, "exec_command", map[string]any{"cmd": "go test ./..."})
	if _, ok := plain.Shown.Get(RedactedHashKey); ok || plain.ScopeHash != plain.Scope.Hash() {
		t.Fatalf("a scope with nothing hidden: %v, hash %s, want %s", plain.Shown, plain.ScopeHash, plain.Scope.Hash())
	}
}

// TestDigestsKeyed: the digests of what a scope never shows (environment
// values, stdin, the whole URL, a payload, unread arguments) are keyed:
// not the plain SHA-256 a reader could test a guess against, the same
// under one key, and a client's own SHA-256 of stdin agrees with stdin
// given inline. Control: the zero key gives the plain SHA-256.
func TestDigestsKeyed(t *testing.T) {
	k := RandomDigestKey()
	exe := map[string]any{"cmd": []string{"psql"}, "env": map[string]string{"PGPASSWORD": "summer2024"}, "stdin": "hunter2\n"}
	a := classifyKeyed(t, k, "exec_command", exe)
	env, _ := a.Scope.Get("env_sha256")
	in, _ := a.Scope.Get("stdin_sha256")
	if env == hashHex([]byte(`["PGPASSWORD=summer2024"]`)) || in == hashHex([]byte("hunter2\n")) {
		t.Fatalf("an environment value or stdin digested unkeyed")
	}
	if env != k.Sum([]byte(`["PGPASSWORD=summer2024"]`)) || in != k.Sum([]byte(hashHex([]byte("hunter2\n")))) {
		t.Fatalf("env_sha256 %s, stdin_sha256 %s: not the key's", env, in)
	}
	client := classifyKeyed(t, k, "exec_command", map[string]any{"cmd": []string{"psql"}, "env": map[string]string{"PGPASSWORD": "summer2024"},
		"stdin_sha256": hashHex([]byte("hunter2\n")), "stdin_bytes": 8})
	if client.ScopeHash != a.ScopeHash {
		t.Fatalf("a client's stdin_sha256 and the same stdin inline differ")
	}
	u := classifyKeyed(t, k, "web_fetch", map[string]any{"url": "https://h.example/login?password=letmein"})
	if full, _ := u.Scope.Get("url_full_hash"); full != k.Sum([]byte("https://h.example/login?password=letmein")) {
		t.Fatalf("url_full_hash %s: not the key's", full)
	}
	p := classifyKeyed(t, k, "web_search", map[string]any{"query": "letmein"})
	if ph, _ := p.Scope.Get("payload_hash"); ph == hashHex([]byte(`{"query":"letmein"}`)) || ph != k.Sum([]byte(`{"query":"letmein"}`)) {
		t.Fatalf("payload_hash %s: not the key's", ph)
	}
	o := classifyKeyed(t, k, "web_fetch", map[string]any{"url": "https://h.example/", "headers": map[string]string{"X": "letmein"}})
	if oh, _ := o.Scope.Get("other_arguments_sha256"); oh == hashHex([]byte(`{"headers":{"X":"letmein"}}`)) || oh != k.Sum([]byte(`{"headers":{"X":"letmein"}}`)) {
		t.Fatalf("other_arguments_sha256 %s: not the key's", oh)
	}
	z := classifyKeyed(t, DigestKey{}, "exec_command", exe)
	if env, _ := z.Scope.Get("env_sha256"); env != hashHex([]byte(`["PGPASSWORD=summer2024"]`)) {
		t.Fatalf("the zero key: env_sha256 %s, want the plain SHA-256", env)
	}
}

// TestDigestKeyForTurn: a turn's key digests the same input alike within
// the turn and differently in another turn, whatever turn it was derived
// from before; it is not the store's key, which Bytes still returns.
func TestDigestKeyForTurn(t *testing.T) {
	k := RandomDigestKey()
	a, b, c := k.ForTurn("t1", "p"), k.ForTurn("t2", "p"), k.ForTurn("t1", "q")
	in := []byte("PGPASSWORD=summer2024 psql")
	if a.Sum(in) != k.ForTurn("t1", "p").Sum(in) || a.Sum(in) != b.ForTurn("t1", "p").Sum(in) {
		t.Fatal("a turn's key is not the same every time it is derived")
	}
	if a.Sum(in) == b.Sum(in) || a.Sum(in) == c.Sum(in) || a.Sum(in) == k.Sum(in) {
		t.Fatal("two turns, two principals (or a turn and the store) digest the same input alike")
	}
	if string(a.Bytes()) != string(k.Bytes()) {
		t.Fatal("Bytes of a turn's key is not the store's key")
	}
	if !(DigestKey{}).ForTurn("t1", "p").IsZero() {
		t.Fatal("the zero key derived a key")
	}
}
